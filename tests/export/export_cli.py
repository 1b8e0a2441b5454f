#!/usr/bin/python3
"""headscope-cli export against docs/cli-contract.md and issue 4, with no display:
PNG/SVG/PDF figures (SVG parsed as XML with the token labels as <text>, PDF rendered by
pdftoppm), NPY/CSV/JSON equal to `maps --json` within float32, batch --out-dir, and bad
input: exit 1 or 2, one "error:" line naming the problem, no file left behind.

Usage: export_cli.py PATH/TO/headscope-cli   (Debian's /usr/bin/python3: needs numpy)
"""
import csv
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import math
import re
import xml.etree.ElementTree as ET
import zlib

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from cli_checks import Checks, headless_env  # noqa: E402

CLI = None
T = Checks(timeout=120, env=headless_env())
check, run = T.check, T.run
WORK = None
SENTENCE = "the keys that Priya left on the table were not hers"
SVG = "{http://www.w3.org/2000/svg}"


def export(args, name):
    out = os.path.join(WORK, name)
    code, _, err = run(["export"] + args + ["--out", out])
    check(code == 0, f"export {args} {name}: exit {code}: {err.strip()}")
    return out


def maps(args):
    code, out, err = run(["maps"] + args + ["--json", "-"])
    assert code == 0, err
    return json.loads(out)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", head[16:24])


def svg_texts(path):
    root = ET.parse(path).getroot()  # raises on malformed XML
    return [t.text or "" for t in root.iter(SVG + "text")], root


def test_figures():
    ref = maps(["--sentence", SENTENCE])
    tokens = ref["tokens"]
    png = export(["--sentence", SENTENCE, "--head", "2"], "head2.png")
    w, h = png_size(png)
    check(600 <= w <= 2400 and 500 <= h <= 2400, f"single-head PNG has a sensible size: {w}x{h}")
    w2, h2 = png_size(export(["--sentence", SENTENCE, "--head", "2", "--figure-scale", "2"], "head2x2.png"))
    check(abs(w2 - 2 * w) <= 2 and abs(h2 - 2 * h) <= 2, f"--figure-scale 2 doubles the PNG: {w}x{h} -> {w2}x{h2}")
    check(png_size(export(["--sentence", SENTENCE, "--size", "640x480"], "sized.png")) == (640, 480), "--size 640x480")
    long_sentence = " ".join(["word%d" % i for i in range(60)])
    wl, hl = png_size(export(["--sentence", long_sentence, "--head", "0"], "long.png"))
    check(wl > w and hl > h, f"the default size grows with T: T=11 {w}x{h}, T=60 {wl}x{hl}")

    for view, name in (("heatmap", "grid.svg"), ("difference", "diff.svg"), ("distance", "dist.svg"), ("sweep", "sweep.svg")):
        path = export(["--sentence", SENTENCE, "--view", view], name)
        try:
            texts, root = svg_texts(path)
        except ET.ParseError as e:
            check(False, f"{name} parses as XML: {e}")
            continue
        check(root.tag == SVG + "svg", f"{name}: root element is <svg>")
        title = root.find(SVG + "title")
        check(title is not None and "synthetic d_model 8" in title.text, f"{name}: <title> names the model")
        if view == "heatmap":
            missing = [t for t in tokens if t not in texts]
            check(not missing, f"grid.svg holds every token label as <text>: missing {missing}")
            check(all(f"head {i}" in texts for i in range(4)), "grid.svg names each head")
            check(any("layer 0" in t for t in texts), "grid.svg title names the layer")
        if view in ("difference", "distance"):
            # The diagonal (a head against itself) is blank with a dash; the pairs hold their numbers.
            numbers = [t for t in texts if len(t) == 5 and t[:2] == "0." and t[2:].isdigit()]
            check("head 3" in texts and "\u2013" in texts and len(numbers) == 12,
                  f"{name} has head labels, numbers in the 12 off-diagonal cells and a dash on the diagonal ({numbers})")
            check(any("head distance" in t for t in texts), f"{name}: the title names the head distance")
            check(not any("head difference" in t for t in texts), f"{name}: one measure on screen, not the cell mean")
    non_ascii = "Grüße aus Köln, naïve Москва Ελλάδα 東京"
    texts, _ = svg_texts(export(["--sentence", non_ascii, "--head", "0"], "nonascii.svg"))
    for word in ("Grüße", "Köln", "naïve", "Москва", "Ελλάδα", "東京"):
        check(word in texts, f"nonascii.svg keeps '{word}' intact as text")
    if shutil.which("pdftotext"):
        pdf = export(["--sentence", non_ascii, "--head", "0"], "nonascii.pdf")
        words = subprocess.run(["pdftotext", pdf, "-"], capture_output=True).stdout.decode("utf-8", "replace").split()
        for word in ("Grüße", "Москва", "Ελλάδα"):
            check(word in words, f"nonascii.pdf keeps '{word}' as text (pdftotext)")
    png = export(["--sentence", non_ascii, "--head", "0"], "nonascii.png")
    check(png_size(png)[0] > 0, "non-ASCII PNG renders")

    for view in ("heatmap", "difference", "distance", "sweep"):
        pdf = export(["--sentence", SENTENCE, "--view", view, "--colormap", "magma"], view + ".pdf")
        with open(pdf, "rb") as f:
            data = f.read()
        check(data.startswith(b"%PDF-") and b"%%EOF" in data[-32:], f"{view}.pdf is a PDF")
        if shutil.which("pdftoppm"):
            prefix = os.path.join(WORK, view + "_page")
            p = subprocess.run(["pdftoppm", "-png", "-r", "50", "-singlefile", pdf, prefix], capture_output=True)
            check(p.returncode == 0 and os.path.getsize(prefix + ".png") > 1000, f"pdftoppm renders {view}.pdf")
        if shutil.which("pdftotext") and view == "heatmap":
            p = subprocess.run(["pdftotext", pdf, "-"], capture_output=True)
            words = p.stdout.decode("utf-8", "replace").split()
            check("Priya" in words and "table" in words, "heatmap.pdf keeps token labels as text (pdftotext)")


