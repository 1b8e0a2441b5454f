#!/usr/bin/python3
"""Oracle for reachable keys (core/analysis/reachable_keys.h): `maps --json`'s "reachable_keys"
against SciPy's own hull computations on the same key vectors, computed here independently:
  * synthetic layers of width 1, 2, 4 and 8 (d_model 8; nn.MultiheadAttention weights written as
    .safetensors and an input .npy, so numpy computes the keys K = X W_k^T + b_k itself), on 12
    tokens (T > d_head), on 9 tokens at width 8 (d_head >= T - 1: every key), and with repeated input
    rows (identical keys: every copy of a vertex is listed);
  * stories260K: the keys of every layer after RoPE, from the PyTorch llama2.c reference.
A key is reachable when it is not in the convex hull of the other distinct keys: decided by
scipy.optimize.linprog (HiGHS) as the feasibility of k_j = sum_i l_i k_i, l >= 0, sum l = 1, and
checked against scipy.spatial.ConvexHull (Qhull) wherever the keys span their space (T >= d + 2).
Keys are the same point within 1e-6 of the keys' L1 radius, as in the C++ code (the test data has
no key near that line: the L1 margin of every key is checked to be far from it).

usage: reachable_keys_reference.py HEADSCOPE_CLI MODELS_DIR
exit 0: match; 1: mismatch (the layer, head and keys are printed); 77: no numpy/scipy (skip).
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

try:
    import numpy as np
    from scipy.optimize import linprog
    from scipy.spatial import ConvexHull
except ImportError as e:
    print("SKIP: %s (install python3-numpy and python3-scipy)" % e)
    sys.exit(77)

SAME = 1e-6  # share of the L1 radius under which two keys are one point
failures = []


def write_safetensors(path, tensors):
    header, blobs, offset = {}, [], 0
    for name, arr in tensors.items():
        data = np.ascontiguousarray(arr, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))


def in_hull(others, p):
    """linprog: is p a convex combination of the rows of others?"""
    n = others.shape[0]
    a_eq = np.vstack([others.T, np.ones((1, n))])
    b_eq = np.concatenate([p, [1.0]])
    r = linprog(np.zeros(n), A_eq=a_eq, b_eq=b_eq, bounds=[(0, None)] * n, method="highs")
    return r.status == 0


def l1_margin(others, p):
    """max t s.t. q . (p - x_i) >= t, |q|_inf <= 1: the L1 distance from p to the hull (LP duality)."""
    n, d = others.shape
    c = np.zeros(d + 1)
    c[-1] = -1.0  # maximise t
    a_ub = np.hstack([-(p - others), np.ones((n, 1))])  # t - q.(p - x_i) <= 0
    r = linprog(c, A_ub=a_ub, b_ub=np.zeros(n), bounds=[(-1, 1)] * d + [(None, None)], method="highs")
    return -r.fun


def reachable(keys):
    """Sorted indices of the keys outside the hull of the other distinct keys."""
    k = keys.astype(np.float64)
    k = k - k.mean(0)
    radius = np.abs(k).sum(1).max()
    if radius == 0:
        return list(range(len(k))), []
    k = k / radius
    out, margins = [], []
    for j in range(len(k)):
        others = k[np.abs(k - k[j]).sum(1) > SAME]
        if len(others) == 0 or not in_hull(others, k[j]):
            out.append(j)
        if len(others):
            margins.append(l1_margin(others, k[j]))
    return out, margins


def qhull_vertices(keys):
    """Qhull's vertices (with every copy of a vertex), or None when the keys do not span R^d."""
    k = keys.astype(np.float64)
    T, d = k.shape
    if d < 2 or T < d + 2 or np.linalg.matrix_rank(k - k.mean(0)) < d:
        return None
    v = set(ConvexHull(k).vertices.tolist())
    return sorted(j for j in range(T) if any(np.abs(k[j] - k[i]).sum() == 0 for i in v))


def check_head(name, keys, got):
    want, margins = reachable(keys)
    near = [m for m in margins if SAME / 100 < abs(m) < SAME * 100]
    if near:
        failures.append("%s: a key lies within 100x of the tolerance of the others' hull (margin %g): the data is "
                        "ambiguous" % (name, near[0]))
    hull = qhull_vertices(keys)
    ok = got == want and (hull is None or hull == want)
    print("%s: %d of %d keys reachable, as linprog%s" % (name, len(got), len(keys), "" if hull is None else " and Qhull")
          if ok else "%s: MISMATCH: headscope %s, linprog %s, Qhull %s" % (name, got, want, hull))
    if not ok:
        failures.append(name)


