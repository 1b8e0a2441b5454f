#!/usr/bin/python3
"""headscope-cli export of head roles and attention rollout, and --order cluster (issue 18):
`--view roles --role R` writes the layers x heads scores that `heads --json` prints (NPY, CSV) and
a figure (PNG, SVG, PDF) naming the role; `--view rollout` writes maps --json's
attention_rollout; `--order cluster` puts two identical heads side by side in the head grid, the
difference figure and the `heads` table, labelled by their real index; bad combinations exit 1 or
2 with one "error:" line.

Usage: roles_export_cli.py PATH/TO/headscope-cli MODELS_DIR   (Debian's /usr/bin/python3: numpy)
"""
import csv
import io
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from cli_checks import Checks  # noqa: E402

CLI = None
T = Checks()
check, run, ok, error = T.check, T.run, T.ok, T.error
WORK = None
ROLES = ["previous", "first", "bos", "self", "local", "duplicate", "induction", "broadness"]
SVG = "{http://www.w3.org/2000/svg}"


def export(args, name):
    out = os.path.join(WORK, name)
    ok(f"export {name}", ["export"] + args + ["--out", out])
    return out


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return (0, 0)
    return struct.unpack(">II", head[16:24])


def pdf_pages(path):
    if not shutil.which("pdfinfo"):
        return 1
    p = subprocess.run(["pdfinfo", path], capture_output=True)
    m = re.search(rb"Pages:\s+(\d+)", p.stdout)
    return int(m.group(1)) if m else 0


def svg_texts(path):
    root = ET.parse(path).getroot()
    return [t.text or "" for t in root.iter(SVG + "text")], root


def model_args(models):
    model = os.path.join(models, "stories260K", "stories260K.bin")
    sentence = "Once upon a time, there was a little girl named Lily. She saw a big red ball and she ran to it."
    if os.path.isfile(model):
        return ["--model", model, "--tokenizer", os.path.join(models, "stories260K", "tok512.bin"), "--sentence", sentence]
    print("SKIP the stories260K cases: stories260K not found; using the synthetic layer")
    return ["--sentence", "the cat saw the dog and the cat ran", "--d-model", "16", "--heads", "4", "--causal"]


def test_roles(margs):
    out = ok("heads --json", ["heads"] + margs + ["--json", "-", "--probe-seeds", "1"])  # export runs one probe
    if out is None:
        return
    ref = json.loads(out)
    for role in ROLES:
        want = np.array([[np.nan if v is None else v for v in row] for row in ref["scores"][role]], dtype=np.float32)
        got = np.load(export(margs + ["--view", "roles", "--role", role], f"roles_{role}.npy"))
        check(got.shape == want.shape and got.dtype == np.float32, f"roles {role}.npy shape {got.shape}, expected {want.shape}")
        if got.shape == want.shape:
            same = np.array_equal(np.isnan(got), np.isnan(want)) and np.allclose(np.nan_to_num(got), np.nan_to_num(want), atol=1e-7)
            check(same, f"roles {role}.npy equals heads --json's scores (largest difference "
                        f"{np.nanmax(np.abs(got - want)) if np.any(~np.isnan(got)) else 0})")
    path = export(margs + ["--view", "roles", "--role", "previous"], "roles_previous.csv")
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    L, H = len(ref["scores"]["previous"]), len(ref["scores"]["previous"][0])
    check(rows[0] == ["layer\\head"] + [f"head {h}" for h in range(H)] and len(rows) == L + 1, f"roles CSV header {rows[0]}")
    vals = [[None if c == "" else float(c) for c in r[1:]] for r in rows[1:]]
    check(all(v is None and w is None or v is not None and w is not None and abs(v - w) < 1e-7
              for vr, wr in zip(vals, ref["scores"]["previous"]) for v, w in zip(vr, wr)), "roles CSV equals heads --json")
    # Figures: a PNG of sensible size, a one-page PDF, an SVG whose title names the role.
    png = export(margs + ["--view", "roles", "--role", "previous"], "roles_previous.png")
    w, h = png_size(png)
    check(300 <= w <= 3000 and 200 <= h <= 3000, f"roles PNG size {w}x{h}")
    pdf = export(margs + ["--view", "roles", "--role", "induction"], "roles_induction.pdf")
    check(pdf_pages(pdf) == 1, "roles PDF has one page")
    texts, root = svg_texts(export(margs + ["--view", "roles", "--role", "first", "--colormap", "magma"], "roles_first.svg"))
    title = root.find(SVG + "title")
    check(title is not None and "first" in title.text, f"roles SVG title names the role: {title.text if title is not None else None}")
    check("L0" in texts and "h0" in texts and "layer" in texts and "head" in texts, "roles SVG labels layers and heads")
    # --no-caption (or the style key show_caption: false) drops the definition under the table.
    caption = " ".join(texts)
    check("position 0" in caption or "first" in caption.lower(), f"roles SVG has its caption: {texts[-3:]}")
    bare, _ = svg_texts(export(margs + ["--view", "roles", "--role", "first", "--no-caption"], "roles_first_bare.svg"))
    words = set(" ".join(texts).split()) - set(" ".join(bare).split())
    check(len(bare) < len(texts) and words, f"--no-caption leaves the caption out: {len(texts)} texts, {len(bare)} without")
    style = os.path.join(WORK, "no_caption.json")
    with open(style, "w") as f:
        f.write('{"show_caption": false}')
    styled, _ = svg_texts(export(margs + ["--view", "roles", "--role", "first", "--style", style], "roles_first_style.svg"))
    check(styled == bare, "the style key show_caption: false is --no-caption")
    # Batch: every role.
    d = os.path.join(WORK, "batch")
    out = ok("export --out-dir --view roles", ["export"] + margs + ["--view", "roles", "--out-dir", d, "--format", "npy"])
    check(out is not None and sorted(os.listdir(d)) == sorted(f"roles_{r}.npy" for r in ROLES), f"--out-dir roles files: {os.listdir(d) if os.path.isdir(d) else None}")


