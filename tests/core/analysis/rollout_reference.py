#!/usr/bin/python3
"""Oracle for attention rollout (core/analysis/rollout.h): `maps --json`'s attention_rollout on
stories260K against numpy's rollout of the PyTorch llama2.c reference's own maps (float64):
R = prod over layers (last first) of 0.5 * mean_h A + 0.5 * I.

usage: rollout_reference.py HEADSCOPE_CLI MODELS_DIR
exit 0: match; 1: mismatch (the cell and the error are printed); 77: no torch or no model (skip).
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pretrained"))
import llama2c_reference as ref  # noqa: E402

TOL = 1e-4


def main():
    cli, models = sys.argv[1], os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[2]
    model = os.path.join(models, "stories260K", "stories260K.bin")
    tok = os.path.join(models, "stories260K", "tok512.bin")
    if not (os.path.isfile(model) and os.path.isfile(tok)):
        print("SKIP: %s not found (set HEADSCOPE_MODELS_DIR)" % model)
        return 77
    torch.set_grad_enabled(False)
    cfg, w = ref.load_checkpoint(model)
    sentence = "Lily and Tom went to the park. Lily saw a big red ball."
    got = json.loads(subprocess.run([cli, "maps", "--model", model, "--tokenizer", tok, "--sentence", sentence, "--json", "-"],
                                    check=True, stdout=subprocess.PIPE).stdout)
    ids = got["token_ids"]
    maps, _ = ref.forward(cfg, w, ids)
    T = len(ids)
    r = np.eye(T)
    for layer in maps:
        r = (0.5 * layer.numpy().mean(0) + 0.5 * np.eye(T)) @ r
    a = np.array(got["attention_rollout"], dtype=np.float64)
    err = np.abs(a - r)
    i, j = np.unravel_index(np.argmax(err), err.shape)
    ok = err[i, j] <= TOL and np.allclose(a.sum(1), 1, atol=1e-5) and np.all(np.triu(a, 1) == 0)
    print("stories260K rollout: %d tokens, max error %.3g at [%d][%d]; rows sum to 1, causal: %s%s" % (
        T, err[i, j], i, j, ok, "" if ok else "  FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
