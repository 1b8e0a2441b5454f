#!/usr/bin/python3
"""tools/export_attention.py's code path with plain PyTorch tensors (transformers and
TransformerLens are not installable here): a fake Hugging Face `outputs.attentions` tuple, a fake
TransformerLens cache (a dict of blocks.{l}.attn.hook_pattern, and an object answering
cache["pattern", l]) are written as .safetensors, .npz (numpy.savez) and compressed .npz
(numpy.savez_compressed); each file must open in `headscope-cli maps --attention FILE --json -`
with the same maps and tokens, and `headscope-cli export` must write its figure and data. Then the
checks headscope makes on such files: rows that do not sum to 1 are shown and said, negative
weights and a wrong token count are refused, the head-count sweep says it needs weights.

usage: export_attention_test.py HEADSCOPE_CLI OUT_DIR
"""
import json
import os
import shutil
import subprocess
import sys

try:
    import numpy as np
    import torch
except ImportError as e:
    print("SKIP: %s (install python3-torch and python3-numpy)" % e)
    sys.exit(77)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import export_attention  # noqa: E402

L, H, T = 3, 4, 6
TOKENS = ["[CLS]", "the", "cat", "[SEP]", "sat", "[SEP]"]


def patterns(causal, seed):
    """L tensors [1, H, T, T] of softmax rows, as a model returns them."""
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(L):
        s = torch.randn(1, H, T, T, generator=g) * 2
        if causal:
            s = s.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float("-inf"))
        out.append(torch.softmax(s, -1))
    return out


class FakeActivationCache:
    """What TransformerLens's ActivationCache answers: cache["pattern", layer] -> [batch, H, T, T]."""
    def __init__(self, layers):
        self.cache_dict = {"blocks.%d.attn.hook_pattern" % l: p for l, p in enumerate(layers)}

    def __getitem__(self, key):
        if isinstance(key, tuple):
            key = "blocks.%d.attn.hook_%s" % (key[1], key[0])
        return self.cache_dict[key]


