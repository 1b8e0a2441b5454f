// Drives Debian's chromium through puppeteer-core over the pages of a plan (written by
// html_page_browser.py) and prints what it saw as JSON: console errors, page errors, every request
// other than the page itself, the tooltips read back after hovering cells, canvas pixels, and the
// results of the clicks and keys. The Python side compares them with the .npy and PNG exports.
"use strict";
const fs = require("fs");
const [moduleDir, planFile] = process.argv.slice(2);
const puppeteer = require(require.resolve("puppeteer-core", { paths: [moduleDir] }));

async function tipText(page) {
  return page.$eval("#tip", t => ({ shown: t.style.display === "block", text: t.textContent,
                                    value: (t.querySelector(".v") || {}).textContent || "",
                                    i: +((t.querySelector(".v") || { dataset: {} }).dataset.i ?? -1),
                                    j: +((t.querySelector(".v") || { dataset: {} }).dataset.j ?? -1) }));
}

async function hoverAt(page, where) {
  if (!where) throw new Error("no such cell on the page");
  await page.mouse.move(where.x, where.y);
  return tipText(page);
}

// The contrast page: a click on a row of the heads table, the keys, a click on the change map; then
// the plan's head selected and its maps' cells hovered (which: "a", "b", "d" for B - A, "change").
async function contrastChecks(page, p, seen) {
  const c = p.contrast, now = () => page.evaluate(() => window.hsPage.contrast());
  seen.checks.first = await now();
  await page.click(`#heads tr[data-layer="${c.row[0]}"][data-head="${c.row[1]}"]`);
  seen.checks.clicked_row = await now();
  await page.keyboard.press("ArrowDown");
  seen.checks.after_down = await now();
  await page.keyboard.press("]");
  seen.checks.after_bracket = await now();
  await page.keyboard.press(".");
  seen.checks.after_dot = await now();
  const at = await page.evaluate((i, j) => window.hsPage.cellCentre(i, j, "change"), c.change_click[0], c.change_click[1]);
  await page.mouse.click(at.x, at.y);
  seen.checks.clicked_change = await now();
  seen.checks.ranked = await page.$$eval("#heads tr[data-layer]", rows => rows.map(r => [+r.dataset.layer, +r.dataset.head]));
  await page.evaluate((l, h) => window.hsPage.selectHead(l, h), c.select[0], c.select[1]);
  for (const which of Object.keys(c.cells)) {
    for (const [i, j] of c.cells[which]) {
      const where = await page.evaluate((a, b, w) => window.hsPage.cellCentre(a, b, w), i, j, which);
      seen.tips.push({ which, cell: [i, j], ...(await hoverAt(page, where)) });
      seen.pixels.push({ which, cell: [i, j], rgb: await page.evaluate((a, b, w) => window.hsPage.cellPixel(a, b, w), i, j, which) });
    }
  }
  if (c.screenshot) await page.screenshot({ path: c.screenshot, fullPage: true });
}

async function runPage(browser, p) {
  const page = await browser.newPage();
  await page.setViewport({ width: 1280, height: 900 });
  const seen = { name: p.name, console_errors: [], page_errors: [], requests: [], tips: [], pixels: [], checks: {} };
  page.on("console", m => { if (m.type() === "error" || m.type() === "warn") seen.console_errors.push(m.text()); });
  page.on("pageerror", e => seen.page_errors.push(String(e)));
  page.on("request", r => { if (r.url() !== p.url) seen.requests.push(r.url()); });
  await page.goto(p.url, { waitUntil: "load" });
  if (p.open) await page.evaluate((g, m) => window.hsPage.open(g, m), p.open[0], p.open[1]);
  if (p.click_panel !== undefined) {
    await page.click(`.panel[data-map="${p.click_panel}"]`);
    seen.checks.opened = await page.evaluate(() => ({ map: window.hsPage.state.map, large: !!document.getElementById("map") }));
  }
  if (p.queries) {
    await page.evaluate(q => window.hsPage.setQueries(q), p.queries);
    if (p.toggle_chip !== undefined) {
      await page.click(`.chip[data-k="${p.toggle_chip}"]`);
      await page.click(`.chip[data-k="${p.toggle_chip}"]`);  // on, then off again: the plan's rows
      seen.checks.chip_queries = await page.evaluate(() => window.hsPage.state.queries);
    }
  }
  if (p.contrast) await contrastChecks(page, p, seen);
  for (const [i, j] of p.cells || []) {
    const where = await page.evaluate((a, b) => window.hsPage.cellCentre(a, b), i, j);
    seen.tips.push({ cell: [i, j], ...(await hoverAt(page, where)) });
    seen.pixels.push({ cell: [i, j], rgb: await page.evaluate((a, b) => window.hsPage.cellPixel(a, b), i, j) });
  }
  for (const [k, j] of p.bars || []) {
    const where = await page.evaluate((a, b) => window.hsPage.barCentre(a, b), k, j);
    seen.tips.push({ bar: [k, j], ...(await hoverAt(page, where)) });
  }
  if (p.keys) {  // after the last hover: the arrow moves the cursor, ] the layer, Escape the grid
    await page.keyboard.press("ArrowRight");
    seen.checks.after_right = await tipText(page);
    await page.keyboard.press("ArrowDown");
    seen.checks.after_down = await tipText(page);
    await page.keyboard.press("]");
    seen.checks.after_bracket = await page.evaluate(() => window.hsPage.state.group);
    await page.keyboard.press("s");
    seen.checks.after_s = await page.evaluate(() => window.hsPage.state.mode);
    await page.keyboard.press("Escape");
    seen.checks.after_escape = await page.evaluate(() => document.querySelectorAll("#stage .panel").length);
  }
  if (p.scale) {
    await page.select("#scale", p.scale);
    seen.scaled_pixels = [];
    for (const [i, j] of p.cells || []) seen.scaled_pixels.push({ cell: [i, j], rgb: await page.evaluate((a, b) => window.hsPage.cellPixel(a, b), i, j) });
  }
  seen.title = await page.title();
  seen.provenance = await page.evaluate(() => JSON.parse(document.getElementById("hs-data").textContent).provenance);
  seen.provenance_b = await page.evaluate(() => (JSON.parse(document.getElementById("hs-data").textContent).contrast || {}).provenance_b);
  await page.close();
  return seen;
}

(async () => {
  const plan = JSON.parse(fs.readFileSync(planFile, "utf8"));
  const args = ["--headless=new", "--disable-gpu", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--use-mock-keychain"];
  if (process.getuid && process.getuid() === 0) args.push("--no-sandbox");
  const browser = await puppeteer.launch({ executablePath: plan.chromium, args, userDataDir: plan.profile });
  const out = [];
  try {
    for (const p of plan.pages) out.push(await runPage(browser, p));
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out));
})().catch(e => { console.error("browser driver: " + (e && e.stack || e)); process.exit(3); });
