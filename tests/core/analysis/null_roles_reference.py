#!/usr/bin/python3
"""Oracle for headscope-cli heads --null N (core/analysis/run_analysis.h's null_head_roles).

stories260K: the random-weight models are drawn again here from their stated initialisation
(core/model/random_weights.h: SplitMix64 seeded by FNV-1a of each matrix's name, Box-Muller,
N(0, 0.02^2), norms 1, classifier tied), run through the PyTorch llama2.c reference in float64 on
the token ids and probe ids headscope reports, scored by head_roles_reference.py's definitions,
and pooled (mean; sample sd over every head of every model, and per layer). Each pooled number
must match headscope's within 1e-4.
Synthetic layer: its null models are the same layer with seeds S .. S+N-1, scored from `maps`.
Bad uses (--null with --corpus, --null 0) exit non-zero with one line naming the flag.

usage: null_roles_reference.py HEADSCOPE_CLI MODELS_DIR
"""
import json
import os
import subprocess
import sys

try:
    import numpy as np
    import torch
except ImportError as e:
    print("SKIP: %s (install python3-torch and python3-numpy)" % e)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "pretrained"))
import head_roles_reference as roles_ref  # noqa: E402
import llama2c_reference as ref  # noqa: E402

TOL = 1e-4
ROLES = roles_ref.ROLES
M64 = (1 << 64) - 1
STD = float(np.float32(0.02))  # the C++ constant is a float


def fnv_seed(name, seed):
    """core/model/rng.h's hash_text(name, seed)."""
    h = 0xCBF29CE484222325 ^ ((seed * 0x9E3779B97F4A7C15) & M64)
    for c in name.encode():
        h ^= c
        h = (h * 0x100000001B3) & M64
    return h


