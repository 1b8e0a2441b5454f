// The HTML page's style sheet and script (core/export/html_page.h), inlined into every page: no
// file or host is ever asked for. The script reads the JSON in <script id="hs-data">, decodes each
// map's 16-bit steps, and draws the maps with the app's colormap and colour rule
// (core/render/colour_scale.h) on canvases; window.hsPage is for scripts and tests.

namespace hs {

extern const char* const kHtmlPageStyle;
extern const char* const kHtmlPageScript;

const char* const kHtmlPageStyle = R"HSPAGE(
:root{--bg:#fafafa;--fg:#1d1d1f;--mute:#5f6368;--line:#d0d0d4;--chip:#ececf0;--accent:#2f6fdf}
@media (prefers-color-scheme:dark){:root{--bg:#1e1f22;--fg:#e8e8ea;--mute:#a0a3a8;--line:#44464b;--chip:#2c2e33;--accent:#7aa7ff}}
body{margin:0;padding:14px 18px;background:var(--bg);color:var(--fg);font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif}
h1{font-size:18px;margin:0 0 4px}
#about,#note,#precision{color:var(--mute);max-width:960px;margin:4px 0}
#controls{display:flex;flex-wrap:wrap;gap:14px;align-items:center;margin:10px 0}
#controls label{display:flex;gap:6px;align-items:center}
select,button{font:inherit;color:inherit;background:var(--chip);border:1px solid var(--line);border-radius:4px;padding:2px 6px}
#chips{display:flex;flex-wrap:wrap;gap:4px;margin:8px 0}
.chip{background:var(--chip);border:1px solid var(--line);border-radius:10px;padding:1px 8px;font:13px ui-monospace,Menlo,Consolas,monospace;white-space:pre}
.chip.row{border-color:var(--accent)}.chip.col{outline:2px solid var(--accent)}
.chip[aria-pressed=true]{background:var(--accent);color:#fff}
#stage{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
#stage.bars{flex-direction:column;gap:2px}.panel.keys{cursor:default}
.panel{display:flex;flex-direction:column;align-items:center;border:1px solid transparent;border-radius:4px;padding:4px;cursor:pointer}
.panel:focus,.panel:hover{border-color:var(--accent);outline:none}
.panel span{font-size:12px;color:var(--mute)}
.large{display:flex;gap:10px;align-items:flex-start}
canvas{display:block;image-rendering:pixelated}
#tip{position:fixed;pointer-events:none;background:#111c;color:#fff;padding:4px 8px;border-radius:4px;font-size:13px;display:none;white-space:pre;z-index:9}
details{margin-top:14px;color:var(--mute)}pre{white-space:pre-wrap;font-size:12px}
kbd{border:1px solid var(--line);border-radius:3px;padding:0 4px;font-size:12px}
#heads-box{max-height:300px;overflow-y:auto;border:1px solid var(--line);border-radius:4px}
#heads{border-collapse:collapse;font-size:13px}#heads th,#heads td{padding:1px 10px;text-align:right}
#heads th{position:sticky;top:0;background:var(--chip)}#heads tr[data-layer]{cursor:pointer}
#heads tr.sel{background:var(--accent);color:#fff}#heads tr[data-layer]:hover,#heads tr:focus{outline:1px solid var(--accent)}
.side{font:13px ui-monospace,Menlo,Consolas,monospace;width:100%}
)HSPAGE";

const char* const kHtmlPageScript = R"HSPAGE(
"use strict";
(function () {
const D = JSON.parse(document.getElementById("hs-data").textContent);
const el = (tag, attrs, text) => { const e = document.createElement(tag); for (const k in attrs || {}) e.setAttribute(k, attrs[k]); if (text !== undefined) e.textContent = text; return e; };
const byId = id => document.getElementById(id);

// ---- data: 16-bit steps over each map's exact range [lo, hi] ----
function decode(m) {
  const bin = atob(m.data), n = m.rows * m.cols, v = new Float64Array(n), span = m.hi - m.lo;
  for (let k = 0; k < n; k++) v[k] = m.lo + (bin.charCodeAt(2 * k) | bin.charCodeAt(2 * k + 1) << 8) * span / 65535;
  for (const k of m.nan || []) v[k] = NaN;
  m.values = v;
  m.hidden = new Uint8Array(n);
  if (m.mask) { const b = atob(m.mask); for (let k = 0; k < n; k++) m.hidden[k] = (b.charCodeAt(k >> 3) >> (k & 7)) & 1; }
  m.step = span / 65535;
  m.digits = span > 0 ? Math.min(9, Math.max(D.encoding.digits, Math.floor(-Math.log10(span)) + D.encoding.digits)) : D.encoding.digits;
}
for (const g of D.groups) for (const m of g.maps) decode(m);
// A palette: a colormap's 256 colours and its masked colour. The page's, and the contrast page's
// B - A palette (its own diverging colormap).
function paletteOf(c) {
  const t = [];
  for (let k = 0; k < 256; k++) t.push([0, 1, 2].map(x => parseInt(c.table.substr(6 * k + 2 * x, 2), 16)));
  return { cm: c, table: t };
}
const P = paletteOf(D.colormap), cm = P.cm;

// ---- colour: the app's rule (core/render/colour_scale.h) ----
function scaleMax(maps, skipFirst) {
  let m = 0;
  for (const map of maps) {
    if (map.fixed_max) { m = Math.max(m, map.fixed_max); continue; }
    const first = skipFirst && map.cols > 1 ? 1 : 0;
    for (let i = 0; i < map.rows; i++) for (let j = first; j < map.cols; j++) { const a = Math.abs(map.values[i * map.cols + j]); if (a > m) m = a; }
  }
  return m > 0 && isFinite(m) ? m : 1;
}
// The bottom of the maps' linear range: their colour_lo when each has one (the head-distance
// table's smallest off-diagonal cell, as its figure takes it), else 0.
function scaleLow(maps) { return maps.length && maps.every(m => m.colour_lo !== undefined) ? Math.min(...maps.map(m => m.colour_lo)) : 0; }
function scaleRange(top, low) {
  const mode = S.mode;
  if (mode === "log") return { mode, lo: top * 1e-3, hi: top };
  if (mode === "row") return { mode, lo: 0, hi: 1 };
  return { mode, lo: cm.diverging ? -top : Math.min(low || 0, top), hi: top, diverging: cm.diverging };
}
function rowMax(map, i) {
  const first = S.ignore && map.cols > 1 ? 1 : 0; let m = -Infinity;
  for (let j = first; j < map.cols; j++) m = Math.max(m, map.values[i * map.cols + j]);
  return m;
}
function unit(r, v, rmax) {
  let t;
  if (r.mode === "log") t = v > r.lo ? Math.min(1, Math.log(v / r.lo) / Math.log(r.hi / r.lo)) : 0;
  else if (r.mode === "row") t = rmax > 0 ? v / rmax : 0;
  else t = r.diverging ? 0.5 + 0.5 * v / r.hi : r.hi > r.lo ? (v - r.lo) / (r.hi - r.lo) : 0;
  return t > 0 ? Math.min(t, 1) : 0;
}
const colourOf = (t, pal) => t < 0 ? (pal || P).cm.masked : (pal || P).table[Math.floor(t * 255 + 0.5)];
function cellT(map, r, i, j, rmax) { return map.hidden[i * map.cols + j] ? -1 : unit(r, map.values[i * map.cols + j], rmax); }

// ---- state ----
const S = { group: D.group, map: D.map, mode: D.scale.mode, ignore: D.scale.ignore_first_key, queries: D.queries.slice(), ci: 0, cj: 0, focus: 0 };
const group = () => D.groups[S.group];
const rowLabels = () => D.token_axes ? D.tokens : D.row_labels;
const colLabels = () => D.token_axes ? D.tokens : D.col_labels;
const fmt = (v, d) => isNaN(v) ? "not measured" : v.toFixed(d);

// ---- page skeleton ----
const title = el("h1", {}, D.title), about = el("p", { id: "about" }, D.about);
const controls = el("div", { id: "controls" }), chips = el("div", { id: "chips", "aria-label": "tokens" });
const stage = el("div", { id: "stage" }), note = el("p", { id: "note" }), precision = el("p", { id: "precision" });
const tip = el("div", { id: "tip", role: "status" });
const prov = el("details", { id: "provenance" }); prov.appendChild(el("summary", {}, "Provenance: what made this page"));
prov.appendChild(el("pre", {}, JSON.stringify(D.contrast ? { A: D.provenance, B: D.contrast.provenance_b } : D.provenance, null, 1)));
const keys = el("details", { id: "keys" }); keys.appendChild(el("summary", {}, "Keyboard"));
keys.appendChild(el("pre", {}, D.contrast ? "up / down   previous / next head by change (the table's order)\n[ ]         previous / next layer\n, .         previous / next head\nclick       a row of the table or a cell of the change map: that head" : "arrow keys  move the cell cursor (a grid: the head in focus)\nEnter       open the head in focus\nEscape      back to the grid\n[ ]         previous / next " + D.group_title + "\n, .         previous / next " + D.map_title + "\ns           next colour scale (linear, log, row)\ni           ignore the first key on or off\nTab         the controls, tokens and heads in turn"));
for (const e of [title, about, controls, chips, stage, note, precision, prov, keys, tip]) document.body.appendChild(e);

function select(label, id, options, value, onchange) {
  const l = el("label", {}, label + " "), s = el("select", { id });
  options.forEach(([v, t]) => { const o = el("option", { value: v }, t); if (String(v) === String(value)) o.selected = true; s.appendChild(o); });
  s.addEventListener("change", () => onchange(s.value));
  l.appendChild(s); controls.appendChild(l); return s;
}
function buildControls() {
  controls.textContent = "";
  if (D.groups.length > 1) select(D.group_title, "group", D.groups.map((g, k) => [k, g.name]), S.group, v => { S.group = +v; render(); });
  else controls.appendChild(el("strong", { id: "group-name" }, group().name));
  if (group().maps.length > 1 && !D.query_mode) {
    select(D.map_title, "map", [[-1, "every " + D.map_title + " (grid)"]].concat(group().maps.map((m, k) => [k, m.name])), S.map, v => { S.map = +v; render(); });
  }
  select("colour scale", "scale", [["linear", "linear"], ["log", "log (3 decades)"], ["row", "row (share of the row's largest)"]], S.mode, v => { S.mode = v; render(); });
  if (D.token_axes) {
    const l = el("label", {}), c = el("input", { type: "checkbox", id: "ignore" }); c.checked = S.ignore;
    c.addEventListener("change", () => { S.ignore = c.checked; render(); });
    l.appendChild(c); l.appendChild(document.createTextNode("ignore the first key in the range")); controls.appendChild(l);
  }
}
function buildChips() {
  chips.textContent = "";
  if (!D.token_axes) return;
  D.tokens.forEach((t, k) => {
    const c = el(D.query_mode ? "button" : "span", { class: "chip", "data-k": k, title: "token " + k }, t);
    if (D.query_mode) {
      c.setAttribute("aria-pressed", S.queries.includes(k));
      c.addEventListener("click", () => {
        const at = S.queries.indexOf(k);
        if (at >= 0 && S.queries.length > 1) S.queries.splice(at, 1); else if (at < 0) S.queries.push(k);
        S.queries.sort((a, b) => a - b); render();
      });
    }
    chips.appendChild(c);
  });
}
function markChips(i, j) {
  for (const c of chips.children) { const k = +c.dataset.k; c.classList.toggle("row", k === i); c.classList.toggle("col", k === j); }
}

// ---- drawing ----
function drawCells(ctx, map, r, x0, y0, cs, pal) {
  for (let i = 0; i < map.rows; i++) {
    const rmax = r.mode === "row" ? rowMax(map, i) : 0;
    for (let j = 0; j < map.cols; j++) {
      const c = colourOf(cellT(map, r, i, j, rmax), pal);
      ctx.fillStyle = "rgb(" + c[0] + "," + c[1] + "," + c[2] + ")";
      ctx.fillRect(x0 + j * cs, y0 + i * cs, cs, cs);
    }
  }
}
function textColour() { return getComputedStyle(document.body).color; }
function drawBar(r, height, pal) {
  const c = el("canvas", { width: 64, height: height + 20, "aria-hidden": "true" }), ctx = c.getContext("2d");
  for (let y = 0; y < height; y++) { const t = 1 - y / Math.max(1, height - 1), col = colourOf(t, pal); ctx.fillStyle = "rgb(" + col + ")"; ctx.fillRect(0, y + 10, 14, 1); }
  ctx.fillStyle = textColour(); ctx.font = "11px sans-serif";
  const at = t => r.mode === "log" ? r.lo * Math.pow(r.hi / r.lo, t) : r.lo + t * (r.hi - r.lo);
  for (const t of [1, 0.5, 0]) ctx.fillText((r.mode === "row" ? (t * 100).toFixed(0) + "%" : at(t).toPrecision(3)), 18, 14 + (1 - t) * (height - 1));
  return c;
}
let hit = null;  // the large canvas: where its cells are
// A map drawn large with its row labels on the left and column labels on top: { canvas, map, x0, y0, cs, r }.
function labelledCanvas(map, rows, cols, r, pal, cs, id) {
  const probe = document.createElement("canvas").getContext("2d"); probe.font = "12px sans-serif";
  const widest = l => Math.min(140, Math.max(0, ...l.map(s => probe.measureText(s).width)));
  const every = Math.max(1, Math.ceil(13 / cs)), left = Math.ceil(widest(rows)) + 8, top = Math.ceil(widest(cols)) + 8;
  const c = el("canvas", { id, width: left + map.cols * cs + 1, height: top + map.rows * cs + 1, tabindex: 0, "aria-label": map.name + ": hover or use the arrow keys for a cell's value" });
  const ctx = c.getContext("2d");
  drawCells(ctx, map, r, left, top, cs, pal);
  ctx.fillStyle = textColour(); ctx.font = "12px sans-serif"; ctx.textBaseline = "middle";
  for (let i = 0; i < map.rows; i += every) { ctx.textAlign = "right"; ctx.fillText(rows[i], left - 4, top + (i + 0.5) * cs, 140); }
  for (let j = 0; j < map.cols; j += every) {
    ctx.save(); ctx.translate(left + (j + 0.5) * cs, top - 4); ctx.rotate(-Math.PI / 2); ctx.textAlign = "left"; ctx.fillText(cols[j], 0, 0, 140); ctx.restore();
  }
  return { canvas: c, map, x0: left, y0: top, cs, r, rows, cols };
}
function large(map) {
  const rows = rowLabels(), cols = colLabels(), cs = Math.max(3, Math.min(36, Math.floor(Math.min(640, innerWidth - 300) / Math.max(map.rows, map.cols))));
  const r = scaleRange(scaleMax([map], S.ignore && D.token_axes), scaleLow([map]));
  hit = labelledCanvas(map, rows, cols, r, P, cs, "map");
  const c = hit.canvas, left = hit.x0, top = hit.y0;
  c.addEventListener("mousemove", e => { const j = Math.floor((e.offsetX - left) / cs), i = Math.floor((e.offsetY - top) / cs); if (i >= 0 && j >= 0 && i < map.rows && j < map.cols) { S.ci = i; S.cj = j; showTip(map, i, j, e.clientX, e.clientY); } else hideTip(); });
  c.addEventListener("mouseleave", hideTip);
  const box = el("div", { class: "large" }); box.appendChild(c); box.appendChild(drawBar(r, map.rows * cs));
  precision.textContent = "Values: 16-bit steps over this map's exact range [" + map.lo.toPrecision(9) + ", " + map.hi.toPrecision(9) + "], a step of " + map.step.toPrecision(3) +
    "; the hover shows " + map.digits + " decimals, within " + (0.5 * Math.pow(10, -map.digits) + map.step / 2).toPrecision(2) + " of the float32 value. Colours: " + cm.name + " on the " + S.mode + " scale, " + (r.lo === 0 ? "0" : r.lo.toPrecision(4)) + " to " + r.hi.toPrecision(4) + (D.token_axes ? "; grey cells are masked" : "") + ".";
  return box;
}
// lab: the map's own labels and hover titles (the contrast page's maps), else the page's.
function showTip(map, i, j, x, y, lab) {
  const L = lab || { rows: rowLabels(), cols: colLabels(), hover: D.hover, index: D.token_axes };
  const v = map.values[i * map.cols + j], rows = L.rows, cols = L.cols, h = L.hover;
  tip.textContent = "";
  tip.appendChild(document.createTextNode(map.name + "\n" + h.row + " " + (L.index ? i + " " : "") + rows[i] + "\n" + h.col + " " + (L.index ? j + " " : "") + cols[j] + "\n" + h.value + " "));
  const s = el("span", { class: "v", "data-i": i, "data-j": j }, map.hidden[i * map.cols + j] ? "masked (" + fmt(v, map.digits) + ")" : fmt(v, map.digits));
  tip.appendChild(s);
  tip.style.display = "block"; tip.style.left = (x + 14) + "px"; tip.style.top = (y + 14) + "px";
  if (D.token_axes) markChips(i, j);
}
function hideTip() { tip.style.display = "none"; markChips(-1, -1); }
function cursorTip() {
  if (!hit) return;
  const b = hit.canvas.getBoundingClientRect(), x = b.left + hit.x0 + (S.cj + 0.5) * hit.cs, y = b.top + hit.y0 + (S.ci + 0.5) * hit.cs;
  const ctx = hit.canvas.getContext("2d"); render(true);
  const c2 = hit.canvas.getContext("2d"); c2.strokeStyle = "#ff3b30"; c2.lineWidth = 2; c2.strokeRect(hit.x0 + S.cj * hit.cs + 1, hit.y0 + S.ci * hit.cs + 1, hit.cs - 2, hit.cs - 2);
  showTip(hit.map, S.ci, S.cj, x, y); void ctx;
}
function grid() {
  const maps = group().maps, T = Math.max(...maps.map(m => Math.max(m.rows, m.cols))), cs = Math.max(1, Math.floor(150 / T));
  const shared = D.scale.per_map ? null : scaleRange(scaleMax(maps, S.ignore && D.token_axes), scaleLow(maps));
  maps.forEach((m, k) => {
    const p = el("div", { class: "panel", tabindex: 0, role: "button", "data-map": k, "aria-label": "open " + m.name });
    const c = el("canvas", { width: m.cols * cs, height: m.rows * cs }), r = shared || scaleRange(scaleMax([m], S.ignore && D.token_axes), scaleLow([m]));
    drawCells(c.getContext("2d"), m, r, 0, 0, cs);
    c.addEventListener("mousemove", e => { const j = Math.floor(e.offsetX / cs), i = Math.floor(e.offsetY / cs); if (i < m.rows && j < m.cols) showTip(m, i, j, e.clientX, e.clientY); });
    c.addEventListener("mouseleave", hideTip);
    p.appendChild(c); p.appendChild(el("span", {}, m.name));
    p.addEventListener("click", () => { S.map = k; render(); });
    p.addEventListener("keydown", e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); S.map = k; render(); } });
    p.addEventListener("focus", () => { S.focus = k; });
    stage.appendChild(p);
  });
  if (shared) stage.appendChild(drawBar(shared, Math.min(150, T * cs)));
  precision.textContent = "Click a " + D.map_title + " (or Tab to it and press Enter) to open it large. Values: 16-bit steps over each map's exact range; the hover shows " + D.encoding.digits + "+ decimals.";
}
// The query view: the chosen rows summed, one bar per key, a row of bars per head.
function querySums(m) {
  const s = new Float64Array(m.cols);
  for (const q of S.queries) for (let j = 0; j < m.cols; j++) s[j] += m.values[q * m.cols + j];
  return s;
}
function queryBars() {
  const maps = group().maps, T = maps[0].cols, cs = Math.max(6, Math.min(28, Math.floor(Math.min(720, innerWidth - 200) / T))), H = 46;
  const sums = maps.map(querySums), top = Math.max(1e-30, ...sums.map(s => Math.max(...s))), r = { mode: "linear", lo: 0, hi: top, diverging: false };
  hit = null;
  maps.forEach((m, k) => {
    const row = el("div", { class: "panel", "data-map": k }), c = el("canvas", { width: T * cs, height: H, tabindex: 0, "aria-label": m.name + ": arrow keys for each key's value" }), ctx = c.getContext("2d");
    sums[k].forEach((v, j) => { const col = colourOf(unit(r, v, 0)); ctx.fillStyle = "rgb(" + col + ")"; const h = Math.max(1, Math.round(v / top * (H - 2))); ctx.fillRect(j * cs + 1, H - h, cs - 2, h); });
    const tipAt = (j, x, y) => {
      const h = D.hover, d = Math.max(...S.queries.map(() => m.digits));
      tip.textContent = m.name + "\nkey " + j + " " + D.tokens[j] + "\nquery rows " + S.queries.map(q => q + " " + D.tokens[q]).join(" + ") + "\n" + h.value + " ";
      tip.appendChild(el("span", { class: "v", "data-j": j }, fmt(sums[k][j], d)));
      tip.style.display = "block"; tip.style.left = (x + 14) + "px"; tip.style.top = (y + 14) + "px"; markChips(-1, j);
    };
    c.addEventListener("mousemove", e => { const j = Math.floor(e.offsetX / cs); if (j >= 0 && j < T) tipAt(j, e.clientX, e.clientY); });
    c.addEventListener("mouseleave", hideTip);
    c.addEventListener("keydown", e => { if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return; e.preventDefault(); e.stopPropagation(); S.cj = Math.max(0, Math.min(T - 1, S.cj + (e.key === "ArrowRight" ? 1 : -1))); const b = c.getBoundingClientRect(); tipAt(S.cj, b.left + (S.cj + 0.5) * cs, b.top + H / 2); });
    row.appendChild(el("span", {}, m.name)); row.appendChild(c); stage.appendChild(row);
  });
  const keysRow = el("canvas", { width: T * cs, height: 110, "aria-hidden": "true" }), kx = keysRow.getContext("2d");
  kx.fillStyle = textColour(); kx.font = "12px sans-serif"; kx.textBaseline = "middle";
  D.tokens.forEach((t, j) => { kx.save(); kx.translate((j + 0.5) * cs, 4); kx.rotate(Math.PI / 2); kx.fillText(t, 0, 0, 104); kx.restore(); });
  const keyPanel = el("div", { class: "panel keys" }); keyPanel.appendChild(keysRow); stage.appendChild(keyPanel);
  precision.textContent = "Bars: the chosen query rows summed (0 to " + top.toPrecision(4) + " across the heads shown); choose the rows on the tokens above. Each summand is within half a 16-bit step of its float32 value.";
}

function render(keepTip) {
  if (D.contrast) { contrastRender(); return; }
  stage.textContent = ""; hit = null;
  if (!keepTip) hideTip();
  buildControls(); buildChips();
  note.textContent = [group().note].concat(D.notes).filter(Boolean).join(" ");
  const maps = group().maps;
  if (S.map >= maps.length) S.map = maps.length - 1;
  stage.className = D.query_mode ? "bars" : "";
  if (D.query_mode) queryBars();
  else if (S.map < 0 && maps.length > 1) grid();
  else stage.appendChild(large(maps[Math.max(0, S.map)]));
  if (S.map >= 0 && hit && keepTip) { /* the cursor is redrawn by cursorTip */ }
}

// ---- the contrast page: two runs (two sentences or two models), heads by change ----
const C = D.contrast, CS = { layer: C ? C.layer : 0, head: C ? C.head : 0, hits: {} };
if (C) {
  decode(C.change);
  for (const layer of C.maps) for (const h of layer) for (const k of ["a", "b", "d"]) decode(h[k]);
}
const DP = C ? paletteOf(C.diff_colormap) : P;
function contrastSelect(l, h) { CS.layer = l; CS.head = h; render(); }
// Hover of a map's cells: its own labels (A's tokens, B's, the paired ones; layers x heads).
function contrastHover(H, lab) {
  H.canvas.addEventListener("mousemove", e => {
    const j = Math.floor((e.offsetX - H.x0) / H.cs), i = Math.floor((e.offsetY - H.y0) / H.cs);
    if (i >= 0 && j >= 0 && i < H.map.rows && j < H.map.cols) showTip(H.map, i, j, e.clientX, e.clientY, lab); else hideTip();
  });
  H.canvas.addEventListener("mouseleave", hideTip);
}
function contrastHeadsTable() {
  const box = el("div", { id: "heads-box" }), t = el("table", { id: "heads" }), head = el("tr");
  for (const h of ["rank", "layer", "head", "change"]) head.appendChild(el("th", {}, h));
  t.appendChild(head);
  for (const r of C.heads) {
    const tr = el("tr", { "data-layer": r.layer, "data-head": r.head, tabindex: 0 });
    for (const v of [r.rank, r.layer, r.head, r.distance.toFixed(D.encoding.digits)]) tr.appendChild(el("td", {}, String(v)));
    if (r.layer === CS.layer && r.head === CS.head) tr.className = "sel";
    tr.addEventListener("click", () => contrastSelect(r.layer, r.head));
    t.appendChild(tr);
  }
  box.appendChild(t);
  return box;
}
function contrastChangeMap() {
  const m = C.change, cs = Math.max(8, Math.min(28, Math.floor(360 / Math.max(m.rows, m.cols))));
  const names = (w, n) => Array.from({ length: n }, (_, k) => w + " " + k);
  const r = { mode: "linear", lo: 0, hi: m.fixed_max, diverging: false };
  const H = labelledCanvas(m, names("layer", m.rows), names("head", m.cols), r, P, cs, "change-map");
  const ctx = H.canvas.getContext("2d"); ctx.strokeStyle = "#ff3b30"; ctx.lineWidth = 2;
  ctx.strokeRect(H.x0 + CS.head * cs + 1, H.y0 + CS.layer * cs + 1, cs - 2, cs - 2);
  contrastHover(H, { rows: names("", m.rows).map(x => x.trim()), cols: names("", m.cols).map(x => x.trim()), hover: { row: "layer", col: "head", value: "change" }, index: false });
  H.canvas.addEventListener("click", e => {
    const j = Math.floor((e.offsetX - H.x0) / cs), i = Math.floor((e.offsetY - H.y0) / cs);
    if (i >= 0 && j >= 0 && i < m.rows && j < m.cols) contrastSelect(i, j);
  });
  CS.hits.change = H;
  const box = el("div", { class: "large" }); box.appendChild(H.canvas); box.appendChild(drawBar(r, m.rows * cs));
  return box;
}
// The head's A and B (one scale: the larger top of the two) and B - A (diverging, symmetric about 0).
function contrastMaps() {
  const h = C.maps[CS.layer][CS.head], row = el("div", { class: "large", id: "contrast-maps" });
  const side = Math.max(h.a.rows, h.b.rows, h.d.rows), cs = Math.max(3, Math.min(24, Math.floor((innerWidth - 520) / 3 / side)));
  const parts = [["a", h.a, C.tokens_a, P, { mode: "linear", lo: 0, hi: h.a.fixed_max, diverging: false }],
                 ["b", h.b, C.tokens_b, P, { mode: "linear", lo: 0, hi: h.b.fixed_max, diverging: false }],
                 ["d", h.d, C.tokens_d, DP, { mode: "linear", lo: -h.d.fixed_max, hi: h.d.fixed_max, diverging: true }]];
  for (const [k, m, tokens, pal, r] of parts) {
    const H = labelledCanvas(m, tokens, tokens, r, pal, cs, "map-" + k), p = el("div", { class: "panel keys" });
    contrastHover(H, { rows: tokens, cols: tokens, hover: D.hover, index: true });
    CS.hits[k] = H;
    p.appendChild(el("span", {}, m.name + " \u00b7 layer " + CS.layer + " \u00b7 head " + CS.head));
    const inner = el("div", { class: "large" }); inner.appendChild(H.canvas);
    if (k !== "a") inner.appendChild(drawBar(r, m.rows * cs, pal));
    p.appendChild(inner); row.appendChild(p);
  }
  return { row, h };
}
function contrastRender() {
  stage.textContent = ""; hit = null; hideTip(); CS.hits = {};
  controls.textContent = "";
  const L = C.maps.length, Hn = C.maps[0].length;
  select("layer", "group", C.maps.map((_, k) => [k, "layer " + k]), CS.layer, v => contrastSelect(+v, CS.head));
  select("head", "map", C.maps[0].map((_, k) => [k, "head " + k]), CS.head, v => contrastSelect(CS.layer, +v));
  chips.textContent = "";
  for (const s of C.sides) chips.appendChild(el("div", { class: "side" }, s));
  const top = el("div", { class: "large" }); top.appendChild(contrastHeadsTable()); top.appendChild(contrastChangeMap());
  stage.appendChild(top);
  const { row, h } = contrastMaps();
  stage.appendChild(row);
  const sel = stage.querySelector("#heads tr.sel"); if (sel) sel.scrollIntoView({ block: "nearest" });
  note.textContent = D.notes.filter(Boolean).join(" ");
  const span = m => "[" + m.lo.toPrecision(9) + ", " + m.hi.toPrecision(9) + "] (step " + m.step.toPrecision(3) + ", hover " + m.digits + " decimals)";
  precision.textContent = "Values: 16-bit steps over each map's exact range, the hover within half a unit in its last decimal plus half a step of the float32 value: change " +
    span(C.change) + ", A " + span(h.a) + ", B " + span(h.b) + ", B \u2212 A " + span(h.d) + ". Colours: " + cm.name + " from 0 to " +
    h.a.fixed_max.toPrecision(4) + " for A and B (the larger top of the two), " + C.diff_colormap.name + " from \u2212" + h.d.fixed_max.toPrecision(4) +
    " to " + h.d.fixed_max.toPrecision(4) + " for B \u2212 A (white 0); the change map " + cm.name + " from 0 to " + C.change.fixed_max.toPrecision(4) +
    "; grey cells are masked. " + L + " layers x " + Hn + " heads.";
}
// Keys: arrows up / down the heads by change, [ ] the layer, , . the head.
function contrastKey(e) {
  const L = C.maps.length, Hn = C.maps[0].length;
  if (e.key === "ArrowDown" || e.key === "ArrowUp") {
    const at = C.heads.findIndex(r => r.layer === CS.layer && r.head === CS.head), k = Math.max(0, Math.min(C.heads.length - 1, at + (e.key === "ArrowDown" ? 1 : -1)));
    e.preventDefault(); contrastSelect(C.heads[k].layer, C.heads[k].head);
  } else if (e.key === "[" || e.key === "]") contrastSelect((CS.layer + (e.key === "]" ? 1 : L - 1)) % L, CS.head);
  else if (e.key === "," || e.key === ".") contrastSelect(CS.layer, (CS.head + (e.key === "." ? 1 : Hn - 1)) % Hn);
}

// ---- keyboard ----
document.addEventListener("keydown", e => {
  const t = e.target.tagName;
  if (t === "SELECT" || t === "INPUT" || e.ctrlKey || e.metaKey || e.altKey) return;
  if (D.contrast) { contrastKey(e); return; }
  const maps = group().maps, arrows = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
  if (arrows[e.key] && hit) {
    const [di, dj] = arrows[e.key];
    S.ci = Math.max(0, Math.min(hit.map.rows - 1, S.ci + di)); S.cj = Math.max(0, Math.min(hit.map.cols - 1, S.cj + dj));
    e.preventDefault(); cursorTip(); return;
  }
  if (arrows[e.key] && S.map < 0 && !D.query_mode) {
    const panels = stage.querySelectorAll(".panel"), d = arrows[e.key][1] || arrows[e.key][0];
    S.focus = Math.max(0, Math.min(panels.length - 1, S.focus + d)); panels[S.focus].focus(); e.preventDefault(); return;
  }
  if (e.key === "Escape" && maps.length > 1 && !D.query_mode) { S.map = -1; render(); const p = stage.querySelectorAll(".panel")[S.focus]; if (p) p.focus(); return; }
  if (e.key === "[" || e.key === "]") { S.group = (S.group + (e.key === "]" ? 1 : D.groups.length - 1)) % D.groups.length; render(); return; }
  if ((e.key === "," || e.key === ".") && maps.length > 1 && !D.query_mode) { S.map = ((S.map < 0 ? 0 : S.map) + (e.key === "." ? 1 : maps.length - 1)) % maps.length; render(); return; }
  if (e.key === "s") { S.mode = { linear: "log", log: "row", row: "linear" }[S.mode]; render(); return; }
  if (e.key === "i" && D.token_axes) { S.ignore = !S.ignore; render(); }
});

// For scripts and tests: where a cell of the large map is, in the window's coordinates.
window.hsPage = {
  state: S,
  // which: the contrast page's map ("a", "b", "d" for B - A, "change"); else the large map.
  cellCentre(i, j, which) { const H = which ? CS.hits[which] : hit; if (!H) return null; const b = H.canvas.getBoundingClientRect(); return { x: b.left + H.x0 + (j + 0.5) * H.cs, y: b.top + H.y0 + (i + 0.5) * H.cs }; },
  barCentre(k, j) { const c = stage.querySelectorAll(".panel canvas")[k]; if (!c) return null; const b = c.getBoundingClientRect(), cs = b.width / group().maps[k].cols; return { x: b.left + (j + 0.5) * cs, y: b.bottom - 1 }; },
  cellPixel(i, j, which) {  // copied out through a 1 x 1 canvas made for reading
    const H = which ? CS.hits[which] : hit;
    if (!H) return null;
    const one = document.createElement("canvas"); one.width = one.height = 1;
    const ctx = one.getContext("2d", { willReadFrequently: true });
    ctx.drawImage(H.canvas, H.x0 + Math.floor((j + 0.5) * H.cs), H.y0 + Math.floor((i + 0.5) * H.cs), 1, 1, 0, 0, 1, 1);
    const d = ctx.getImageData(0, 0, 1, 1).data; return [d[0], d[1], d[2]];
  },
  open(g, m) { S.group = g; S.map = m; render(); },
  setQueries(q) { S.queries = q.slice(); render(); },
  selectHead(l, h) { CS.layer = l; CS.head = h; render(); },  // the contrast page
  contrast: () => D.contrast && { layer: CS.layer, head: CS.head },
};
render();
})();
)HSPAGE";

}  // namespace hs
