"""Issue 20: the difference table and the sweep reflow for a page like the heads figure, and the
style file's "font" sets the family of every figure's text. Read back from the PDFs headscope-cli
writes: the page size (pdfinfo), the smallest text size (the Tm matrices of the decompressed
content streams) and the embedded fonts (pdffonts). Usage: reflow_pdf_cli.py HEADSCOPE_CLI"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pdf_text import text_sizes  # noqa: E402

CLI = sys.argv[1]
failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def run(args):
    return subprocess.run([CLI, "export"] + args, capture_output=True, text=True)


def page_size(pdf):
    out = subprocess.run(["pdfinfo", pdf], capture_output=True, text=True).stdout
    m = re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", out)
    return (float(m.group(1)), float(m.group(2))) if m else None


SENTENCE = ["--sentence", "the quick brown fox jumps over the lazy dog and runs away", "--d-model", "16", "--heads", "4"]

with tempfile.TemporaryDirectory() as tmp:
    have_poppler = shutil.which("pdfinfo") and shutil.which("pdffonts")
    if not have_poppler:
        print("SKIP: pdfinfo/pdffonts (poppler-utils) not installed")
    for view in ["difference", "sweep"]:
        for size, (w, h) in [("3.25x3.25in", (234, 234)), ("10x5.625in", (720, 405))]:
            pdf = os.path.join(tmp, f"{view}_{size}.pdf")
            p = run(SENTENCE + ["--view", view, "--size", size, "--out", pdf])
            check(p.returncode == 0, f"{view} at {size} exports ({p.stderr.strip()})")
            if p.returncode != 0 or not have_poppler:
                continue
            check(page_size(pdf) == (w, h), f"{view} at {size}: page {page_size(pdf)} is {w} x {h} pt")
            sizes = text_sizes(pdf)
            check(len(sizes) > 10, f"{view} at {size}: {len(sizes)} texts read back")
            if sizes:
                check(min(sizes) >= 6 - 1e-6, f"{view} at {size}: smallest text {min(sizes):.2f} pt >= 6 pt")
                # Text is laid out at the default 8 pt (a title a little larger), not scaled.
                check(abs(sorted(sizes)[len(sizes) // 2] - 8) < 1e-6, f"{view} at {size}: most text is 8 pt")
        # --font-size is kept on the page.
        pdf = os.path.join(tmp, f"{view}_10pt.pdf")
        p = run(SENTENCE + ["--view", view, "--size", "10x5.625in", "--font-size", "10", "--out", pdf])
        if p.returncode == 0 and have_poppler:
            sizes = sorted(text_sizes(pdf))
            check(abs(sizes[len(sizes) // 2] - 10) < 1e-6, f"{view} with --font-size 10: most text is 10 pt")
        # A page too small for the figure is refused, naming it.
        p = run(SENTENCE + ["--view", view, "--size", "0.6x0.6in", "--font-size", "20", "--out", os.path.join(tmp, "x.pdf")])
        check(p.returncode != 0 and "too small" in p.stderr, f"{view}: a 0.6 in page is refused ({p.stderr.strip()})")

    # The style's font: every figure's text in that family.
    serif = os.path.join(tmp, "serif.json")
    json.dump({"font": "dejavu serif", "font_size": 8}, open(serif, "w"))
    for view, extra in [("difference", []), ("sweep", []), ("heatmap", []), ("overview", [])]:
        pdf = os.path.join(tmp, f"serif_{view}.pdf")
        p = run(SENTENCE + ["--view", view, "--style", serif, "--size", "5x4in", "--out", pdf] + extra)
        check(p.returncode == 0, f"{view} with font DejaVu Serif exports ({p.stderr.strip()})")
        if p.returncode == 0 and have_poppler:
            fonts = subprocess.run(["pdffonts", pdf], capture_output=True, text=True).stdout
            check("DejaVuSerif" in fonts and "DejaVuSans" not in fonts, f"{view}: pdffonts names DejaVu Serif only\n{fonts}")
    svg = os.path.join(tmp, "serif.svg")
    p = run(SENTENCE + ["--view", "difference", "--style", serif, "--out", svg])
    check(p.returncode == 0 and 'font-family="DejaVu Serif, serif"' in open(svg).read(), "SVG text names DejaVu Serif")
    # An unknown family is an error naming it and what is installed (never a silent substitute).
    bad = os.path.join(tmp, "bad.json")
    json.dump({"font": "No Such Font Family"}, open(bad, "w"))
    out = os.path.join(tmp, "bad.pdf")
    p = run(SENTENCE + ["--view", "difference", "--style", bad, "--out", out])
    check(p.returncode != 0, "an unknown font family fails")
    check("No Such Font Family" in p.stderr and "DejaVu Sans" in p.stderr and "bad.json" in p.stderr,
          f"the error names the family, the file and the installed ones ({p.stderr.strip()[:200]})")
    check(not os.path.exists(out), "nothing is written")

print(f"{failures} failed")
sys.exit(1 if failures else 0)
