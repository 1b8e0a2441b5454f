#!/usr/bin/python3
"""One vocabulary for views, and --layer meaning the same in every data format (issue 36,
findings 4 and 5).

- Every app view name (heads, head, query, difference, average, width, roles, ablation) is an
  `export --view` name: each exports to .png .svg .pdf .npy .csv .json on the synthetic layer and
  on stories260K, or refuses with one clear "error:" line where the view cannot be made (ablation
  of the synthetic layer: no next-token loss).
- The older names stay (heatmap, distance, sweep, rollout, overview) and equal the new ones where
  they alias them (heads = heatmap, average --rollout = rollout, heads --all-layers = overview);
  with HEADSCOPE_OLD_CLI set to a build from before, their bytes equal that build's.
- The numbers: query = the chosen rows summed, average = the mean over heads, width = the singular
  values, roles without --role = every role, ablation = `ablate --json`'s delta_loss.
- --layer L: .npy [1, H, T, T], .json "layers": [L] with that layer's maps, .csv that layer, the same
  numbers; no --layer: every layer (as the contract says); --all-layers: every layer.
- The tidy CSV loads with Python's csv module as one table, header
  layer,head,query,key,query_token,key_token,weight, tokens with commas and quotes intact.

Usage: views_cli.py PATH/TO/headscope-cli MODELS_DIR   (Debian's /usr/bin/python3: numpy)
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from cli_checks import Checks  # noqa: E402

T = Checks()
check, ok, error = T.check, T.ok, T.error
WORK = None
APP_VIEWS = []  # the app's tabs that export writes, read from `export --help` (the view registry) in main
FORMATS = ["png", "svg", "pdf", "npy", "csv", "json"]
ROLES = ["previous", "first", "bos", "self", "local", "duplicate", "induction", "broadness"]
TIDY_HEADER = ["layer", "head", "query", "key", "query_token", "key_token", "weight"]
SVG = "{http://www.w3.org/2000/svg}"
# Commas and quotes in tokens: the synthetic tokenizer keeps punctuation as tokens of its own.
SYNTHETIC = ["--sentence", 'the cat , said "hi" to the dog , and the cat ran', "--d-model", "16", "--heads", "4",
             "--causal"]


def stories_args(models):
    model = os.path.join(models, "stories260K", "stories260K.bin")
    if not os.path.isfile(model):
        return None
    return ["--model", model, "--tokenizer", os.path.join(models, "stories260K", "tok512.bin"), "--sentence",
            'Once upon a time, there was a little girl named "Lily". She saw a big red ball.']


def out(name):
    return os.path.join(WORK, name)


def export(args, name, label=None):
    path = out(name)
    return path if ok(label or f"export {name}", ["export"] + args + ["--out", path]) is not None else None


def read(path):
    with open(path, "rb") as f:
        return f.read()


def content(path):
    """The file's bytes, a PDF's creation time (to the second) left out."""
    return re.sub(rb"/CreationDate \(D:[0-9Z+'-]*\)", b"", read(path))


def maps_json(margs):
    return json.loads(ok("maps --json", ["maps"] + margs + ["--json", "-"]))


def check_file(path, fmt, label):
    data = read(path)
    if fmt == "png":
        check(data[:8] == b"\x89PNG\r\n\x1a\n", f"{label}: not a PNG")
    elif fmt == "pdf":
        check(data[:5] == b"%PDF-", f"{label}: not a PDF")
    elif fmt == "svg":
        check(ET.fromstring(data).tag == SVG + "svg", f"{label}: not an SVG")
    elif fmt == "json":
        check(isinstance(json.loads(data), dict), f"{label}: not a JSON object")
    elif fmt == "npy":
        check(np.load(path).dtype == np.float32, f"{label}: not float32")
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
        check(len(rows) > 1 and len({len(r) for r in rows if r}) >= 1, f"{label}: an empty CSV")


def test_every_view(name, margs, ref, has_loss):
    """Every app view in every format: written, or (ablation without a loss) refused clearly."""
    L, H, n = len(ref["attention"]), len(ref["attention"][0]), len(ref["tokens"])
    shapes = {"heads": (L, H, n, n), "head": (n, n), "query": (L, H, n), "difference": (H, H), "average": (L, n, n),
              "width": (L, H, n), "roles": (len(ROLES), L, H), "ablation": (L, H)}
    check(sorted(shapes) == sorted(APP_VIEWS), f"every view export writes has its .npy shape here: {APP_VIEWS}")
    for view in APP_VIEWS:
        for fmt in FORMATS:
            label = f"{name} --view {view} .{fmt}"
            path = out(f"{name}_{view}.{fmt}")
            args = ["export"] + margs + ["--view", view, "--out", path]
            if view == "ablation" and not has_loss:
                error(label, args, ["loss"])
                continue
            if ok(label, args) is None:
                continue
            check_file(path, fmt, label)
            if fmt == "npy":
                got = np.load(path).shape
                check(got == shapes[view], f"{label}: shape {got}, expected {shapes[view]}")


def test_numbers(name, margs, ref, has_loss):
    A = np.array(ref["attention"], dtype=np.float32)  # [L, H, T, T]
    L, H, n = A.shape[0], A.shape[1], A.shape[2]
    heads = np.load(export(margs + ["--view", "heads"], f"{name}_n_heads.npy"))
    check(np.array_equal(heads, A), f"{name}: heads .npy differs from maps --json's attention")
    q = [1, n - 2]
    query = np.load(export(margs + ["--view", "query", "--query", f"{q[0]},{q[1]}"], f"{name}_q.npy"))
    check(np.allclose(query, A[:, :, q[0], :] + A[:, :, q[1], :], atol=1e-6), f"{name}: query != the rows summed")
    last = np.load(export(margs + ["--view", "query"], f"{name}_qlast.npy"))
    check(np.allclose(last, A[:, :, n - 1, :], atol=1e-6), f"{name}: query without --query != the last token's row")
    avg = np.load(export(margs + ["--view", "average"], f"{name}_avg.npy"))
    check(np.allclose(avg, A.mean(axis=1), atol=1e-5), f"{name}: average != the mean over heads")
    sv = np.load(export(margs + ["--view", "width"], f"{name}_sv.npy"))
    check(np.all(np.diff(sv, axis=2) <= 1e-5) and np.all(sv >= 0), f"{name}: singular values not descending, >= 0")
    roles = np.load(export(margs + ["--view", "roles"], f"{name}_roles.npy"))
    for r, role in enumerate(ROLES):
        want = np.array([[np.nan if v is None else v for v in row] for row in ref["head_roles"]["scores"][role]],
                        dtype=np.float32)
        check(np.allclose(roles[r], want, equal_nan=True), f"{name}: roles .npy [{role}] != maps --json's scores")
    # roles without --role draws every role and every head
    svg = export(margs + ["--view", "roles"], f"{name}_roles.svg")
    texts = [t.text or "" for t in ET.parse(svg).getroot().iter(SVG + "text")]
    missing = [r for r in ROLES if r not in texts]
    check(not missing, f"{name}: the roles figure lacks the roles {missing}")
    rows = [t for t in texts if t.startswith(f"L{L - 1} h{H - 1}")]
    check(len(rows) == 1, f"{name}: the roles figure has no row for L{L - 1} h{H - 1}: {texts[:40]}")
    if has_loss:
        abl = np.load(export(margs + ["--view", "ablation"], f"{name}_abl.npy"))
        want = json.loads(ok("ablate --json", ["ablate"] + margs + ["--json", "-"]))["delta_loss"]
        check(np.allclose(abl, np.array(want, dtype=np.float32), atol=1e-6), f"{name}: ablation .npy != ablate --json")
        j = json.loads(read(export(margs + ["--view", "ablation"], f"{name}_abl.json")))
        check(np.allclose(np.array(j["head_ablation"]["delta_loss"], dtype=np.float32), abl, atol=1e-6),
              f"{name}: ablation .json's head_ablation != its .npy")


def tidy_table(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def test_layer(name, margs, ref, layer):
    """--layer L: that layer alone, the same numbers, in .npy, .json and .csv."""
    A = np.array(ref["attention"], dtype=np.float32)
    L, H, n = A.shape[0], A.shape[1], A.shape[2]
    args = margs + ["--layer", str(layer)]
    a = np.load(export(args, f"{name}_L.npy"))
    check(a.shape == (1, H, n, n), f"{name} --layer {layer} .npy: shape {a.shape}, expected (1, {H}, {n}, {n})")
    j = json.loads(read(export(args, f"{name}_L.json")))
    check(j.get("layers") == [layer], f"{name} --layer {layer} .json: layers {j.get('layers')}")
    ja = np.array(j["attention"], dtype=np.float32)
    check(ja.shape == (1, H, n, n), f"{name} --layer {layer} .json: attention shape {ja.shape}")
    check(len(j["head_difference"]) == 1, f"{name} --layer .json: head_difference of {len(j['head_difference'])} layers")
    header, rows = tidy_table(export(args, f"{name}_L.csv"))
    check(header == TIDY_HEADER, f"{name} --layer .csv header {header}")
    check(all(len(r) == len(TIDY_HEADER) for r in rows), f"{name} --layer .csv: rows of other lengths")
    check(len(rows) == H * n * n, f"{name} --layer .csv: {len(rows)} rows, expected {H * n * n}")
    check({r[0] for r in rows} == {str(layer)}, f"{name} --layer .csv: layers {sorted({r[0] for r in rows})[:5]}")
    c = np.zeros((1, H, n, n), dtype=np.float32)
    for r in rows:
        c[0, int(r[1]), int(r[2]), int(r[3])] = float(r[6])
        if r[4] != ref["tokens"][int(r[2])] or r[5] != ref["tokens"][int(r[3])]:
            check(False, f"{name} .csv: tokens {r[4]!r}, {r[5]!r} at {r[2]}, {r[3]} are not the input's")
            break
    check(np.array_equal(a, ja) and np.array_equal(a, c), f"{name} --layer: .npy, .json and .csv differ")
    check(np.array_equal(a[0], A[layer]), f"{name} --layer: not layer {layer}'s maps")
    # no --layer, and --all-layers: every layer in each format
    for flag in ([], ["--all-layers"]):
        every = np.load(export(margs + flag, f"{name}_all.npy"))
        check(every.shape == (L, H, n, n), f"{name} {flag} .npy shape {every.shape}")
        header, rows = tidy_table(export(margs + flag, f"{name}_all.csv"))
        check(header == TIDY_HEADER and len(rows) == L * H * n * n, f"{name} {flag} .csv: {len(rows)} rows")
        j = json.loads(read(export(margs + flag, f"{name}_all.json")))
        check("layers" not in j and len(j["attention"]) == L, f"{name} {flag} .json: not every layer")
    # the old matrix layout on request; one head keeps the contract's matrix
    text = read(export(args + ["--csv-layout", "matrix"], f"{name}_m.csv")).decode("utf-8")
    blocks = [b for b in text.split("\n\n") if b.strip()]
    check(len(blocks) == H and all(b.startswith("query\\key,") for b in blocks), f"{name} matrix layout: {len(blocks)} blocks")
    one = read(export(args + ["--head", "0"], f"{name}_h0.csv")).decode("utf-8")
    check(one.startswith("query\\key,"), f"{name} --head .csv: not the contract's matrix: {one[:40]!r}")
    # long-input mode's .json too: its block maxima and head numbers of that layer alone
    j = json.loads(read(export(args + ["--long-input"], f"{name}_L_long.json")))
    li = j["long_input"]
    check(j.get("layers") == [layer] and len(li["block_maxima"]) == 1 and len(li["head_numbers"]) == 1,
          f"{name} --long-input --layer .json: layers {j.get('layers')}, {len(li['block_maxima'])} layers of block maxima")
    # the other per-layer views follow --layer too
    for view, shape in (("query", (1, H, n)), ("average", (1, n, n)), ("width", (1, H, n))):
        got = np.load(export(args + ["--view", view], f"{name}_L_{view}.npy")).shape
        check(got == shape, f"{name} --view {view} --layer: shape {got}, expected {shape}")


def test_aliases(name, margs):
    """Older names: the new view's bytes where they alias it; the older build's bytes when given."""
    same = [(["--view", "heatmap"], ["--view", "heads"], "png"),
            (["--view", "heatmap", "--head", "1"], ["--view", "head", "--head", "1"], "svg"),
            (["--view", "heatmap"], ["--view", "head"], None),
            (["--view", "rollout"], ["--view", "average", "--rollout"], "png"),
            (["--view", "overview"], ["--view", "heads", "--all-layers"], "png")]
    for old, new, fmt in same:
        if fmt is None:  # heatmap without --head is the grid, head alone is head 0: they must differ
            a = read(export(margs + old, f"{name}_a.png"))
            b = read(export(margs + new, f"{name}_b.png"))
            check(a != b, f"{name}: --view head drew the grid")
            continue
        a = read(export(margs + old, f"{name}_a.{fmt}"))
        b = read(export(margs + new, f"{name}_b.{fmt}"))
        check(a == b, f"{name}: {' '.join(old)} and {' '.join(new)} differ as .{fmt}")
    old_cli = os.environ.get("HEADSCOPE_OLD_CLI")
    if not old_cli:
        print("note: HEADSCOPE_OLD_CLI not set; the older names are compared with the new ones only")
        return
    cases = [["--view", "heatmap"], ["--view", "heatmap", "--head", "1"], ["--view", "difference"],
             ["--view", "distance"], ["--view", "rollout"], ["--view", "overview"], ["--view", "roles", "--role", "self"]]
    for args in cases:
        # Maps without --head are a tidy CSV now (finding 5); one head keeps the contract's matrix.
        grid = ("heatmap" in args or "overview" in args) and "--head" not in args
        for fmt in ("png", "svg", "pdf", "npy", "json") + (() if grid else ("csv",)):
            new = out(f"{name}_new.{fmt}")
            old = out(f"{name}_old.{fmt}")
            ok(f"new {args} .{fmt}", ["export"] + margs + args + ["--out", new])
            p = subprocess.run([old_cli, "export"] + margs + args + ["--out", old], capture_output=True)
            if p.returncode != 0:
                continue
            check(content(new) == content(old), f"{name}: {' '.join(args)} .{fmt} differs from the older build")


def test_refusals(margs):
    x = out("x.png")
    error("unknown view", ["export"] + margs + ["--view", "gird", "--out", x], ["gird", "did you mean grid", "heads", "ablation", "heatmap"])
    ok("grid is an older name of heads", ["export"] + margs + ["--view", "grid", "--out", x])
    error("the contrast view is compare's", ["export"] + margs + ["--view", "contrast", "--out", x], ["compare", "--contrast"])
    error("--head with heads", ["export"] + margs + ["--view", "heads", "--head", "1", "--out", x], ["--head", "--view head"])
    error("--query out of range", ["export"] + margs + ["--view", "query", "--query", "999", "--out", x], ["999", "out of range"])
    error("--query not a number", ["export"] + margs + ["--view", "query", "--query", "a,b", "--out", x], ["--query"])
    error("--query with heads", ["export"] + margs + ["--query", "1", "--out", x], ["--query", "--view query"])
    error("--layer and --all-layers", ["export"] + margs + ["--layer", "0", "--all-layers", "--out", out("x.npy")],
          ["--all-layers"])
    error("--all-layers with a query figure", ["export"] + margs + ["--view", "query", "--all-layers", "--out", x],
          ["--all-layers"])
    error("--rollout with heads", ["export"] + margs + ["--rollout", "--out", x], ["--rollout"])
    long = ["--sentence", " ".join(f"w{i}" for i in range(1600)), "--d-model", "16", "--heads", "8"]
    error("a tidy CSV past 20 million rows", ["export"] + long + ["--out", out("big.csv")], ["rows", "--head"])
    error("bad --csv-layout", ["export"] + margs + ["--csv-layout", "wide", "--out", out("x.csv")], ["wide", "tidy"])


def app_views(text):
    """The app's tabs `export --view` writes, from its help (the view registry): the lines under
    "Views (the app's tabs):" up to the parts, but the contrast (compare --out writes it)."""
    tabs = text.split("Views (the app's tabs):", 1)[-1].split("Parts of a tab:", 1)[0]
    return [n for n in re.findall(r"^\s+([a-z]+): ", tabs, re.M) if n != "contrast"]


def test_help():
    text = ok("export --help", ["export", "--help"]) or ""
    APP_VIEWS[:] = app_views(text)
    check(len(APP_VIEWS) >= 8, f"export --help lists the app's views: {APP_VIEWS}")
    for name in APP_VIEWS + ["heatmap", "distance", "sweep", "rollout", "overview"]:
        check(f"{name}:" in text, f"export --help does not list the view {name}")
    check("weight 0" in text, "export --help does not say masked cells have weight 0 in the tidy CSV")


def section(fn, *args):
    """Runs one group of checks; an export that failed (already counted) ends the group."""
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001 - a missing file after a failed export
        T.fail(f"{fn.__name__}{tuple(a for a in args if isinstance(a, str))}: stopped: {type(e).__name__}: {e}")


def main():
    global WORK
    T.cli = sys.argv[1]
    models = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..", "build", "test-models")
    WORK = tempfile.mkdtemp(prefix="headscope_views_")
    try:
        section(test_help)
        ref = maps_json(SYNTHETIC)
        for fn in (test_every_view, test_numbers):
            section(fn, "synthetic", SYNTHETIC, ref, False)
        section(test_layer, "synthetic", SYNTHETIC, ref, 0)
        section(test_aliases, "synthetic", SYNTHETIC)
        section(test_refusals, SYNTHETIC)
        stories = stories_args(models)
        if stories is None:
            print("SKIP the stories260K checks: stories260K not found in " + models)
        else:
            ref = maps_json(stories)
            for fn in (test_every_view, test_numbers):
                section(fn, "stories", stories, ref, True)
            section(test_layer, "stories", stories, ref, 1)
            section(test_aliases, "stories", stories)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    return T.summary()


if __name__ == "__main__":
    sys.exit(main())