def normals(seed, n):
    """n draws of Rng(seed).normal(): SplitMix64 (state += gamma, then mix), Box-Muller's cosine."""
    k = np.arange(1, 2 * n + 1, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + k * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    return np.sqrt(-2.0 * np.log(1.0 - u[0::2])) * np.cos(6.283185307179586 * u[1::2])


def matrix(name, rows, cols, seed):
    m = (STD * normals(fnv_seed(name, seed), rows * cols)).astype(np.float32).astype(np.float64)
    return torch.from_numpy(m.reshape(rows, cols))


def null_weights(cfg, seed):
    d, hidden, L, H, G = cfg["dim"], cfg["hidden"], cfg["n_layers"], cfg["n_heads"], cfg["n_kv"]
    kv = G * (d // H)
    w = {"emb": matrix("embedding", cfg["vocab"], d, seed)}
    shapes = {"wq": (d, d), "wk": (kv, d), "wv": (kv, d), "wo": (d, d), "w1": (hidden, d), "w2": (d, hidden), "w3": (hidden, d)}
    for key, (r, c) in shapes.items():
        w[key] = torch.stack([matrix("layers.%d.%s" % (l, key), r, c, seed) for l in range(L)])
    w["rms_att"] = torch.ones(L, d, dtype=torch.float64)
    w["rms_ffn"] = torch.ones(L, d, dtype=torch.float64)
    w["rms_final"] = torch.ones(d, dtype=torch.float64)
    w["cls"] = w["emb"]
    return w


def pooled(values):
    v = [x for x in values if x is not None]
    if not v:
        return None, None
    return float(np.mean(v)), (float(np.std(v, ddof=1)) if len(v) > 1 else None)


def close(a, b):
    return (a is None and b is None) or (a is not None and b is not None and abs(a - b) <= TOL)


def check_pooled(name, null, per_model, n_layers):
    """per_model: [model][layer][head] -> {role: score}. Returns False (and says where) on a mismatch."""
    ok, worst = True, 0.0
    for r in ROLES:
        everything = [s[r] for m in per_model for layer in m for s in layer]
        for key, want in zip(("null_mean", "null_sd"), pooled(everything)):
            got = null[key][r]
            if not close(got, want):
                print("%s: %s.%s = %s, reference %s" % (name, key, r, got, want))
                ok = False
            elif got is not None:
                worst = max(worst, abs(got - want))
        for l in range(n_layers):
            layer = [s[r] for m in per_model for s in m[l]]
            for key, want in zip(("null_mean", "null_sd"), pooled(layer)):
                got = null["layers"][key][r][l]
                if not close(got, want):
                    print("%s: layers.%s.%s[layer %d] = %s, reference %s" % (name, key, r, l, got, want))
                    ok = False
                elif got is not None:
                    worst = max(worst, abs(got - want))
    print("%s: %d models pooled, max error %.3g%s" % (name, len(per_model), worst, "" if ok else "  FAILED"))
    return ok


def stories(cli, models):
    model = os.path.join(models, "stories260K", "stories260K.bin")
    tok = os.path.join(models, "stories260K", "tok512.bin")
    if not (os.path.isfile(model) and os.path.isfile(tok)):
        print("SKIP stories260K: %s not found (set HEADSCOPE_MODELS_DIR)" % model)
        return True
    cfg, _ = ref.load_checkpoint(model)
    sentence = "Lily and Tom went to the park. Lily saw a big red ball."
    seed, n = 7, 2
    got = json.loads(subprocess.run([cli, "heads", "--model", model, "--tokenizer", tok, "--sentence", sentence, "--null", str(n),
                                     "--null-seed", str(seed), "--probe-seeds", "1", "--json", "-"],
                                    check=True, stdout=subprocess.PIPE).stdout)
    null = got["null"]
    ok = True
    if null["models"] != n or null["seed"] != seed or "N(0, 0.02^2)" not in null["initialisation"]:
        print("stories260K: null says models %s, seed %s, initialisation %r" % (null["models"], null["seed"], null["initialisation"]))
        ok = False
    ids = json.loads(subprocess.run([cli, "maps", "--model", model, "--tokenizer", tok, "--sentence", sentence, "--json", "-"],
                                    check=True, stdout=subprocess.PIPE).stdout)["token_ids"]
    probe, plen = got["probe"]["ids"], got["probe"]["length"]
    per_model = []
    for k in range(n):
        w = null_weights(cfg, seed + k)
        maps, _ = ref.forward(cfg, w, ids)
        pmaps, _ = ref.forward(cfg, w, probe)
        layers = []
        for l in range(cfg["n_layers"]):
            heads = []
            for h in range(cfg["n_heads"]):
                s = roles_ref.scores(maps[l][h].numpy(), ids, 1, True, None, got["local_window"])
                P = pmaps[l][h].numpy()
                s["induction"] = float(np.mean([P[q, q - plen + 1] for q in range(1 + plen, 1 + 2 * plen)]))
                heads.append({r: (None if s[r] is None else float(s[r])) for r in ROLES})
            layers.append(heads)
        per_model.append(layers)
    return check_pooled("stories260K --null 2", null, per_model, cfg["n_layers"]) and ok


def synthetic(cli):
    sentence = "the cat saw the dog and the cat ran to the dog"
    flags = ["--d-model", "16", "--heads", "4", "--causal", "--window", "3"]
    seed, n = 3, 3
    got = json.loads(subprocess.run([cli, "heads", "--sentence", sentence, *flags, "--null", str(n), "--null-seed", str(seed),
                                     "--probe-seeds", "1", "--json", "-"], check=True, stdout=subprocess.PIPE).stdout)
    per_model = []
    for k in range(n):
        m = json.loads(subprocess.run([cli, "maps", "--sentence", sentence, *flags, "--seed", str(seed + k), "--json", "-"],
                                      check=True, stdout=subprocess.PIPE).stdout)
        keys = {t: i for i, t in reversed(list(enumerate(m["tokens"])))}
        ids = [keys[t] for t in m["tokens"]]
        heads = []
        for h in range(4):
            s = roles_ref.scores(np.array(m["attention"][0][h], dtype=np.float64), ids, None, True, 3, got["local_window"])
            s["induction"] = m["head_roles"]["scores"]["induction"][0][h]  # the probe: checked by head_roles_vs_numpy
            heads.append({r: (None if s[r] is None else float(s[r])) for r in ROLES})
        per_model.append([heads])
    return check_pooled("synthetic --null 3", got["null"], per_model, 1)


def refusals(cli, work):
    ok = True
    corpus = os.path.join(work, "corpus.txt")
    with open(corpus, "w") as f:
        f.write("the cat sat\n")
    for args, word in ((["heads", "--sentence", "a b c", "--null", "0"], "--null"),
                       (["heads", "--corpus", corpus, "--null", "2"], "--null")):
        p = subprocess.run([cli, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode not in (1, 2) or word not in p.stderr:
            print("%s: exit %d, stderr %r (expected 1 or 2 and a line naming %s)" % (" ".join(args), p.returncode, p.stderr, word))
            ok = False
    return ok


def main():
    cli, models = sys.argv[1], os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[2]
    work = sys.argv[3] if len(sys.argv) > 3 else "/tmp"
    os.makedirs(work, exist_ok=True)
    torch.set_grad_enabled(False)
    ok = synthetic(cli)
    ok = stories(cli, models) and ok
    ok = refusals(cli, work) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
