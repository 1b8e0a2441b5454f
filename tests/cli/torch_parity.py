#!/usr/bin/python3
"""PyTorch parity oracle for `headscope-cli maps --weights W --input X`.

Builds random nn.MultiheadAttention layers (several shapes: one head, 1-wide heads, T = 1, long
T, non-zero random biases), saves each state_dict as .safetensors (written by hand: the format is
8 bytes of little-endian header length, a JSON header, then the raw tensor bytes) and the input as
.npy, runs the CLI and requires

  max |attention - torch's m(x, x, x, need_weights=True, average_attn_weights=False)| <= 1e-5
  max |output    - torch's output|                                                   <= 1e-5

plus head_difference against numpy, param_count = 4 d^2 + 4 d, the contract's config keys, and
`--repeat 3` adding timing.compute_ms_median. Masked cases (--causal, --window) are compared with
torch called with the equivalent boolean attn_mask.

Usage: torch_parity.py PATH/TO/headscope-cli [WORKDIR]
Run with Debian's /usr/bin/python3 (python3-torch, python3-numpy).
"""
import json
import shutil
import math
import os
import struct
import subprocess
import sys
import tempfile

try:
    import numpy as np
    import torch
except ImportError as e:  # a real failure: CI installs python3-torch
    print(f"FAIL: the parity oracle needs PyTorch and NumPy ({e}); install: apt-get install python3-torch python3-numpy")
    sys.exit(1)

