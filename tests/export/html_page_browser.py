#!/usr/bin/python3
"""The interactive HTML page of every view, in a real browser (issue 53).

`export --view V --out page.html` for heads, head, query, difference, average, rollout, roles and
ablation on stories260K; each page is opened from file:// in Debian's chromium (headless) driven by
puppeteer-core (html_page_browser.js), which is installed from npm into the build tree when missing
(pinned below). For every page:
- no console errors or warnings, no page errors, and no request but the page itself (the network log);
- hovered cells' tooltips equal the .npy export's values to the precision the page states: half a
  unit in the last decimal shown plus half a 16-bit step of the map's range (query bars: a half step
  per summed row);
- masked cells (causal: key after query) say so;
- for the views drawn as one map (a head opened from the grid, head, average, rollout) the canvas
  colour at each hovered cell equals the PNG export's at that cell within kColourTolerance per channel
  (the cell's place in the PNG from the SVG export's map box); after switching the page to the log
  scale, the PNG exported with --color-scale log;
- the table views (difference, roles, ablation): the canvas colour of each hovered cell equals the PNG
  export's within kColourTolerance, sampled a fifth of the way into the cell (the figure writes its
  number at the centre), the difference matrix off its diagonal (drawn blank in the figure);
- clicking a head in the grid opens it; the arrow keys move the cursor, ] the layer, s the scale,
  Escape goes back to the grid; a query chip toggles the query rows.
Also: the page of 30+ tokens and every layer is under 1 MB; a page past the 8 MB limit is refused,
naming --large-page, which writes it; the provenance in the page, the PNG (iTXt), SVG (<metadata>),
PDF (Subject) and .json records the model and tokenizer files' SHA-256 as hashlib computes them;
.npy and .csv stay plain; views without a page say which views have one.

Usage: html_page_browser.py PATH/TO/headscope-cli MODELS_DIR BUILD_DIR   (exit 77: no chromium/node)
"""
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from cli_checks import Checks  # noqa: E402

T = Checks()
check, ok, error = T.check, T.ok, T.error
HERE = os.path.dirname(os.path.abspath(__file__))
PUPPETEER = "puppeteer-core@24.8.2"  # drives Debian 12's chromium over CDP; needs node >= 18
kColourTolerance = 6  # per channel, of 255: a colormap table step or two (float32 vs float64 t)
SENTENCE = ("Once upon a time, there was a little girl named Lily. She loved to play with her big red ball "
            "in the park with her dog.")
WORK = None


def out(name):
    return os.path.join(WORK, name)


def export(args, name):
    path = out(name)
    ok(f"export {' '.join(args)} -> {name}", ["export"] + args + ["--out", path])
    return path


def compare(args, name):
    path = out(name)
    ok(f"compare {' '.join(args)} -> {name}", ["compare"] + args + ["--out", path])
    return path


def read_png(path):
    """[H, W, 3] uint8 pixels (Pillow) and the PNG's chunks as (type, data)."""
    data = open(path, "rb").read()
    pos, chunks = 8, []
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunks.append((kind, data[pos + 8:pos + 8 + n]))
        pos += 12 + n
    return np.asarray(Image.open(path).convert("RGB")), chunks