def test_data():
    sentence = 'he said "no", then left'  # tokens with a quote and a comma
    ref = maps(["--sentence", sentence, "--heads", "2"])
    tokens = ref["tokens"]
    att = np.array(ref["attention"], dtype=np.float32)  # [L, H, T, T]
    T = len(tokens)

    a = np.load(export(["--sentence", sentence, "--heads", "2", "--head", "1"], "h1.npy"))
    check(a.dtype == np.float32 and a.shape == (T, T), f"--head npy is float32 [T, T]: {a.dtype} {a.shape}")
    check(a.shape == (T, T) and np.array_equal(a, att[0, 1]), "--head npy equals maps' attention[0][1]")
    a = np.load(export(["--sentence", sentence, "--heads", "2"], "all.npy"))
    check(a.shape == (1, 2, T, T) and np.array_equal(a, att), f"all-heads npy is [L, H, T, T] = maps: {a.shape}")
    # The Head difference view's data is the head distance: the mean over query rows of the total
    # variation 0.5 * sum_k |A_a - A_b|, recomputed here from the maps, at two sentence lengths.
    for s in (sentence, sentence + " and never came back to the little house by the river"):
        r = maps(["--sentence", s, "--heads", "4", "--causal"])
        A = np.array(r["attention"], dtype=np.float64)[0]  # [H, T, T]
        tv = 0.5 * np.abs(A[:, None] - A[None, :]).sum(axis=3).mean(axis=2)  # [H, H]
        for ext in ("npy", "csv"):
            path = export(["--sentence", s, "--heads", "4", "--causal", "--view", "difference"], "d." + ext)
            if ext == "npy":
                d = np.load(path)
            else:
                with open(path, newline="", encoding="utf-8") as f:
                    d = np.array([[float(x) for x in row[1:]] for row in list(csv.reader(f))[1:]])
            err = float(np.abs(d - tv).max()) if d.shape == tv.shape else float("inf")
            check(d.shape == (4, 4) and err < 1e-6,
                  f"difference .{ext} (T = {len(r['tokens'])}) is the row-TV mean [H, H]: shape {d.shape}, max error {err:.2g}")

    with open(export(["--sentence", sentence, "--heads", "2", "--head", "1"], "h1.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    check(rows[0] == ["query\\key"] + tokens, f"CSV header is query\\key + tokens: {rows[0]}")
    check([r[0] for r in rows[1:]] == tokens, "CSV rows start with the query token")
    vals = np.array([[float(x) for x in r[1:]] for r in rows[1:]], dtype=np.float32)
    check(vals.shape == (T, T) and np.array_equal(vals, att[0, 1]), "CSV values equal maps' attention[0][1]")

    with open(export(["--sentence", sentence, "--heads", "2"], "m.json"), encoding="utf-8") as f:
        check(json.load(f) == ref, "export .json is the object maps writes")

    code, out, err = run(["export", "--sentence", SENTENCE, "--out-dir", os.path.join(WORK, "batch")])
    names = sorted(os.listdir(os.path.join(WORK, "batch"))) if code == 0 else []
    check(code == 0 and names == ["layer0_head%d.png" % h for h in range(4)], f"--out-dir writes layer0_head*.png: {names} {err}")
    check(len(out.split()) == 4, "--out-dir lists what it wrote")


def test_errors():
    bad = os.path.join(WORK, "bad")
    os.makedirs(bad)
    cases = [
        (["--out", os.path.join(bad, "x.bmp")], [".png", ".svg", ".pdf", ".npy", ".csv", ".json"]),
        (["--out", os.path.join(bad, "x")], ["no extension"]),
        (["--out", os.path.join(bad, "missing", "x.png")], ["cannot write", "missing"]),
        (["--out", os.path.join(bad, "x.png"), "--head", "9"], ["head 9", "0 to 3"]),
        (["--out", os.path.join(bad, "x.png"), "--layer", "2"], ["layer 2", "0 to 0"]),
        (["--out", os.path.join(bad, "x.png"), "--view", "pie"], ["'pie'", "heads, head, query, difference, average, width, roles, ablation", "heatmap", "overview", "distance", "rollout", "sweep"]),
        (["--out", os.path.join(bad, "x.pdf"), "--size", "3.25x3.25furlong"], ["--size", "unit"]),
        (["--out", os.path.join(bad, "x.pdf"), "--size", "0.2x0.2in"], ["--size", "0.5in"]),
        (["--out", os.path.join(bad, "x.pdf"), "--labels", "some"], ["labels 'some'", "every N"]),
        (["--out", os.path.join(bad, "x.pdf"), "--font-size", "100"], ["--font-size", "4 to 72"]),
        (["--out", os.path.join(bad, "x.pdf"), "--title", "A", "--no-title"], ["--title", "--no-title"]),
        (["--out", os.path.join(bad, "x.pdf"), "--style", os.path.join(bad, "missing.json")], ["style file"]),
        (["--out", os.path.join(bad, "x.png"), "--colormap", "jet"], ["viridis"]),
        (["--out", os.path.join(bad, "x.png"), "--size", "big"], ["--size"]),
        (["--out", os.path.join(bad, "x.png"), "--figure-scale", "0"], ["scale"]),
        (["--out", os.path.join(bad, "x.png"), "--figure-scale", "80"], ["32767"]),
        ([], ["--out"]),
    ]
    for extra, needles in cases:
        code, _, err = run(["export", "--sentence", SENTENCE] + extra)
        lines = [l for l in err.splitlines() if l.strip()]
        ok = code in (1, 2) and lines and lines[0].startswith("error:") and all(n in err for n in needles)
        check(ok, f"export {extra}: exit {code}, stderr {err.strip()!r} should name {needles}")
    left = os.listdir(bad)
    check(left == [], f"failed exports leave no file behind: {left}")


def pdf_text_sizes(path):
    """Font sizes of every text run in the PDF (cairo writes each run's size into its Tm matrix)."""
    with open(path, "rb") as f:
        data = f.read()
    sizes = []
    for m in re.finditer(rb"stream\r?\n", data):
        end = data.find(b"endstream", m.end())
        try:
            content = zlib.decompress(data[m.end():end])
        except zlib.error:
            continue
        num = rb"(-?[\d.]+)"
        # Inside each text object: "a b c d e f Tm" sets the matrix, "/f 1 Tf" the font scale.
        for block in re.findall(rb"BT(.*?)ET", content, re.S):
            scale = 1.0
            for op in re.finditer(num + rb" " + num + rb" " + num + rb" " + num + rb" -?[\d.]+ -?[\d.]+ Tm|/f-[\d-]+ " + num + rb" Tf", block):
                if op.group(5) is not None:
                    scale = float(op.group(5))
                else:
                    a, b, c, d = (float(x) for x in op.group(1, 2, 3, 4))
                    sizes.append(scale * math.sqrt(abs(a * d - b * c)))
    return sizes


def test_paper_figures():
    """Issue 20: a page size reflows the figure (PDF page size and smallest font read back), small
    vector files, the overview view, title and labels flags, a style file."""
    sentence = " ".join("w%d" % i for i in range(20))
    base = ["--sentence", sentence, "--d-model", "8", "--heads", "4", "--causal"]
    pdf = export(base + ["--size", "3.25x3.25in"], "col.pdf")
    if shutil.which("pdfinfo"):
        info = subprocess.run(["pdfinfo", pdf], capture_output=True).stdout.decode()
        page = re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", info)
        check(page and abs(float(page.group(1)) - 234) < 0.5 and abs(float(page.group(2)) - 234) < 0.5,
              f"--size 3.25x3.25in gives a 234 x 234 pt page: {page.group(0) if page else info}")
    sizes = pdf_text_sizes(pdf)
    check(len(sizes) > 10, f"the PDF's text runs are found: {len(sizes)}")
    check(sizes and min(sizes) >= 6 - 1e-6 and max(sizes) <= 8 * 1.15 + 1e-6,
          f"one-column figure: text from 6 to 9.2 pt: {sorted(set(round(s, 2) for s in sizes))}")
    if shutil.which("pdftotext"):
        words = subprocess.run(["pdftotext", pdf, "-"], capture_output=True).stdout.decode().split()
        check("masked" in words and "w0" in words, "the column figure keeps labels and the masked legend as text")
    sizes = pdf_text_sizes(export(base + ["--size", "8.25x8.25cm", "--font-size", "7", "--no-title"], "cm.pdf"))
    check(sizes and min(sizes) >= 6 - 1e-6 and max(sizes) <= 7 + 1e-6, f"cm, --font-size 7, --no-title: {sorted(set(sizes))}")
    png = export(base + ["--size", "3.25x3.25in", "--dpi", "300"], "col.png")
    check(png_size(png) == (975, 975), f"3.25 in at 300 dpi is 975 px: {png_size(png)}")

    big = ["--sentence", " ".join("t%d" % i for i in range(42)), "--d-model", "16", "--heads", "8", "--causal"]
    for ext in ("svg", "pdf"):
        size = os.path.getsize(export(big, "eight." + ext))
        check(size < 300 * 1024, f"8 heads x 42^2 as {ext}: {size} bytes < 300 KB")
    svg = export(base + ["--view", "overview", "--title", "Figure 1", "--labels", "every 5", "--colorbar-label", "w"], "ov.svg")
    texts, _ = svg_texts(svg)
    check("Figure 1" in texts and "w" in texts, "--title and --colorbar-label")
    check("w5" in texts and "w6" not in texts, "--labels every 5")
    style = os.path.join(WORK, "paper.json")
    with open(style, "w") as f:
        json.dump({"font_size": 7, "show_title": False, "colormap": "magma", "labels": "none"}, f)
    texts, _ = svg_texts(export(base + ["--style", style], "styled.svg"))
    check("w0" not in texts and not any("layer 0" in t for t in texts), f"--style: no labels, no title: {texts[:6]}")
    with open(style, "w") as f:
        json.dump({"fontsize": 7}, f)
    code, _, err = run(["export"] + base + ["--style", style, "--out", os.path.join(WORK, "bad_style.svg")])
    check(code == 1 and "\"fontsize\" is not a style key" in err, f"unknown style key: exit {code}, {err.strip()}")


def main():
    global CLI, WORK
    CLI = os.path.abspath(sys.argv[1])
    T.cli = CLI
    WORK = tempfile.mkdtemp(prefix="hs_export_cli_")
    try:
        test_figures()
        test_paper_figures()
        test_data()
        test_errors()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    return T.summary()


if __name__ == "__main__":
    sys.exit(main())