def cli(args, expect_ok=True):
    proc = subprocess.run([CLI] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if expect_ok and proc.returncode != 0:
        raise AssertionError("headscope-cli %s failed: %s" % (" ".join(args), proc.stderr.decode()))
    return proc


def check_file(name, path, expected, causal, extra=()):
    got = json.loads(cli(["maps", "--attention", path, "--json", "-"]).stdout)
    ours = np.array(got["attention"], dtype=np.float64)
    err = float(np.abs(ours - expected).max())
    assert ours.shape == (L, H, T, T), "%s: shape %s" % (name, ours.shape)
    assert err < 1e-6, "%s: maps differ by %g" % (name, err)
    assert got["tokens"] == TOKENS, "%s: tokens %s" % (name, got["tokens"])
    assert got["config"]["n_layers"] == L and got["config"]["n_heads"] == H, name
    assert got["config"]["causal"] == causal, "%s: causal %s" % (name, got["config"]["causal"])
    assert "next_tokens" not in got, "%s: maps from a file predict nothing" % name
    diff = np.array(got["head_difference"])
    assert diff.shape == (L, H, H) and diff[0, 0, 1] > 0, name
    out = os.path.join(OUT, name)
    cli(["export", "--attention", path, "--out", out + ".npy"])
    npy = np.load(out + ".npy")
    assert npy.shape == (L, H, T, T) and float(np.abs(npy - expected).max()) < 1e-6, "%s: exported .npy differs" % name
    cli(["export", "--attention", path, "--layer", "2", "--head", "1", "--out", out + ".png"])
    assert open(out + ".png", "rb").read(8) == b"\x89PNG\r\n\x1a\n", "%s: no PNG" % name
    cli(["export", "--attention", path, "--view", "distance", "--out", out + ".csv"])
    assert open(out + ".csv").read().count("\n") == H + 1, "%s: distance CSV" % name
    report = cli(["maps", "--attention", path]).stdout.decode()
    assert "maps from a file" in report, report
    for part in extra:
        assert part in report, "%s: %r not in the report:\n%s" % (name, part, report)
    print("%s: %d x %d heads of %d tokens, max difference %.2g; .npy, .png, .csv exported" % (name, L, H, T, err))


def main():
    global CLI, OUT
    CLI, OUT = sys.argv[1], sys.argv[2]
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)

    # Hugging Face: outputs.attentions, a tuple of [batch, H, T, T] per layer.
    hf = tuple(patterns(False, 1))
    expected = torch.cat(hf).numpy().astype(np.float64)
    path = os.path.join(OUT, "hf.safetensors")
    export_attention.save_attention(path, hf, TOKENS, name="bert-tiny", special_tokens=[0, 3, 5], segment_b_start=4)
    check_file("hf.safetensors", path, expected, False)
    path = os.path.join(OUT, "hf.npz")
    export_attention.save_attention(path, hf, TOKENS)
    assert os.path.isfile(path + ".tokens.json")
    check_file("hf.npz", path, expected, False)
    path = os.path.join(OUT, "hf-compressed.npz")
    export_attention.save_attention(path, hf, TOKENS, compress=True)
    check_file("hf-compressed.npz", path, expected, False)

    # TransformerLens: cache["pattern", l] (an ActivationCache), and its cache_dict as a plain dict;
    # remove_batch_dim=True gives [H, T, T] per layer.
    tl = patterns(True, 2)
    expected = torch.cat(tl).numpy().astype(np.float64)
    path = os.path.join(OUT, "tl.safetensors")
    export_attention.save_attention(path, FakeActivationCache(tl), TOKENS)
    check_file("tl cache.safetensors", path, expected, True)
    path = os.path.join(OUT, "tl-dict.npz")
    export_attention.save_attention(path, {"blocks.%d.attn.hook_pattern" % l: p[0] for l, p in enumerate(tl)}, TOKENS)
    check_file("tl dict.npz", path, expected, True)

    # Rows that do not sum to 1 are shown, and said.
    half = [p * 0.5 for p in hf]
    path = os.path.join(OUT, "half.safetensors")
    export_attention.save_attention(path, half, TOKENS)
    check_file("half.safetensors", path, torch.cat(half).numpy().astype(np.float64), False, extra=["do not sum to 1"])

    # Refused, with what was found.
    def refused(name, args, part):
        proc = cli(args, expect_ok=False)
        msg = proc.stderr.decode()
        assert proc.returncode in (1, 2) and part in msg, "%s: expected a refusal with %r, got %d: %s" % (name, part, proc.returncode, msg)
        print("%s: refused: %s" % (name, msg.strip()))
    path = os.path.join(OUT, "negative.safetensors")
    export_attention.save_attention(path, [p - 0.5 for p in hf], TOKENS)
    refused("negative", ["maps", "--attention", path, "--json", "-"], "never negative")
    path = os.path.join(OUT, "count.safetensors")
    export_attention._write_safetensors(path, torch.cat(hf).numpy(), export_attention._metadata(TOKENS[:4], None, None, None, None, None))
    refused("token count", ["maps", "--attention", path, "--json", "-"], "names 4 tokens but the maps are 6 x 6")
    path = os.path.join(OUT, "hf.safetensors")
    refused("sweep", ["export", "--attention", path, "--view", "sweep", "--out", os.path.join(OUT, "sweep.png")], "no weights to sweep")
    refused("with --model", ["maps", "--attention", path, "--model", OUT], "leave out --model")
    try:
        export_attention.save_attention(os.path.join(OUT, "x.safetensors"), hf, TOKENS[:2])
        raise AssertionError("save_attention accepted 2 tokens for 6 x 6 maps")
    except ValueError as e:
        print("save_attention refuses a wrong token count: %s" % e)
    return 0


if __name__ == "__main__":
    sys.exit(main())