def png_cells(args, name, cells, n, cols=None, at=0.5, box=0, command="export"):
    """The PNG export's colour in each cell of an n x cols map (cols: n), placed by the SVG export's map
    box (`box`: which of the figure's maps, in drawing order; -1 the last), `at` of the way across and
    down the cell (0.5: its centre; a table writes its number there)."""
    write = export if command == "export" else compare
    svg = open(write(args, name + ".svg"), encoding="utf-8").read()
    png, _ = read_png(write(args, name + ".png"))
    width_pt = float(re.search(r'<svg[^>]*width="([0-9.]+)pt"', svg).group(1))
    # the maps' image boxes (colour bars, narrow, left out), each moved by its path's translation if any
    boxes = []
    for m in re.finditer(r'fill:url\(#pattern\d+\)[^"]*"\s+d="M ([0-9.]+) ([0-9.]+) L ([0-9.]+) [0-9.]+ L [0-9.]+ ([0-9.]+)[^"]*"'
                         r'(?:\s+transform="matrix\(1,0,0,1,([-0-9.]+),([-0-9.]+)\)")?', svg):
        x0, y0, x1, y1 = map(float, m.groups()[:4])
        tx, ty = (float(v) if v else 0.0 for v in m.groups()[4:])
        if x1 - x0 > 0.5 * (y1 - y0):
            boxes.append((x0 + tx, y0 + ty, x1 + tx, y1 + ty))
    x0, y0, x1, y1 = boxes[box]
    k = png.shape[1] / width_pt
    rgb = []
    for i, j in cells:
        x = (x0 + (j + at) * (x1 - x0) / (cols or n)) * k
        y = (y0 + (i + at) * (y1 - y0) / n) * k
        rgb.append([int(v) for v in png[int(y), int(x)]])
    return rgb


def tolerance(tip_value, step, rows=1):
    digits = len(tip_value.split(".")[1]) if "." in tip_value else 0
    return 0.5 * 10.0 ** -digits + rows * step / 2 + 1e-7


def number(text):
    m = re.search(r"-?[0-9]+\.[0-9]+", text)
    return float(m.group(0)) if m else float("nan")


def check_tips(page, values, label, rows=1, step=None):
    """Tooltips against the .npy: values[i, j] (cells) or values[k, j] (bars, each a sum of `rows` cells of
    maps whose range is at most `step` * 65535)."""
    if step is None:
        step = (float(np.nanmax(values)) - float(np.nanmin(values))) / 65535
    for tip in page["tips"]:
        where = tip.get("cell") or tip.get("bar")
        want = float(values[where[0], where[1]])
        got = number(tip["value"])
        if not check(tip["shown"], f"{label} {where}: no tooltip after hovering"):
            continue
        check(abs(got - want) <= tolerance(tip["value"], step, rows),
              f"{label} cell {where}: tooltip {tip['value']!r}, .npy {want:.9g} (error {abs(got - want):.3g}, "
              f"allowed {tolerance(tip['value'], step, rows):.3g})")
        if "cell" in tip and label.startswith("attention"):
            check(("masked" in tip["value"]) == (where[1] > where[0]),
                  f"{label} cell {where}: tooltip {tip['value']!r} should say masked exactly for key > query (causal)")


def check_pixels(got, want, label):
    for g, w in zip(got, want):
        diff = max(abs(a - b) for a, b in zip(g["rgb"], w))
        check(diff <= kColourTolerance, f"{label} cell {g['cell']}: page colour {g['rgb']}, PNG {w} (off by {diff} > "
                                        f"{kColourTolerance})")


