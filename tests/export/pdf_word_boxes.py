"""Issue 35: every figure view laid out for a paper column (3.25 x 3.25 in, 3.25 x 2.2 in) and a
page width (6.75 x 4 in), checked word by word in the PDF: each word's box from poppler's
`pdftotext -bbox` lies on the page and overlaps no other word, and no text is under 6 pt (the Tm
matrices of the decompressed content streams). Labels asked for (--labels all) that cannot fit
shrink to 6 pt, then thin with a note on stderr. The exports run in parallel (each takes well
under a second). Usage: pdf_word_boxes.py HEADSCOPE_CLI MODELS_DIR"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "cli"))
from pdf_text import text_sizes  # noqa: E402
from cli_checks import Checks  # noqa: E402

CLI, MODELS = sys.argv[1], sys.argv[2]
T = Checks()
check = T.check


if not shutil.which("pdftotext"):
    print("SKIP: pdftotext (poppler-utils) not installed")
    sys.exit(0)

STORIES = os.path.join(MODELS, "stories260K")
if not os.path.isfile(os.path.join(STORIES, "stories260K.bin")):
    STORIES = os.path.join(os.path.dirname(__file__), "..", "..", "assets", "models", "stories260K")
PRETRAINED = ["--model", os.path.join(STORIES, "stories260K.bin"), "--tokenizer", os.path.join(STORIES, "tok512.bin"),
              "--sentence", "Once upon a time, there was a little girl named Lily. She loved to play outside."]
LONG = ["--model", os.path.join(STORIES, "stories260K.bin"), "--tokenizer", os.path.join(STORIES, "tok512.bin"),
        "--sentence", "Once upon a time there was a little girl named Lily who loved to play in the park with "
                      "her big red ball every day"]
SYNTHETIC = ["--sentence", "the quick brown fox jumps over the lazy dog and runs away", "--d-model", "16", "--heads", "4"]

# Every figure view (core/export/export_views.cpp); the roles view also with one role.
VIEWS = {
    "overview": PRETRAINED + ["--view", "overview"],
    "heads": PRETRAINED + ["--view", "heads"],
    "head": PRETRAINED + ["--view", "head", "--head", "3"],
    "head-labels-all": LONG + ["--view", "head", "--head", "3", "--labels", "all"],
    "query": PRETRAINED + ["--view", "query"],
    "difference": PRETRAINED + ["--view", "difference"],
    "distance": PRETRAINED + ["--view", "distance"],
    "difference-cluster": PRETRAINED + ["--view", "difference", "--order", "cluster"],
    "average": PRETRAINED + ["--view", "average"],
    "rollout": PRETRAINED + ["--view", "rollout"],
    "width-pretrained": PRETRAINED + ["--view", "width"],
    "width": SYNTHETIC + ["--view", "width"],
    "sweep": SYNTHETIC + ["--view", "sweep"],
    "width-12-heads": SYNTHETIC[:2] + ["--d-model", "24", "--heads", "12", "--view", "width"],
    "roles": PRETRAINED + ["--view", "roles"],
    "roles-previous": PRETRAINED + ["--view", "roles", "--role", "previous"],
    "ablation": PRETRAINED + ["--view", "ablation"],
}
SIZES = {"3.25x3.25in": (234, 234), "3.25x2.5in": (234, 180), "3.25x2.2in": (234, 158.4), "6.75x4in": (486, 288)}

SLACK = 0.25  # points: a box may touch the page edge or its neighbour by this much


def word_boxes(pdf):
    xml = subprocess.run(["pdftotext", "-bbox", pdf, "-"], capture_output=True, text=True).stdout
    xml = re.sub(r"<!DOCTYPE[^>]*>", "", xml)
    root = ET.fromstring(xml)
    ns = {"h": "http://www.w3.org/1999/xhtml"}
    page = root.find(".//h:page", ns)
    words = [(w.text or "", float(w.get("xMin")), float(w.get("yMin")), float(w.get("xMax")), float(w.get("yMax")))
             for w in root.iter("{http://www.w3.org/1999/xhtml}word")]
    return float(page.get("width")), float(page.get("height")), words


def overlap(a, b):
    dx = min(a[3], b[3]) - max(a[1], b[1])
    dy = min(a[4], b[4]) - max(a[2], b[2])
    return dx > SLACK and dy > SLACK


def export(job):
    name, size, pdf = job
    p = subprocess.run([CLI, "export"] + VIEWS[name] + ["--size", size, "--out", pdf], capture_output=True, text=True)
    return job, p


with tempfile.TemporaryDirectory() as tmp:
    jobs = [(name, size, os.path.join(tmp, f"{name}_{size}.pdf")) for name in VIEWS for size in SIZES]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(export, jobs))
    totals = {"off": 0, "overlap": 0, "small": 0, "refused": 0}
    for (name, size, pdf), p in results:
        what = f"{name} at {size}"
        if p.returncode != 0:
            totals["refused"] += 1
            check(False, f"{what}: exports (exit {p.returncode}: {p.stderr.strip()[:200]})")
            continue
        w, h, words = word_boxes(pdf)
        ew, eh = SIZES[size]
        check(abs(w - ew) < 0.5 and abs(h - eh) < 0.5, f"{what}: the page is {ew} x {eh} pt (got {w:.1f} x {h:.1f})")
        off = [t for t in words if t[1] < -SLACK or t[2] < -SLACK or t[3] > w + SLACK or t[4] > h + SLACK]
        pairs = [(a[0], b[0]) for i, a in enumerate(words) for b in words[i + 1:] if overlap(a, b)]
        small = [s for s in text_sizes(pdf) if s < 6 - 1e-3]
        totals["off"] += len(off)
        totals["overlap"] += len(pairs)
        totals["small"] += len(small)
        check(bool(words), f"{what}: has words ({len(words)})")
        check(not off, f"{what}: every word on the page ({len(off)} off: {[t[0] for t in off][:5]})")
        check(not pairs, f"{what}: no two words overlap ({len(pairs)} pairs: {pairs[:4]})")
        check(not small, f"{what}: no text under 6 pt ({len(small)} runs, smallest {min(small, default=0):.2f} pt)")
        if name == "roles":  # the 8 role columns keep their labels on a paper column too
            names = {t[0] for t in words}
            missing = [r for r in ("previous", "first", "bos", "self", "local", "duplicate", "induction", "broadness")
                       if r not in names]
            check(not missing, f"{what}: every role column labelled (missing {missing})")
        if name == "ablation":  # a diverging colour bar: symmetric, at least -s, 0 and s labelled
            # The bar's tick labels: the numbers right of the last head column's label (cells and the
            # caption hold numbers too).
            right = max((t[3] for t in words if t[0] == "h7"), default=w)
            ticks = sorted(float(t[0].replace("\u2212", "-")) for t in words
                           if t[1] > right and re.fullmatch(r"[\u2212-]?\d+\.\d+", t[0]))
            check(len(ticks) >= 3 and ticks[0] < 0 < ticks[-1] and abs(ticks[0] + ticks[-1]) < 1e-9 and 0.0 in ticks,
                  f"{what}: the diverging bar labels at least -s, 0 and s ({ticks})")
        if name == "head-labels-all" and size == "3.25x3.25in":
            check("label" in p.stderr, f"{what}: a note on stderr says the labels asked for were thinned "
                                       f"({p.stderr.strip()[:160]!r})")
    print(f"totals: {totals['off']} words off the page, {totals['overlap']} overlapping pairs, "
          f"{totals['small']} text runs under 6 pt, {totals['refused']} exports refused")

sys.exit(T.summary())
