"""Issue 35: every figure view laid out for a paper column (3.25 x 3.25 in, 3.25 x 2.2 in) and a
page width (6.75 x 4 in), checked word by word in the PDF: each word's box from poppler's
`pdftotext -bbox` lies on the page and overlaps no other word, and no text is under 6 pt (the Tm
matrices of the decompressed content streams). Labels asked for (--labels all) that cannot fit
shrink to 6 pt, then thin with a note on stderr. Issue 46: every view again with --preset slide
(a 10 x 5.625 in slide, 14 pt text): the same word checks; the heatmap views' maps (the placed
images of the content stream) span >= 60% of the slide's width and height and cover >= 38% of it,
no text under 0.85 x the text size (token labels grow with --font-size), and the issue's
reproduction (--size 10x5.625in --font-size 20: a strip a third of the slide high, 6 pt labels)
is beaten 1.5 times. The exports run in parallel (each takes well under a second).
Issue 47: the contrast figure (`compare --out`) at every one of these sizes says what A and B are.
Usage: pdf_word_boxes.py HEADSCOPE_CLI MODELS_DIR"""
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
from pdf_text import content_streams, text_sizes  # noqa: E402
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
    # 19 tokens in a 2 x 2 grid: on a column page the row labels take a second lane in the free
    # left margin before they are thinned (every 2nd token labelled at 3.25x2.5in, not every 4th),
    # and the column labels the free width (every 3rd, not every 4th).
    "teaching-19-tokens": ["--model", "teaching", "--sentence",
                           "the keys that Priya left on the table were not hers and she went back home to get them",
                           "--layer", "0"],
}
# The contrast figure (`compare --out`, core/render/contrast_figure.h): a minimal pair, and two
# models on one input (stories260K against itself: every change 0, the layout the same).
STORIES_MODEL = ["--model", os.path.join(STORIES, "stories260K.bin"), "--tokenizer", os.path.join(STORIES, "tok512.bin")]
CONTRAST_A = "Once upon a time, there was a little girl named Lily. She loved to play outside."
CONTRAST_B = "Once upon a time, there was a little boy named Tom. He loved to play outside."
CONTRAST = {
    "contrast": STORIES_MODEL + ["--sentence", CONTRAST_A, "--contrast", CONTRAST_B],
    "contrast-models": STORIES_MODEL + ["--model-b", os.path.join(STORIES, "stories260K.bin"), "--sentence", CONTRAST_A],
}
SIZES = {"3.25x3.25in": (234, 234), "3.25x2.5in": (234, 180), "3.25x2.2in": (234, 158.4), "6.75x4in": (486, 288)}
SLIDE = "slide"  # --preset slide: 10 x 5.625 in, 14 pt text (core/render/figure_style.h)
SIZES[SLIDE] = (720, 405)
SLIDE_TEXT, SLIDE_LABEL_FLOOR = 14, 0.85
TEACHING = ["--model", "teaching", "--sentence", "Lily saw a cat. The cat was big and Lily was happy.", "--layer", "1"]
# The heatmap views on a slide: the maps fill it (issue 46), at the preset's text size and at 20 pt.
SLIDE_MAPS = {
    "heads": VIEWS["heads"], "head": VIEWS["head"], "average": VIEWS["average"], "overview": VIEWS["overview"],
    "teaching-4-heads": TEACHING, "synthetic-4-heads": SYNTHETIC,
}
SLIDE_FONT_20 = {"teaching-4-heads": TEACHING, "head": VIEWS["head"]}

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


def map_rects(pdf):
    """The maps drawn: each placed image's clip rectangle (x, y, w, h; cairo clips an image to its
    rectangle, then draws it), colour bars (narrower than a fifth of their height) left out."""
    rects = []
    for content in content_streams(pdf):
        for r in re.finditer(rb"(-?[\d.]+) (-?[\d.]+) ([\d.]+) ([\d.]+) re W n\n[^\n]* cm\n[^\n]*Do", content):
            x, y, w, h = (float(v) for v in r.groups())
            if w >= 0.2 * h:
                rects.append((x, y, w, h))
    return rects


def map_fill(pdf, page_w, page_h):
    """(share of the page's width, of its height the maps span, share of its area they cover)."""
    r = map_rects(pdf)
    if not r:
        return 0.0, 0.0, 0.0
    span_w = max(x + w for x, y, w, h in r) - min(x for x, y, w, h in r)
    span_h = max(y + h for x, y, w, h in r) - min(y for x, y, w, h in r)
    return span_w / page_w, span_h / page_h, sum(w * h for x, y, w, h in r) / (page_w * page_h)


def export(job):
    name, size, pdf = job
    command = ["compare"] + CONTRAST[name] if name in CONTRAST else ["export"] + (VIEWS[name] if name in VIEWS else SLIDE_MAPS[name])
    page = ["--preset", "slide"] if size == SLIDE else ["--size", size]
    p = subprocess.run([CLI] + command + page + ["--out", pdf], capture_output=True, text=True)
    return job, p