def test_rollout(margs):
    out = ok("maps --json", ["maps"] + margs + ["--json", "-"])
    if out is None:
        return
    ref = np.array(json.loads(out)["attention_rollout"], dtype=np.float32)
    got = np.load(export(margs + ["--view", "rollout"], "rollout.npy"))
    check(got.shape == ref.shape and np.allclose(got, ref, atol=1e-7), f"rollout.npy equals maps --json's attention_rollout ({got.shape})")
    with open(export(margs + ["--view", "rollout"], "rollout.csv"), newline="") as f:
        rows = list(csv.reader(f))
    csv_vals = np.array([[float(c) for c in r[1:]] for r in rows[1:]], dtype=np.float32)
    check(rows[0][0] == "query\\key" and csv_vals.shape == ref.shape and np.allclose(csv_vals, ref, atol=1e-7), "rollout CSV")
    w, h = png_size(export(margs + ["--view", "rollout"], "rollout.png"))
    check(w > 300 and h > 300, f"rollout PNG size {w}x{h}")
    pdf = export(margs + ["--view", "rollout"], "rollout.pdf")
    check(pdf_pages(pdf) == 1, "rollout PDF has one page")
    texts, root = svg_texts(export(margs + ["--view", "rollout"], "rollout.svg"))
    check("rollout" in root.find(SVG + "title").text, "rollout SVG title says rollout")


def identical_heads_file():
    """[1, 4, T, T] causal maps where heads 0 and 3 are the same and 1, 2 differ from them and each other."""
    T = 8
    rng = np.random.default_rng(18)
    maps = np.zeros((1, 4, T, T), dtype=np.float32)
    for h in range(4):
        for i in range(T):
            if h == 1:
                row = np.zeros(i + 1); row[0] = 1  # first token
            elif h == 2:
                row = np.zeros(i + 1); row[max(i - 1, 0)] = 1  # previous token
            else:
                row = np.ones(i + 1)  # uniform, plus a little noise
            maps[0, h, i, : i + 1] = row / row.sum()
    maps[0, 0] += 0.0
    noise = rng.random((T, T)).astype(np.float32) * np.tril(np.ones((T, T), dtype=np.float32))
    shared = maps[0, 0] + 0.2 * noise
    shared /= shared.sum(axis=1, keepdims=True)
    maps[0, 0] = shared
    maps[0, 3] = shared
    path = os.path.join(WORK, "twins.npz")
    np.savez(path, attention=maps)
    with open(path + ".tokens.json", "w") as f:
        json.dump({"tokens": [f"t{i}" for i in range(T)], "name": "twins"}, f)
    return path


def adjacent(order, a, b):
    return abs(order.index(a) - order.index(b)) == 1


