"""Text read back from the PDFs headscope-cli writes (cairo's content streams): shared by the
export tests. Needs only the standard library."""
import math
import re
import zlib


def content_streams(pdf):
    """The decompressed streams of the PDF (the pages' content, fonts, images)."""
    data = open(pdf, "rb").read()
    for m in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", data, re.S):
        try:
            yield zlib.decompress(m.group(1))
        except zlib.error:
            continue


def text_sizes(pdf):
    """Every text's size in points: the Tm matrix's scale (cairo writes 1 Tf)."""
    sizes = []
    for content in content_streams(pdf):
        for t in re.finditer(rb"(-?[\d.]+) (-?[\d.]+) -?[\d.]+ -?[\d.]+ -?[\d.]+ -?[\d.]+ Tm", content):
            sizes.append(math.hypot(float(t.group(1)), float(t.group(2))))
    return sizes