def slide_checks(tmp):
    """Issue 46: the heatmap views fill a slide, and their labels grow with --font-size."""
    jobs = [(name, os.path.join(tmp, f"fill_{name}_{font}.pdf"), font, args + ["--preset", "slide"] +
             ([] if font == SLIDE_TEXT else ["--font-size", str(font)]))
            for name, args in SLIDE_MAPS.items() for font in (SLIDE_TEXT, 20) if font == SLIDE_TEXT or name in SLIDE_FONT_20]
    # The issue's reproduction: a 16:9 page at 20 pt without the preset.
    jobs.append(("issue-46", os.path.join(tmp, "issue_46.pdf"), 20, TEACHING + ["--size", "10x5.625in", "--font-size", "20"]))
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        done = list(pool.map(lambda j: (j, subprocess.run([CLI, "export"] + j[3] + ["--out", j[1]], capture_output=True, text=True)), jobs))
    fills = {}
    for (name, pdf, font, _), p in done:
        what = f"{name} on a slide at {font} pt"
        if not check(p.returncode == 0, f"{what}: exports ({p.stderr.strip()[:200]})"):
            continue
        fills[(name, font)] = span_w, span_h, area = map_fill(pdf, 720, 405)
        print(f"  {what}: maps span {span_w:.0%} x {span_h:.0%} of the slide, cover {area:.0%}")
        if name == "issue-46":
            continue
        smallest = min(text_sizes(pdf), default=0)
        check(smallest >= SLIDE_LABEL_FLOOR * font - 1e-3,
              f"{what}: no text under {SLIDE_LABEL_FLOOR} x {font} pt (token labels grow with the text; smallest {smallest:.2f} pt)")
        if font == SLIDE_TEXT:
            check(span_w >= 0.6 and span_h >= 0.6 and area >= 0.38,
                  f"{what}: the maps span >= 60% of the slide's width and height and cover >= 38% of it "
                  f"(got {span_w:.0%} x {span_h:.0%}, {area:.0%})")
    bad = subprocess.run([CLI, "export"] + TEACHING + ["--preset", "slid", "--out", os.path.join(tmp, "bad.pdf")],
                         capture_output=True, text=True)
    check(bad.returncode in (1, 2) and "'slid'" in bad.stderr and "slide" in bad.stderr,
          f"--preset slid: refused naming it and the presets (exit {bad.returncode}: {bad.stderr.strip()[:160]!r})")
    issue = fills.get(("issue-46", 20))
    for name in SLIDE_FONT_20:
        got = fills.get((name, 20))
        if issue and got and name.startswith("teaching"):
            check(got[2] >= 1.5 * issue[2] and got[1] >= 1.5 * issue[1],
                  f"{name} at 20 pt: the slide's maps cover {got[2]:.0%} of it and {got[1]:.0%} of its height "
                  f"(the issue's --size 10x5.625in layout: {issue[2]:.0%}, {issue[1]:.0%}; 1.5 x expected)")


with tempfile.TemporaryDirectory() as tmp:
    slide_checks(tmp)
    jobs = [(name, size, os.path.join(tmp, f"{name}_{size}.pdf")) for name in list(VIEWS) + list(CONTRAST) for size in SIZES
            if not (name in CONTRAST and size == SLIDE)]  # compare has no --preset
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
        if name == "teaching-19-tokens" and size == "3.25x2.5in":
            # one lane labels every 4th row (the, left, were, she, to); two lanes every 2nd
            names = {t[0] for t in words}
            missing = [t for t in ("that", "hers", "back", "them") if t not in names]
            check(not missing, f"{what}: the row labels use the free margin (a second lane) before thinning "
                               f"(missing {missing})")
            # the page's height binds: the columns' labels use the free width (cells a little wider)
            # before thinning: every 3rd (the, Priya, the, not, she, home, them), not every 4th
            missing = [t for t in ("Priya", "not", "home") if t not in names]
            check(not missing, f"{what}: the column labels use the free width before thinning (missing {missing})")
        if name in CONTRAST:  # the figure says what A and B are, on every page
            names = [t[0] for t in words]
            sides = ("A:", "B:", "input:") if name == "contrast-models" else ("A:", "B:")
            check(all(side in names for side in sides) and names.count("Once") >= (1 if name == "contrast-models" else 2),
                  f"{what}: the lines saying what A and B are are on the page (words {names[-24:]})")
        if name == "head-labels-all" and size == "3.25x3.25in":
            check("label" in p.stderr, f"{what}: a note on stderr says the labels asked for were thinned "
                                       f"({p.stderr.strip()[:160]!r})")
    print(f"totals: {totals['off']} words off the page, {totals['overlap']} overlapping pairs, "
          f"{totals['small']} text runs under 6 pt, {totals['refused']} exports refused")

sys.exit(T.summary())