def test_cluster_order():
    f = identical_heads_file()
    # The heads table.
    out = ok("heads --order cluster", ["heads", "--attention", f, "--order", "cluster"])
    if out is not None:
        heads = [int(l.split()[2]) for l in out.splitlines() if re.match(r"^\s+\d+\s+\d+\s+\d+\s", l)]
        check(sorted(heads) == [0, 1, 2, 3] and adjacent(heads, 0, 3), f"heads --order cluster: identical heads 0 and 3 side by side: {heads}")
    out = ok("heads (model order)", ["heads", "--attention", f])
    if out is not None:
        heads = [int(l.split()[2]) for l in out.splitlines() if re.match(r"^\s+\d+\s+\d+\s+\d+\s", l)]
        check(heads == [0, 1, 2, 3], f"heads without --order: model order: {heads}")
    # The difference figure: labels in cluster order, real indices, and a 0 between the twins.
    for view in ("difference", "distance"):
        texts, root = svg_texts(export(["--attention", f, "--view", view, "--order", "cluster"], f"{view}_cluster.svg"))
        labels = [int(t.split()[1]) for t in texts if re.fullmatch(r"head \d+", t)]
        rows = labels[:4]
        check(sorted(rows) == [0, 1, 2, 3] and adjacent(rows, 0, 3) and labels[4:8] == rows,
              f"{view} --order cluster: axes {labels}")
        check("cluster order" in root.find(SVG + "title").text, f"{view} --order cluster: the title says so")
    texts, _ = svg_texts(export(["--attention", f, "--view", "difference"], "difference_model.svg"))
    labels = [int(t.split()[1]) for t in texts if re.fullmatch(r"head \d+", t)]
    check(labels[:4] == [0, 1, 2, 3], f"difference without --order: model order {labels}")
    # The head grid: panel titles in cluster order.
    texts, root = svg_texts(export(["--attention", f, "--order", "cluster"], "grid_cluster.svg"))
    panels = [int(t.split()[1]) for t in texts if re.fullmatch(r"head \d+", t)]
    check(sorted(panels) == [0, 1, 2, 3] and adjacent(panels, 0, 3), f"grid --order cluster: panels {panels}")
    w, h = png_size(export(["--attention", f, "--order", "cluster"], "grid_cluster.png"))
    check(w > 0 and h > 0, "grid --order cluster PNG")
    export(["--attention", f, "--view", "distance", "--order", "cluster"], "distance_cluster.png")
    # Data keep head order.
    a = np.load(export(["--attention", f, "--view", "difference", "--order", "cluster"], "difference_cluster.npy"))
    check(a.shape == (4, 4) and abs(a[0, 3]) < 1e-7 and a[0, 1] > 0, "difference .npy keeps head order")


def test_errors(margs):
    # Without --role the figure is every role of every head (issue 36: as the app's Head roles view; views_cli.py).
    error("unknown role", ["export"] + margs + ["--view", "roles", "--role", "copying", "--out", os.path.join(WORK, "x.png")],
          ["copying"])
    error("--role with heatmap", ["export"] + margs + ["--role", "previous", "--out", os.path.join(WORK, "x.png")], ["--role"])
    error("--head with rollout", ["export"] + margs + ["--view", "rollout", "--head", "1", "--out", os.path.join(WORK, "x.png")],
          ["--head"])
    error("--layer with roles", ["export"] + margs + ["--view", "roles", "--role", "self", "--layer", "1", "--out",
                                                      os.path.join(WORK, "x.png")], ["--layer"])
    error("--order bogus", ["export"] + margs + ["--order", "size", "--out", os.path.join(WORK, "x.png")], ["size"])
    error("heads --order bogus", ["heads"] + margs + ["--order", "size"], ["size"])
    error("heads --order with --sort", ["heads"] + margs + ["--order", "cluster", "--sort", "previous"], ["--order"])
    long = " ".join(f"w{i}" for i in range(600))
    error("rollout past 512 tokens", ["export", "--sentence", long, "--view", "rollout", "--out", os.path.join(WORK, "x.npy")],
          ["512", "600"])
    check(not os.path.exists(os.path.join(WORK, "x.png")) and not os.path.exists(os.path.join(WORK, "x.npy")),
          "refused exports leave no file")


def main():
    global CLI, WORK
    CLI = sys.argv[1]
    T.cli = CLI
    models = os.environ.get("HEADSCOPE_MODELS_DIR") or (sys.argv[2] if len(sys.argv) > 2 else "")
    margs = model_args(models)
    with tempfile.TemporaryDirectory() as work:
        WORK = work
        test_roles(margs)
        test_rollout(margs)
        test_cluster_order()
        test_errors(margs)
        if os.environ.get("HEADSCOPE_KEEP_FIGURES"):
            keep = os.environ["HEADSCOPE_KEEP_FIGURES"]
            os.makedirs(keep, exist_ok=True)
            for name in os.listdir(work):
                if name.endswith((".png", ".pdf", ".svg")):
                    shutil.copy(os.path.join(work, name), keep)
    return T.summary()


if __name__ == "__main__":
    sys.exit(main())
