#!/usr/bin/env python3
"""Every role score's chance level (head_roles.chance in `headscope-cli maps --json`) equals the
score that uniform attention over each query's visible keys gets, computed here from the
definitions in core/analysis/head_roles.h with NumPy in float64: stories260K (causal, BOS) and
synthetic models without a mask, with a window, and causal with a window, each at two lengths.
usage: role_chance_test.py HEADSCOPE_CLI WORK_DIR"""
import json
import os
import subprocess
import sys

import numpy as np

TOL = 2e-6
LOCAL_WINDOW = 3


def visible(T, causal, window):
    i, j = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")
    v = np.ones((T, T), bool)
    if causal:
        v &= j <= i
    if window is not None:
        v &= np.abs(i - j) <= window
    return v


def uniform(T, causal, window):
    v = visible(T, causal, window)
    return v / v.sum(axis=1, keepdims=True), v.sum(axis=1)


def mean(xs):
    return float(np.mean(xs)) if len(xs) else None


def chance(keys, bos, causal, window, probe_tokens):
    T = len(keys)
    A, count = uniform(T, causal, window)
    after0 = range(1, T)
    informative = [i for i in range(T) if count[i] >= 2]
    out = {
        "previous": mean([A[i, i - 1] for i in after0]),
        "first": mean([A[i, 0] for i in after0]),
        "bos": mean([sum(A[i, j] for j in range(T) if keys[j] == bos) for i in after0]) if bos in keys else None,
        "self": mean([A[i, i] for i in informative]),
        "local": mean([sum(A[i, j] for j in range(T) if abs(i - j) < LOCAL_WINDOW) for i in informative]),
        "duplicate": mean([sum(A[i, j] for j in range(i) if keys[j] == keys[i])
                           for i in range(T) if keys[i] in keys[:i]]),
        "broadness": mean([1.0 for _ in informative]),
    }
    if probe_tokens:
        offset = probe_tokens % 2
        n = (probe_tokens - offset) // 2
        P, _ = uniform(probe_tokens, causal, window)
        out["induction"] = mean([P[p, p - n + 1] for p in range(offset + n, offset + 2 * n)])
    return out


def main():
    cli, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    sentences = ["Lily saw the big dog.", "Lily saw the big dog. The dog saw Lily and the dog ran to the big tree."]
    models = [(["--model", "stories260K"], 1),
              (["--d-model", "16", "--heads", "4"], None),
              (["--d-model", "16", "--heads", "4", "--window", "2"], None),
              (["--d-model", "16", "--heads", "4", "--causal", "--window", "3"], None)]
    checked = 0
    for flags, bos in models:
        for sentence in sentences:
            out = os.path.join(work, "maps.json")
            subprocess.run([cli, "maps", *flags, "--sentence", sentence, "--json", out], check=True)
            d = json.load(open(out))
            cfg, roles = d["config"], d["head_roles"]
            keys = d.get("token_ids") or d["tokens"]
            probe = len(roles["probe"]["ids"]) if roles.get("probe") else 0
            want = chance(keys, bos, cfg["causal"], cfg["window"], probe)
            for role, got in roles["chance"].items():
                if isinstance(got, list):
                    sys.exit(f"{flags}: chance.{role} differs between layers on a model with one mask")
                w = want.get(role)
                if (w is None) != (got is None) or (w is not None and abs(w - got) > TOL):
                    sys.exit(f"{' '.join(flags)}, T={len(keys)}: chance.{role} = {got}, uniform attention scores {w} "
                             f"(error {None if w is None or got is None else abs(w - got):.3g}, tolerance {TOL})")
                checked += 1
            # A label clears chance by the margin.
            margin = roles["chance_margin"]
            for l, row in enumerate(roles["label"]):
                for h, label in enumerate(row):
                    if label in roles["chance"] and label != "broadness":
                        s = roles["scores"][label][l][h]
                        if s < roles["chance"][label] + margin - 1e-6:
                            sys.exit(f"L{l} h{h} labelled {label} at {s}, under chance {roles['chance'][label]} + {margin}")
    print(f"{checked} chance levels equal uniform attention's scores (NumPy, float64) within {TOL}")


if __name__ == "__main__":
    main()
