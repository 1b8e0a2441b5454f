#!/usr/bin/python3
"""headscope-cli export against ../shared/CLI_CONTRACT.md and issue 4, with no display:
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
import xml.etree.ElementTree as ET

import numpy as np

CLI = None
WORK = None
failures = []
passed = 0
SENTENCE = "the keys that Priya left on the table were not hers"
SVG = "{http://www.w3.org/2000/svg}"


def check(cond, msg):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(msg)
        print("FAIL: " + msg)


def headless_env():
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR")}
    return env


def run(args, timeout=120):
    p = subprocess.run([CLI] + args, capture_output=True, timeout=timeout, env=headless_env())
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


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
    w2, h2 = png_size(export(["--sentence", SENTENCE, "--head", "2", "--scale", "2"], "head2x2.png"))
    check(abs(w2 - 2 * w) <= 2 and abs(h2 - 2 * h) <= 2, f"--scale 2 doubles the PNG: {w}x{h} -> {w2}x{h2}")
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
            check("head 3" in texts and "0.000" in texts, f"{name} has head labels and numbers in cells")
            measure = "head distance" if view == "distance" else "head difference"
            check(any(measure in t for t in texts), f"{name}: the title names the {measure}")
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
    d = np.load(export(["--sentence", sentence, "--heads", "2", "--view", "difference"], "d.npy"))
    ref_d = np.array(ref["head_difference"][0], dtype=np.float32)
    check(d.shape == (2, 2) and np.allclose(d, ref_d, rtol=0, atol=1e-7), f"difference npy is [H, H] = maps: {d.shape}")

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
        (["--out", os.path.join(bad, "x.png"), "--view", "pie"], ["'pie'", "heatmap, difference, distance, sweep, roles or rollout"]),
        (["--out", os.path.join(bad, "x.png"), "--colormap", "jet"], ["viridis"]),
        (["--out", os.path.join(bad, "x.png"), "--size", "big"], ["--size"]),
        (["--out", os.path.join(bad, "x.png"), "--scale", "0"], ["scale"]),
        (["--out", os.path.join(bad, "x.png"), "--scale", "80"], ["32767"]),
        ([], ["--out"]),
    ]
    for extra, needles in cases:
        code, _, err = run(["export", "--sentence", SENTENCE] + extra)
        lines = [l for l in err.splitlines() if l.strip()]
        ok = code in (1, 2) and lines and lines[0].startswith("error:") and all(n in err for n in needles)
        check(ok, f"export {extra}: exit {code}, stderr {err.strip()!r} should name {needles}")
    left = os.listdir(bad)
    check(left == [], f"failed exports leave no file behind: {left}")


def main():
    global CLI, WORK
    CLI = os.path.abspath(sys.argv[1])
    WORK = tempfile.mkdtemp(prefix="hs_export_cli_")
    try:
        test_figures()
        test_data()
        test_errors()
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    print(f"{passed} checks passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