def run(cli, args):
    p = subprocess.run([cli, "maps"] + args + ["--json", "-"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        failures.append("headscope-cli %s: %s" % (" ".join(args), p.stderr.decode()))
        return None
    return json.loads(p.stdout)


def synthetic_case(cli, work, heads, T, repeat_rows=False, seed=0):
    d = 8
    dh = d // heads
    rng = np.random.default_rng(100 + heads * 10 + T + seed)
    w_in = rng.normal(0, 0.5, (3 * d, d)).astype(np.float32)
    b_in = rng.uniform(-0.5, 0.5, 3 * d).astype(np.float32)
    x = rng.normal(0, 1, (T, d)).astype(np.float32)
    if repeat_rows:
        x[5] = x[1]
        x[9] = x[3]
    wpath, xpath = os.path.join(work, "w%d_%d.safetensors" % (heads, T)), os.path.join(work, "x%d_%d.npy" % (heads, T))
    write_safetensors(wpath, {"in_proj_weight": w_in, "in_proj_bias": b_in, "out_proj.weight": np.eye(d, dtype=np.float32),
                              "out_proj.bias": np.zeros(d, np.float32)})
    np.save(xpath, x)
    got = run(cli, ["--weights", wpath, "--input", xpath, "--heads", str(heads)])
    if got is None:
        return
    # K = X W_k^T + b_k in float32, as nn.MultiheadAttention computes it; head h: columns h*dh ..
    k = x @ w_in[d:2 * d].T + b_in[d:2 * d]
    for h in range(heads):
        check_head("width %d, T %d%s, head %d" % (dh, T, ", repeated rows" if repeat_rows else "", h),
                   k[:, h * dh:(h + 1) * dh], got["reachable_keys"][0][h])


def stories_case(cli, models):
    model = os.path.join(models, "stories260K", "stories260K.bin")
    tok = os.path.join(models, "stories260K", "tok512.bin")
    try:
        import torch
    except ImportError:
        print("SKIP stories260K: no torch")
        return
    if not (os.path.isfile(model) and os.path.isfile(tok)):
        print("SKIP stories260K: %s not found" % model)
        return
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pretrained"))
    import llama2c_reference as ref
    torch.set_grad_enabled(False)
    cfg, w = ref.load_checkpoint(model)
    sentence = "Once upon a time, there was a little girl named Lily. She loved to play outside in the park."
    got = run(cli, ["--model", model, "--tokenizer", tok, "--sentence", sentence])
    if got is None:
        return
    keys = []  # the reference's rope() turns q (n = H heads) and k (n = G) in every layer: the keys kept
    rope = ref.rope

    def recording_rope(x, n, hs):
        y = rope(x, n, hs)
        if n == cfg["n_kv"]:  # the keys (the queries have n = n_heads)
            keys.append(y.numpy())
        return y

    if cfg["n_kv"] == cfg["n_heads"]:
        failures.append("stories260K: expected fewer key/value heads than query heads")
        return
    ref.rope = recording_rope
    ref.forward(cfg, w, got["token_ids"])
    ref.rope = rope
    H, G = cfg["n_heads"], cfg["n_kv"]
    hs = cfg["dim"] // H
    for l, k in enumerate(keys):
        for h in range(H):
            g = h // (H // G)
            check_head("stories260K L%d h%d (kv %d)" % (l, h, g), k[:, g * hs:(g + 1) * hs], got["reachable_keys"][l][h])


def main():
    cli, models = sys.argv[1], os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[2]
    with tempfile.TemporaryDirectory() as work:
        for heads in (8, 4, 2, 1):
            synthetic_case(cli, work, heads, 12)
        synthetic_case(cli, work, 1, 9)             # width 8 >= T - 1: every key
        synthetic_case(cli, work, 4, 12, True)      # identical keys: both copies of a vertex
    stories_case(cli, models)
    print("FAILED: %d" % len(failures) if failures else "all reachable keys match")
    for f in failures:
        print("  " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
