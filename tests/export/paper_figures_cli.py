#!/usr/bin/python3
"""Figures for papers. The exported head-distance figure (export --view difference): its colour
range comes from the off-diagonal cells (the zero diagonal, a head against itself, does not pull
it down to 0), and in cluster order it draws the clustering's dendrogram (maps --json's
head_clusters) above the columns. Checked on stories260K layer 1 in the PDF's words (pdftotext
-bbox: the colour bar's tick labels right of the table) and in the SVG's strokes (a dendrogram
adds 3 per merge). Head grids of a grouped-query model (stories260K: 8 query heads on 4 key/value
heads) frame each head in its key/value head's colour, in head and in cluster order; a model with
one key/value head per query head keeps plain frames.

Usage: difference_figure_cli.py HEADSCOPE_CLI MODELS_DIR"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
from cli_checks import Checks  # noqa: E402

CLI, MODELS = sys.argv[1], sys.argv[2]
T = Checks()
check = T.check
STORIES = os.path.join(MODELS, "stories260K")
if not os.path.isfile(os.path.join(STORIES, "stories260K.bin")):
    STORIES = os.path.join(HERE, "..", "..", "assets", "models", "stories260K")
MODEL = ["--model", os.path.join(STORIES, "stories260K.bin"), "--tokenizer", os.path.join(STORIES, "tok512.bin"),
         "--sentence", "Once upon a time, there was a little girl named Lily. She loved to play outside."]
LAYER = 1


def words_of(pdf):
    xml = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True).stdout
    root = ET.fromstring(re.sub(r"<!DOCTYPE[^>]*>", "", xml))
    return [(w.text or "", float(w.get("xMin")), float(w.get("xMax"))) for w in root.iter("{http://www.w3.org/1999/xhtml}word")]


def strokes(svg):
    return len(re.findall(r"<path[^>]*stroke", open(svg).read()))


def frame_colours(svg):
    """The stroke colour of every 1.5 pt frame, in drawing order."""
    text = open(svg).read()
    out = []
    for m in re.finditer(r"<path[^>]*>", text):
        tag = m.group(0)
        if re.search(r"stroke-width:1\.5\b", tag):
            c = re.search(r"stroke:(rgb\([^)]*\)|#[0-9a-fA-F]{6})", tag)
            out.append(c.group(1) if c else None)
    return out


def kv_groups(tmp):
    cfg = json.loads(subprocess.run([CLI, "maps", *MODEL, "--json", "-"], check=True, stdout=subprocess.PIPE).stdout)["config"]
    H, G = cfg["n_heads"], cfg["n_kv_heads"]
    if not check(G < H and H % G == 0, f"stories260K is grouped-query ({H} heads, {G} key/value heads)"):
        return
    for order in ([], ["--order", "cluster"]):
        svg = os.path.join(tmp, f"grid{len(order)}.svg")
        subprocess.run([CLI, "export", *MODEL, "--layer", str(LAYER), *order, "--out", svg], check=True)
        frames = frame_colours(svg)
        ok = len(frames) == H and len(set(frames)) == G
        if ok and not order:  # head order: heads g*H/G .. share frame g's colour
            ok = all(frames[h] == frames[(h // (H // G)) * (H // G)] for h in range(H))
        check(ok, f"grid {' '.join(order) or 'head order'}: {H} frames in {G} key/value colours, "
                  f"heads sharing one in the same colour (got {frames})")
    svg = os.path.join(tmp, "mha.svg")
    subprocess.run([CLI, "export", "--sentence", "the cat sat on the mat", "--d-model", "16", "--heads", "4", "--out", svg],
                   check=True)
    check(not frame_colours(svg), "a model without grouped-query attention keeps plain frames")


def main():
    maps = json.loads(subprocess.run([CLI, "maps", *MODEL, "--json", "-"], check=True, stdout=subprocess.PIPE).stdout)
    D = maps["head_distance"][LAYER]
    H = len(D)
    off = [D[a][b] for a in range(H) for b in range(H) if a != b]
    lo, hi = min(off), max(off)
    with tempfile.TemporaryDirectory() as tmp:
        if shutil.which("pdftotext"):
            for size in ("natural", "3.25x2.5in", "6.75x4in"):
                pdf = os.path.join(tmp, f"d_{size}.pdf")
                sized = [] if size == "natural" else ["--size", size]
                subprocess.run([CLI, "export", *MODEL, "--view", "difference", "--layer", str(LAYER), "--order", "cluster",
                                *sized, "--out", pdf], check=True)
                words = words_of(pdf)
                right = max((x1 for t, x0, x1 in words if t == "head"), default=0)
                ticks = [float(t) for t, x0, x1 in words if x0 > right + 1 and re.fullmatch(r"\d+\.\d+", t)]
                check(len(ticks) >= 2, f"{size}: the colour bar has labelled ticks ({ticks})")
                if ticks:
                    check(min(ticks) >= lo - 0.006 and max(ticks) <= hi + 0.006,
                          f"{size}: the colour bar's ticks {ticks} lie in the off-diagonal range [{lo:.4f}, {hi:.4f}] "
                          f"(the diagonal's 0 must not set it)")
        else:
            print("SKIP the PDF checks: pdftotext (poppler-utils) not installed")
        kv_groups(tmp)
        plain, clustered = os.path.join(tmp, "plain.svg"), os.path.join(tmp, "cluster.svg")
        subprocess.run([CLI, "export", *MODEL, "--view", "difference", "--layer", str(LAYER), "--out", plain], check=True)
        subprocess.run([CLI, "export", *MODEL, "--view", "difference", "--layer", str(LAYER), "--order", "cluster",
                        "--out", clustered], check=True)
        merges = len(maps["head_clusters"][LAYER]["merges"])
        extra = strokes(clustered) - strokes(plain)
        check(merges == H - 1 and extra >= 3 * merges,
              f"cluster order draws the dendrogram: {extra} more strokes than head order, expected at least 3 x {merges} merges")
    print(f"layer {LAYER}: off-diagonal head distance {lo:.4f} to {hi:.4f}")
    return T.summary()


if __name__ == "__main__":
    sys.exit(main())