TOL = 1e-5
failures = []
worst = {"attention": 0.0, "output": 0.0, "head_difference": 0.0, "head_distance": 0.0}


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def write_safetensors(path, tensors):
    """tensors: {name: float32 numpy array}. Offsets are relative to the end of the header."""
    header, blobs, offset = {}, [], 0
    for name, arr in tensors.items():
        data = np.ascontiguousarray(arr, dtype="<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def run_cli(cli, args):
    p = subprocess.run([cli] + args, capture_output=True, timeout=300)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def max_cell(ours, ref):
    """(max |diff|, index of the worst cell)."""
    d = np.abs(ours.astype(np.float64) - ref.astype(np.float64))
    idx = np.unravel_index(int(np.argmax(d)), d.shape)
    return float(d[idx]), tuple(int(i) for i in idx)


def torch_mask(T, causal, window):
    """Boolean attn_mask for torch: True = not allowed. Mirrors the engine's key_visible():
    causal hides j > i; a window W hides |i - j| > W (only keys behind remain with causal)."""
    if not causal and window is None:
        return None
    i = torch.arange(T).unsqueeze(1)
    j = torch.arange(T).unsqueeze(0)
    hidden = torch.zeros(T, T, dtype=torch.bool)
    if causal:
        hidden |= j > i
    if window is not None:
        hidden |= (i - j).abs() > window
    return hidden


def check_case(cli, work, idx, d, H, T, causal=False, window=None, scale=1.0, bias=True):
    failures_before = len(failures)
    name = f"case {idx}: d_model={d} heads={H} d_head={d // H} T={T}" + (" causal" if causal else "") + (
        f" window={window}" if window is not None else "") + (f" input_scale={scale}" if scale != 1.0 else "") + (
        "" if bias else " bias=False")
    torch.manual_seed(1000 + idx)
    m = torch.nn.MultiheadAttention(d, H, batch_first=True, bias=bias)
    if bias:
        with torch.no_grad():
            m.in_proj_bias.uniform_(-0.5, 0.5)   # torch initialises biases to 0; make them count
            m.out_proj.bias.uniform_(-0.5, 0.5)
    # Left in its default (training) mode, as the contract calls it; dropout is 0. (torch 1.13's
    # eval-mode fast path also crashes on bias=False layers.)
    x = torch.randn(1, T, d) * scale
    with torch.no_grad():
        out, att = m(x, x, x, need_weights=True, average_attn_weights=False, attn_mask=torch_mask(T, causal, window))
    ref_att = att[0].numpy()   # [H, T, T]
    ref_out = out[0].numpy()   # [T, d]

    sd = {k: v.detach().numpy() for k, v in m.state_dict().items()}
    wpath = os.path.join(work, f"mha_{idx}.safetensors")
    xpath = os.path.join(work, f"x_{idx}.npy")
    write_safetensors(wpath, sd)
    np.save(xpath, x[0].numpy().astype(np.float32))

    args = ["maps", "--weights", wpath, "--input", xpath, "--heads", str(H), "--json", "-"]
    if causal:
        args.append("--causal")
    if window is not None:
        args += ["--window", str(window)]
    rc, out_bytes, err = run_cli(cli, args)
    if rc != 0:
        fail(f"{name}: headscope-cli exited {rc}: {err.strip()}")
        return
    try:
        j = json.loads(out_bytes)
    except ValueError as e:
        fail(f"{name}: output is not JSON ({e})")
        return

    for key in ("tokens", "config", "param_count", "attention", "head_difference", "output"):
        if key not in j:
            fail(f"{name}: JSON has no '{key}' key")
            return
    if "timing" in j:
        fail(f"{name}: 'timing' present without --repeat")
    cfg = j["config"]
    want_cfg = {"d_model": d, "n_heads": H, "n_kv_heads": H, "d_head": d // H, "n_layers": 1, "causal": causal}
    for k, v in want_cfg.items():
        if cfg.get(k) != v or (k == "causal" and not isinstance(cfg.get(k), bool)):
            fail(f"{name}: config['{k}'] = {cfg.get(k)!r}; expected {v!r}")
    want_params = sum(p.numel() for p in m.parameters())  # torch's own count: 4 d^2 (+ 4 d with biases)
    if j["param_count"] != want_params or want_params != 4 * d * d + (4 * d if bias else 0):
        fail(f"{name}: param_count {j['param_count']}; torch counts {want_params}")
    if j["tokens"] != [str(t) for t in range(T)]:
        fail(f"{name}: tokens {j['tokens'][:5]}...; expected '0', '1', ... ({T} of them)")

    ours_att = np.array(j["attention"], dtype=np.float64)
    if ours_att.shape != (1, H, T, T):
        fail(f"{name}: attention has shape {ours_att.shape}; expected (1, {H}, {T}, {T})")
        return
    err_att, (h, q, k) = max_cell(ours_att[0], ref_att)
    worst["attention"] = max(worst["attention"], err_att)
    if not err_att <= TOL:
        fail(f"{name}: attention differs from torch at head {h}, query {q}, key {k}: ours {ours_att[0][h][q][k]:.9g}, "
             f"torch {ref_att[h][q][k]:.9g}, |diff| {err_att:.3g} > {TOL}")
    row_err = float(np.max(np.abs(ours_att.sum(axis=-1) - 1.0)))
    if not row_err <= 1e-5:
        fail(f"{name}: attention rows do not sum to 1 (max |sum - 1| = {row_err:.3g})")
    mask = torch_mask(T, causal, window)
    if mask is not None:
        masked = ours_att[0][:, mask.numpy()]
        if masked.size and np.any(masked != 0.0):
            fail(f"{name}: a masked attention entry is not exactly 0 (max {np.max(np.abs(masked)):.3g})")

    ours_out = np.array(j["output"], dtype=np.float64)
    err_out = float("nan")
    if ours_out.shape != (T, d):
        fail(f"{name}: output has shape {ours_out.shape}; expected ({T}, {d})")
    else:
        err_out, (t, c) = max_cell(ours_out, ref_out)
        worst["output"] = max(worst["output"], err_out)
        if not err_out <= TOL:
            fail(f"{name}: output differs from torch at token {t}, feature {c}: ours {ours_out[t][c]:.9g}, "
                 f"torch {ref_out[t][c]:.9g}, |diff| {err_out:.3g} > {TOL}")

    # head_difference[l][a][b] = mean over all T*T cells of |A_a - A_b|, from our own maps.
    A = ours_att[0]
    ref_diff = np.abs(A[:, None, :, :] - A[None, :, :, :]).mean(axis=(2, 3))
    ours_diff = np.array(j["head_difference"], dtype=np.float64)
    if ours_diff.shape != (1, H, H):
        fail(f"{name}: head_difference has shape {ours_diff.shape}; expected (1, {H}, {H})")
    else:
        err_diff, (a, b) = max_cell(ours_diff[0], ref_diff)
        worst["head_difference"] = max(worst["head_difference"], err_diff)
        if not err_diff <= 1e-6:
            fail(f"{name}: head_difference[{a}][{b}] = {ours_diff[0][a][b]:.9g}; numpy says {ref_diff[a][b]:.9g} "
                 f"(|diff| {err_diff:.3g})")
        if np.any(np.diag(ours_diff[0]) != 0.0) or np.any(ours_diff[0] != ours_diff[0].T):
            fail(f"{name}: head_difference is not symmetric with a zero diagonal")

    # head_distance[l][a][b] = mean over queries of 0.5 * sum_k |A_a - A_b| (total variation), from torch's maps.
    ref_dist = 0.5 * np.abs(ref_att[:, None, :, :] - ref_att[None, :, :, :]).sum(axis=3).mean(axis=2)
    ours_dist = np.array(j.get("head_distance", []), dtype=np.float64)
    if ours_dist.shape != (1, H, H):
        fail(f"{name}: head_distance has shape {ours_dist.shape}; expected (1, {H}, {H})")
    else:
        err_dist, (a, b) = max_cell(ours_dist[0], ref_dist)
        worst["head_distance"] = max(worst["head_distance"], err_dist)
        if not err_dist <= TOL:
            fail(f"{name}: head_distance[{a}][{b}] = {ours_dist[0][a][b]:.9g}; torch's maps give {ref_dist[a][b]:.9g} "
                 f"(|diff| {err_dist:.3g})")

    print(f"{'ok  ' if len(failures) == failures_before else 'FAIL'} {name}: max |diff| attention {err_att:.2e}, output {err_out:.2e}")
    return wpath, xpath


def check_repeat_and_threads(cli, wpath, xpath, H):
    rc, out, err = run_cli(cli, ["maps", "--weights", wpath, "--input", xpath, "--heads", str(H), "--json", "-",
                                 "--repeat", "3"])
    if rc != 0:
        fail(f"--repeat 3: exited {rc}: {err.strip()}")
        return
    j = json.loads(out)
    ms = j.get("timing", {}).get("compute_ms_median")
    if not isinstance(ms, (int, float)) or not math.isfinite(ms) or ms < 0:
        fail(f"--repeat 3: timing.compute_ms_median is {ms!r}; expected a non-negative number")
    else:
        print(f"ok   --repeat 3 adds timing.compute_ms_median = {ms}")
    # One thread and all threads compute the same numbers.
    rc1, out1, err1 = run_cli(cli, ["maps", "--weights", wpath, "--input", xpath, "--heads", str(H), "--json", "-",
                                    "--threads", "1"])
    rc2, out2, _ = run_cli(cli, ["maps", "--weights", wpath, "--input", xpath, "--heads", str(H), "--json", "-"])
    if rc1 != 0 or rc2 != 0:
        fail(f"--threads 1: exited {rc1}: {err1.strip()}")
    elif json.loads(out1)["attention"] != json.loads(out2)["attention"]:
        fail("--threads 1 and the default thread count give different attention maps")
    else:
        print("ok   --threads 1 gives the same maps as all threads")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    cli = sys.argv[1]
    torch.set_num_threads(1)
    shapes = [
        # (d_model, heads, T)
        (8, 2, 5),
        (8, 8, 7),     # d_head = 1
        (6, 1, 4),     # one head
        (1, 1, 3),     # d_model = 1
        (16, 4, 1),    # T = 1
        (12, 3, 9),
        (32, 4, 64),   # long T
        (64, 16, 33),  # many heads of width 4
    ]
    work = tempfile.mkdtemp(prefix="hs_parity_", dir=sys.argv[2] if len(sys.argv) > 2 else None)
    first = None
    for idx, (d, H, T) in enumerate(shapes):
        r = check_case(cli, work, idx, d, H, T)
        if first is None and r and H > 1:
            first = (r, H)
    base = len(shapes)
    check_case(cli, work, base + 0, 8, 2, 6, causal=True)
    check_case(cli, work, base + 1, 8, 4, 10, window=2)
    check_case(cli, work, base + 2, 12, 3, 12, causal=True, window=3)
    check_case(cli, work, base + 3, 8, 8, 9, causal=True, window=0)
    check_case(cli, work, base + 4, 16, 2, 20, scale=4.0)  # large scores: near one-hot rows
    check_case(cli, work, base + 5, 8, 2, 6, bias=False)   # state_dict without bias tensors
    if first:
        check_repeat_and_threads(cli, first[0][0], first[0][1], first[1])
    shutil.rmtree(work, ignore_errors=True)
    print(f"max |diff| over all cases: attention {worst['attention']:.3g}, output {worst['output']:.3g}, "
          f"head_difference {worst['head_difference']:.3g} (tolerance {TOL})")
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