def puppeteer_dir(build):
    mod = os.path.join(build, "npm")
    if not os.path.isdir(os.path.join(mod, "node_modules", "puppeteer-core")):
        os.makedirs(mod, exist_ok=True)
        p = subprocess.run(["npm", "install", "--prefix", mod, "--no-audit", "--no-fund", "--no-save", PUPPETEER],
                           capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            raise SystemExit(f"FAIL: npm install {PUPPETEER} (the browser test's driver, from the npm registry): exit "
                             f"{p.returncode}: {p.stderr[-1500:]}")
    return mod


def provenance_checks(models, margs, page_prov):
    """The model and tokenizer files' SHA-256 as hashlib computes them, in the page and the figures."""
    files = {f["role"]: f for f in page_prov["files"]}
    for role, path in (("model", os.path.join(models, "stories260K", "stories260K.bin")),
                       ("tokenizer", os.path.join(models, "stories260K", "tok512.bin"))):
        f = files.get(role, {})
        check(f.get("sha256") == hashlib.sha256(open(path, "rb").read()).hexdigest(),
              f"page provenance: {role} sha256 {f.get('sha256')} is not hashlib's of {path}")
        check(f.get("bytes") == os.path.getsize(path) and f.get("name") == os.path.basename(path)
              and f.get("sha256_of") == "the whole file", f"page provenance: {role} entry {f}")
    check(page_prov["input"]["sentence"] == SENTENCE, f"page provenance: sentence {page_prov['input']}")
    check(bool(page_prov.get("headscope")), "page provenance: no headscope version")
    args = margs + ["--view", "head", "--layer", "1", "--head", "2"]
    _, chunks = read_png(export(args, "prov.png"))
    text = [b for k, b in chunks if k == b"iTXt" and b.startswith(b"headscope-provenance\0")]
    if check(len(text) == 1, "PNG: no iTXt headscope-provenance chunk"):
        p = json.loads(text[0].split(b"\0", 5)[5].decode("utf-8"))
        check(p["files"] == page_prov["files"] and p["view"]["head"] == 2, f"PNG provenance: {p}")
    svg = open(export(args, "prov.svg"), encoding="utf-8").read()
    check('<metadata id="headscope-provenance">' in svg and files["model"]["sha256"] in svg, "SVG: no provenance metadata")
    pdf = subprocess.run(["pdfinfo", export(args, "prov.pdf")], capture_output=True, text=True).stdout
    check(files["model"]["sha256"] in pdf, f"PDF: Subject has no model SHA-256: {pdf[:400]}")
    j = json.load(open(export(args, "prov.json"), encoding="utf-8"))
    check(j.get("provenance", {}).get("files") == page_prov["files"], "JSON: no provenance object")
    m = json.loads(ok("maps --json", ["maps"] + margs + ["--json", "-"]))
    check(m.get("provenance") == j.get("provenance") and "view" not in m["provenance"],
          "maps --json: its provenance is not the .json export's (the run's, without the view)")
    check(open(export(args, "prov.npy"), "rb").read(6) == b"\x93NUMPY", ".npy is not plain")
    check("provenance" not in open(export(args, "prov.csv"), encoding="utf-8").read(), ".csv is not plain")


def size_checks(margs):
    page = export(margs + ["--view", "heads"], "size_heads.html")
    check(os.path.getsize(page) < 1 << 20, f"heads page of every layer: {os.path.getsize(page)} bytes, not < 1 MB")
    big = ["--sentence", " ".join(["w%d" % (k % 50) for k in range(260)]), "--d-model", "64", "--heads", "64"]
    error("a page past the limit", ["export"] + big + ["--view", "heads", "--out", out("big.html")], ["8 MB", "--large-page"])
    check(not os.path.exists(out("big.html")), "a refused page left a file")
    ok("--large-page", ["export"] + big + ["--view", "heads", "--large-page", "--out", out("big.html")])
    check(os.path.getsize(out("big.html")) > 8 << 20, "--large-page did not write the large page")
    error("a view without a page", ["export"] + margs + ["--view", "width", "--out", out("w.html")], ["heads", "ablation"])


SENTENCE_B = SENTENCE.replace("girl named Lily", "boy named Tom")


def contrast_plan(models, margs, pages):
    """The contrast page in both modes: a minimal pair (SENTENCE against SENTENCE_B, different token
    counts) on stories260K, and stories260K at F32 against Q4_0 (GGUF files written here by
    tests/core/formats/make_gguf_test_files.py) on SENTENCE. Each page's numbers come from the same
    compare's .npy (the change, [layers, heads]) and .json (both runs' maps, the alignment)."""
    sys.path.insert(0, os.path.join(HERE, "..", "core", "formats"))
    import make_gguf_test_files as gguf_files
    folder = out("gguf")
    os.makedirs(folder, exist_ok=True)
    gguf_files.write_tok512(folder, models)
    gguf_files.write_stories(folder, models)
    plans = {}
    for mode, args in (("sentences", margs + ["--contrast", SENTENCE_B]),
                       ("models", ["--model", os.path.join(folder, "stories260K_f32.gguf"), "--model-b",
                                   os.path.join(folder, "stories260K_q4_0.gguf"), "--sentence", SENTENCE])):
        name = "contrast_" + mode
        url = "file://" + compare(args, name + ".html")
        change = np.load(compare(args, name + ".npy"))
        j = json.load(open(compare(args, name + ".json"), encoding="utf-8"))
        na, nb = len(j["a"]["tokens"]), len(j["b"]["tokens"])
        paired = [(s["a"], s["b"]) for s in j["alignment"] if s["op"] in ("same", "replaced")]
        sel = (1, 2)
        cells = {"a": [(0, 0), (3, 1), (na - 1, 0), (na - 1, na - 1), (9, 4), (2, 7)],
                 "b": [(0, 0), (nb - 1, 1), (nb - 1, nb - 1), (7, 5), (2, 7)],
                 "d": [(0, 0), (len(paired) - 1, 2), (len(paired) - 1, len(paired) - 1), (12, 11), (9, 4), (15, 3), (2, 7)],
                 "change": [(0, 0), (1, 2), (4, 7), (3, 5)]}
        shot = os.environ.get("HS_HTML_SHOTS")
        pages.append(dict(name=name, url=url, contrast=dict(row=[2, 5], change_click=[3, 6], select=list(sel), cells=cells,
                                                            screenshot=shot and os.path.join(shot, name + ".png"))))
        plans[name] = dict(args=args + ["--layer", str(sel[0]), "--head", str(sel[1])], change=change, json=j,
                           paired=paired, sel=sel, na=na, nb=nb)
    return plans


def contrast_checks(seen, plans):
    """The contrast pages against their compare's .npy, .json and PNG figure."""
    for name, c in plans.items():
        s, j = seen[name], c["json"]
        ch = s["checks"]
        change, (l, h) = c["change"], c["sel"]
        ranked = sorted(((lh // change.shape[1], lh % change.shape[1]) for lh in range(change.size)),
                        key=lambda x: (-change[x], x))
        check([tuple(x) for x in ch["ranked"]] == ranked, f"{name}: heads table order {ch['ranked'][:6]}..., by the .npy "
                                                          f"{ranked[:6]}...")
        first = ch["first"]
        check((first["layer"], first["head"]) == ranked[0], f"{name}: first selected {first}, the most changed is {ranked[0]}")
        k = ranked.index((2, 5))
        want = {"clicked_row": (2, 5), "after_down": ranked[k + 1], "after_bracket": ((ranked[k + 1][0] + 1) % change.shape[0], ranked[k + 1][1]),
                "after_dot": ((ranked[k + 1][0] + 1) % change.shape[0], (ranked[k + 1][1] + 1) % change.shape[1]), "clicked_change": (3, 6)}
        for key, w in want.items():
            check((ch[key]["layer"], ch[key]["head"]) == w, f"{name}: {key} selected {ch[key]}, expected layer {w[0]} head {w[1]}")
        A = np.array(j["attention_a"], dtype=np.float64)[l, h]
        B = np.array(j["attention_b"], dtype=np.float64)[l, h]
        P = c["paired"]
        Dm = np.array([[B[bp, bq] - A[ap, aq] for aq, bq in P] for ap, bp in P])  # B - A over the paired steps
        check(A.shape == (c["na"], c["na"]) and B.shape == (c["nb"], c["nb"]), f"{name}: maps {A.shape} {B.shape}")
        for which, values, label in (("a", A, "attention A"), ("b", B, "attention B"), ("d", Dm, "attention B - A"),
                                     ("change", change, "change")):
            sub = dict(s, tips=[t for t in s["tips"] if t.get("which") == which])
            check(len(sub["tips"]) > 0, f"{name}: no {which} tooltips")
            check_tips(sub, values, f"{label} ({name}, layer {l}, head {h})")
        px = {w: [p for p in s["pixels"] if p["which"] == w] for w in ("a", "d")}
        check_pixels(px["d"], png_cells(c["args"], name + "_d", [tuple(p["cell"]) for p in px["d"]], len(P), box=-1,
                                        command="compare"), f"{name}: B - A")
        check_pixels(px["a"], png_cells(c["args"], name + "_a", [tuple(p["cell"]) for p in px["a"]], c["na"], box=-3,
                                        command="compare"), f"{name}: A")
        for side, prov in (("A", s["provenance"]), ("B", s["provenance_b"])):
            model = [f for f in prov.get("files", []) if f.get("role") == "model"]
            path = c["args"][c["args"].index("--model-b" if side == "B" and name.endswith("models") else "--model") + 1]
            check(len(model) == 1 and model[0].get("sha256") == hashlib.sha256(open(path, "rb").read()).hexdigest(),
                  f"{name}: provenance of {side} {model}, expected the SHA-256 of {path}")


def main():
    global WORK
    cli, models, build = sys.argv[1], sys.argv[2], sys.argv[3]
    T.cli = cli
    chromium = shutil.which("chromium")
    if not chromium or not shutil.which("node") or not shutil.which("npm"):
        print("skip: chromium, node or npm missing (tests/setup_debian.sh installs them)")
        return 77
    st = os.path.join(models, "stories260K")
    margs = ["--model", os.path.join(st, "stories260K.bin"), "--tokenizer", os.path.join(st, "tok512.bin"),
             "--sentence", SENTENCE]
    WORK = tempfile.mkdtemp(prefix="hs-html-")
    try:
        n = len(json.loads(ok("tokens", ["maps"] + margs + ["--json", "-"]))["tokens"])
        check(n >= 30, f"the sentence has {n} tokens; the size check wants 30 or more")
        cells = [(0, 0), (3, 1), (5, 5), (n - 1, 0), (n - 1, n - 1), (2, 7), (n // 2, n // 3), (9, 4)]
        pages, npys = [], {}

        def page(name, args, **plan):
            url = "file://" + export(margs + args, name + ".html")
            npys[name] = np.load(export(margs + args, name + ".npy"))
            pages.append(dict(name=name, url=url, **plan))

        page("heads", ["--view", "heads"], click_panel=2, cells=cells, keys=True)
        page("head", ["--view", "head", "--layer", "2", "--head", "3"], cells=cells, scale="log")
        page("query", ["--view", "query", "--layer", "1", "--query", "3,7"], queries=[3, 7], toggle_chip=5,
             bars=[(k, j) for k in (0, 5) for j in (0, 3, 6)])
        page("difference", ["--view", "difference", "--layer", "1"], cells=[(0, 1), (2, 5), (7, 3), (4, 4)])
        page("average", ["--view", "average", "--layer", "1"], cells=cells)
        page("rollout", ["--view", "rollout"], cells=cells)
        page("roles", ["--view", "roles"], cells=[(0, 0), (1, 3), (4, 7), (2, 2)])
        page("ablation", ["--view", "ablation"], cells=[(0, 0), (1, 3), (4, 7), (2, 2)])
        contrast = contrast_plan(models, margs, pages)
        plan = out("plan.json")
        json.dump({"chromium": chromium, "profile": out("profile"), "pages": pages}, open(plan, "w"))
        p = subprocess.run(["node", os.path.join(HERE, "html_page_browser.js"), puppeteer_dir(build), plan],
                           capture_output=True, text=True, timeout=300)
        if not check(p.returncode == 0, f"browser driver: exit {p.returncode}: {p.stderr[-2000:]}"):
            return T.summary()
        seen = {s["name"]: s for s in json.loads(p.stdout)}
        if os.environ.get("HS_HTML_DUMP"):
            json.dump(seen, open(os.environ["HS_HTML_DUMP"], "w"), indent=1)
        for name, s in seen.items():
            check(not s["console_errors"] and not s["page_errors"], f"{name}: console {s['console_errors']}, errors {s['page_errors']}")
            check(not s["requests"], f"{name}: the page asked for {s['requests']}")
        h = seen["heads"]
        check(h["checks"].get("opened") == {"map": 2, "large": True}, f"heads: clicking head 2 gave {h['checks'].get('opened')}")
        check_tips(h, npys["heads"][0, 2], "attention heads (layer 0, head 2)")
        check_pixels(h["pixels"], png_cells(margs + ["--layer", "0", "--head", "2"], "heads_png", cells, n), "heads: head 2")
        last = cells[-1]
        c = h["checks"]
        check((c["after_right"]["i"], c["after_right"]["j"]) == (last[0], last[1] + 1), f"ArrowRight: {c['after_right']}")
        check((c["after_down"]["i"], c["after_down"]["j"]) == (last[0] + 1, last[1] + 1), f"ArrowDown: {c['after_down']}")
        check(c["after_bracket"] == 1 and c["after_s"] == "log" and c["after_escape"] == 8, f"keys: {c}")
        hd = seen["head"]
        check_tips(hd, npys["head"], "attention head (layer 2, head 3)")
        hargs = margs + ["--view", "head", "--layer", "2", "--head", "3"]
        check_pixels(hd["pixels"], png_cells(hargs, "head_png", cells, n), "head")
        check_pixels(hd["scaled_pixels"], png_cells(hargs + ["--color-scale", "log"], "head_log", cells, n), "head, log scale")
        q = seen["query"]
        check(q["checks"].get("chip_queries") == [3, 7], f"query: chip toggled twice gave {q['checks'].get('chip_queries')}")
        check_tips(q, npys["query"][0], "query rows 3+7 (layer 1)", rows=2, step=1 / 65535)  # weights: [0, 1]
        check_tips(seen["difference"], npys["difference"], "head distance (layer 1)")
        check_tips(seen["average"], npys["average"][0], "attention average (layer 1)")
        check_pixels(seen["average"]["pixels"], png_cells(margs + ["--view", "average", "--layer", "1"], "avg_png", cells, n), "average")
        check_tips(seen["rollout"], npys["rollout"], "rollout")
        check_pixels(seen["rollout"]["pixels"], png_cells(margs + ["--view", "rollout"], "roll_png", cells, n), "rollout")
        check_tips(seen["roles"], npys["roles"][0], "roles (previous)")
        check_tips(seen["ablation"], npys["ablation"], "ablation")
        # The table views' colours against their PNG figures, sampled a fifth of the way into each
        # cell (the figure writes the cell's number at its centre); the difference matrix off its
        # diagonal (the figure draws a head against itself blank).
        diff = seen["difference"]
        off = [(i, px) for i, px in enumerate(diff["pixels"]) if px["cell"][0] != px["cell"][1]]
        h_n = npys["difference"].shape[0]
        check_pixels([px for _, px in off], png_cells(margs + ["--view", "difference", "--layer", "1"], "diff_png",
                                                      [tuple(px["cell"]) for _, px in off], h_n, at=0.2), "difference")
        for view, extra, values in (("roles", ["--role", "previous"], npys["roles"][0]), ("ablation", [], npys["ablation"])):
            px = seen[view]["pixels"]
            check_pixels(px, png_cells(margs + ["--view", view] + extra, view + "_png", [tuple(p["cell"]) for p in px],
                                       values.shape[0], values.shape[1], at=0.2), view)
        contrast_checks(seen, contrast)
        provenance_checks(models, margs, h["provenance"])
        size_checks(margs)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    return T.summary()


if __name__ == "__main__":
    sys.exit(main())
