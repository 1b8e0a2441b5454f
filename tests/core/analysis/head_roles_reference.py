#!/usr/bin/python3
"""Oracle for the head role scores (core/analysis/head_roles.h), checked live.

Every score is recomputed here in numpy from its definition, on maps made independently:
stories260K's maps from the PyTorch llama2.c reference (tests/core/pretrained/llama2c_reference.py,
float64) on the token ids headscope reports, the induction score from the same reference run on
the probe ids headscope reports (which must be BOS, n distinct ids, the same n ids again); and a
synthetic causal windowed layer's scores from the maps headscope writes (masks and visible keys).

usage: head_roles_reference.py HEADSCOPE_CLI MODELS_DIR
exit 0: match; 1: mismatch (the head, the role and the error are printed).
"""
import json
import math
import os
import subprocess
import sys

try:
    import numpy as np
    import torch
except ImportError as e:
    print("SKIP: %s (install python3-torch and python3-numpy)" % e)
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pretrained"))
import llama2c_reference as ref  # noqa: E402

TOL = 1e-4
ROLES = ["previous", "first", "bos", "self", "local", "duplicate", "induction", "broadness"]


def visible(i, T, causal, window):
    lo, hi = 0, T - 1
    if causal:
        hi = min(hi, i)
    if window is not None and window >= 0:
        lo, hi = max(lo, i - window), min(hi, i + window)
    return max(0, hi - lo + 1)


def scores(A, ids, bos, causal, window, w_local):
    """The definitions, written out again: A [T, T] float64, ids [T] (equal ids = same token)."""
    T = A.shape[0]
    after0 = range(1, T)
    informative = [i for i in range(T) if visible(i, T, causal, window) >= 2]
    out = {}
    out["previous"] = np.mean([A[i, i - 1] for i in after0]) if T > 1 else None
    out["first"] = np.mean([A[i, 0] for i in after0]) if T > 1 else None
    bos_cols = [j for j in range(T) if bos is not None and ids[j] == bos]
    out["bos"] = np.mean([A[i, bos_cols].sum() for i in after0]) if bos_cols and T > 1 else None
    out["self"] = np.mean([A[i, i] for i in informative]) if informative else None
    out["local"] = np.mean([sum(A[i, j] for j in range(T) if abs(i - j) < w_local) for i in informative]) if informative else None
    dup = []
    for i in range(T):
        earlier = [j for j in range(i) if ids[j] == ids[i]]
        if earlier:
            dup.append(A[i, earlier].sum())
    out["duplicate"] = np.mean(dup) if dup else None
    ent = []
    for i in informative:
        p = A[i][A[i] > 0]
        ent.append(min(1.0, max(0.0, float(-(p * np.log(p)).sum()) / math.log(visible(i, T, causal, window)))))
    out["broadness"] = np.mean(ent) if ent else None
    return out


def compare(name, got, want_by_head, roles):
    worst, where, ok = 0.0, None, True
    for (l, h), want in want_by_head.items():
        for r in roles:
            g = got["scores"][r][l][h]
            w = want[r]
            if (g is None) != (w is None):
                print("%s: layer %d head %d %s is %s, reference %s" % (name, l, h, r, g, w))
                ok = False
                continue
            if g is None:
                continue
            err = abs(g - float(w))
            if err > worst:
                worst, where = err, (l, h, r)
    if worst > TOL:
        print("%s: layer %d head %d %s differs by %.3g (tolerance %g)" % (name, where[0], where[1], where[2], worst, TOL))
        ok = False
    print("%s: %d heads x %d roles, max score error %.3g%s" % (name, len(want_by_head), len(roles), worst, "" if ok else "  FAILED"))
    return ok


def stories(cli, models):
    model = os.path.join(models, "stories260K", "stories260K.bin")
    tok = os.path.join(models, "stories260K", "tok512.bin")
    if not (os.path.isfile(model) and os.path.isfile(tok)):
        print("SKIP stories260K: %s not found (set HEADSCOPE_MODELS_DIR)" % model)
        return True
    cfg, w = ref.load_checkpoint(model)
    sentence = "Lily and Tom went to the park. Lily saw a big red ball and Lily said the ball was red."
    got = json.loads(subprocess.run([cli, "maps", "--model", model, "--tokenizer", tok, "--sentence", sentence, "--json", "-"],
                                    check=True, stdout=subprocess.PIPE).stdout)
    roles = got["head_roles"]
    ids = got["token_ids"]
    maps, _ = ref.forward(cfg, w, ids)
    want = {}
    for l in range(cfg["n_layers"]):
        for h in range(cfg["n_heads"]):
            want[(l, h)] = scores(maps[l][h].numpy(), ids, 1, True, None, roles["local_window"])
    ok = compare("stories260K sentence", roles, want, [r for r in ROLES if r != "induction"])
    # The probe: [BOS] r r with n distinct ids, then the reference's own maps of it.
    probe = roles["probe"]
    p, n = probe["ids"], probe["length"]
    if len(p) != 1 + 2 * n or p[0] != 1 or p[1:1 + n] != p[1 + n:] or len(set(p[1:1 + n])) != n or 1 in p[1:]:
        print("probe ids are not [BOS] + n distinct ids twice: %s" % p)
        return False
    pmaps, _ = ref.forward(cfg, w, p)
    want = {}
    for l in range(cfg["n_layers"]):
        for h in range(cfg["n_heads"]):
            A = pmaps[l][h].numpy()
            want[(l, h)] = {"induction": np.mean([A[q, q - n + 1] for q in range(1 + n, 1 + 2 * n)])}
    ok = compare("stories260K induction probe", roles, want, ["induction"]) and ok
    best = max(want, key=lambda k: want[k]["induction"])
    print("  strongest induction head: layer %d head %d (%.3f)" % (best[0], best[1], want[best]["induction"]))
    return ok


def synthetic(cli):
    sentence = "the cat saw the dog and the cat ran to the dog"
    got = json.loads(subprocess.run([cli, "maps", "--sentence", sentence, "--d-model", "16", "--heads", "4", "--causal",
                                     "--window", "3", "--seed", "5", "--json", "-"], check=True, stdout=subprocess.PIPE).stdout)
    roles = got["head_roles"]
    tokens = got["tokens"]
    keys = {t: i for i, t in reversed(list(enumerate(tokens)))}
    ids = [keys[t] for t in tokens]
    want = {}
    for h in range(4):
        A = np.array(got["attention"][0][h], dtype=np.float64)
        want[(0, h)] = scores(A, ids, None, True, 3, roles["local_window"])
    ok = compare("synthetic causal window 3", roles, want, [r for r in ROLES if r != "induction"])
    if roles["probe"] is None or len(roles["probe"]["ids"]) != 64:
        print("synthetic: expected a probe of 2 x 32 ids (no BOS), got %s" % roles["probe"])
        ok = False
    return ok


def main():
    cli, models = sys.argv[1], os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[2]
    torch.set_grad_enabled(False)
    ok = synthetic(cli)
    ok = stories(cli, models) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
