#!/usr/bin/python3
"""Independent PyTorch reference for llama2.c checkpoints, checked live against headscope-cli.

Reads the checkpoint and tokenizer.bin itself (numpy), encodes as run.c does, runs the
documented forward pass in float64 (RMSNorm, RoPE on adjacent pairs, GQA, SwiGLU, tied
classifier), and compares every layer x head attention map, the token ids and the greedy
continuation with `headscope-cli maps --model ... --json -`.

usage: llama2c_reference.py HEADSCOPE_CLI MODELS_DIR
exit 0: match; 1: mismatch (the cell and the error are printed); 77: models absent (skip).
"""
import json
import os
import struct
import subprocess
import sys

try:
    import numpy as np
    import torch
except ImportError as e:  # not Debian's python3-torch / python3-numpy
    print("SKIP: %s (install python3-torch and python3-numpy)" % e)
    sys.exit(77)

TOL = 1e-4


def load_checkpoint(path):
    raw = open(path, "rb").read()
    dim, hidden, n_layers, n_heads, n_kv, vocab, seq_len = struct.unpack("<7i", raw[:28])
    shared = vocab > 0
    vocab = abs(vocab)
    hs = dim // n_heads
    kv_dim = n_kv * hs
    f = np.frombuffer(raw, dtype="<f4", offset=28).astype(np.float64)
    pos = 0

    def take(*shape):
        nonlocal pos
        n = int(np.prod(shape))
        out = torch.from_numpy(f[pos:pos + n].reshape(shape).copy())
        pos += n
        return out

    w = {}
    w["emb"] = take(vocab, dim)
    w["rms_att"] = take(n_layers, dim)
    w["wq"] = take(n_layers, dim, dim)
    w["wk"] = take(n_layers, kv_dim, dim)
    w["wv"] = take(n_layers, kv_dim, dim)
    w["wo"] = take(n_layers, dim, dim)
    w["rms_ffn"] = take(n_layers, dim)
    w["w1"] = take(n_layers, hidden, dim)
    w["w2"] = take(n_layers, dim, hidden)
    w["w3"] = take(n_layers, hidden, dim)
    w["rms_final"] = take(dim)
    take(seq_len, hs // 2)
    take(seq_len, hs // 2)
    w["cls"] = w["emb"] if shared else take(vocab, dim)
    assert pos == f.size, "checkpoint size does not match its header"
    cfg = dict(dim=dim, hidden=hidden, n_layers=n_layers, n_heads=n_heads, n_kv=n_kv, vocab=vocab, seq_len=seq_len)
    return cfg, w


def load_tokenizer(path, vocab):
    raw = open(path, "rb").read()
    (max_len,) = struct.unpack_from("<i", raw, 0)
    pos = 4
    pieces, scores = [], []
    for _ in range(vocab):
        score, n = struct.unpack_from("<fi", raw, pos)
        pos += 8
        pieces.append(raw[pos:pos + n])
        scores.append(score)
        pos += n
    assert pos == len(raw)
    return pieces, scores


def encode(text, pieces, scores):
    """run.c's encode with bos=1, eos=0."""
    lookup = {}
    for i, p in enumerate(pieces):
        lookup.setdefault(p, i)
    data = text.encode("utf-8")
    tokens = [1]
    if data:
        tokens.append(lookup[b" "])
    buf = b""
    for i, b in enumerate(data):
        if b & 0xC0 != 0x80:
            buf = b""
        buf += bytes([b])
        if i + 1 < len(data) and data[i + 1] & 0xC0 == 0x80 and len(buf) < 4:
            continue
        if buf in lookup:
            tokens.append(lookup[buf])
        else:
            tokens.extend(c + 3 for c in buf)
        buf = b""
    while True:
        best = (-1e10, -1, -1)
        for i in range(len(tokens) - 1):
            merged = pieces[tokens[i]] + pieces[tokens[i + 1]]
            j = lookup.get(merged, -1)
            if j >= 0 and scores[j] > best[0]:
                best = (scores[j], j, i)
        if best[1] < 0:
            break
        tokens[best[2]:best[2] + 2] = [best[1]]
    return tokens


def rmsnorm(x, w):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + 1e-5) * w


def rope(x, n, hs):
    """x [T, n*hs]; rotate adjacent pairs (2i, 2i+1) of each head by pos / 10000^(2i/hs)."""
    T = x.shape[0]
    x = x.view(T, n, hs // 2, 2)
    i = torch.arange(hs // 2, dtype=torch.float64)
    freq = 1.0 / (10000.0 ** (2 * i / hs))
    theta = torch.arange(T, dtype=torch.float64)[:, None] * freq[None, :]  # [T, hs/2]
    c, s = torch.cos(theta)[:, None, :], torch.sin(theta)[:, None, :]
    a, b = x[..., 0], x[..., 1]
    return torch.stack([a * c - b * s, a * s + b * c], dim=-1).reshape(T, n * hs)


def forward(cfg, w, ids, edit=None):
    """Returns maps [L][H] as [T, T] tensors and logits [T, vocab]. edit(layer, ctx), when given,
    sees each layer's contexts [T, H*hs] (attention @ v, head h in columns h*hs ..) before the
    output projection and may change them in place (activation patching's hook)."""
    T, d, H, G = len(ids), cfg["dim"], cfg["n_heads"], cfg["n_kv"]
    hs = d // H
    x = w["emb"][ids]
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
    maps = []
    for l in range(cfg["n_layers"]):
        h = rmsnorm(x, w["rms_att"][l])
        q = rope(h @ w["wq"][l].T, H, hs).view(T, H, hs).transpose(0, 1)   # [H, T, hs]
        k = rope(h @ w["wk"][l].T, G, hs).view(T, G, hs).transpose(0, 1)   # [G, T, hs]
        v = (h @ w["wv"][l].T).view(T, G, hs).transpose(0, 1)
        k = k.repeat_interleave(H // G, dim=0)  # query head h reads kv head h // (H/G)
        v = v.repeat_interleave(H // G, dim=0)
        s = q @ k.transpose(1, 2) / hs ** 0.5
        att = torch.softmax(s.masked_fill(mask, float("-inf")), dim=-1)   # [H, T, T]
        maps.append(att)
        ctx = (att @ v).transpose(0, 1).reshape(T, d)
        if edit:
            ctx = ctx.clone()
            edit(l, ctx)
        x = x + ctx @ w["wo"][l].T
        h = rmsnorm(x, w["rms_ffn"][l])
        x = x + (torch.nn.functional.silu(h @ w["w1"][l].T) * (h @ w["w3"][l].T)) @ w["w2"][l].T
    logits = rmsnorm(x, w["rms_final"]) @ w["cls"].T
    return maps, logits


def run_cli(cli, model, tok, sentence, generate):
    # No --sentence at all means BOS alone (an explicit empty --sentence is a CLI error).
    cmd = [cli, "maps", "--model", model, "--tokenizer", tok, "--json", "-"] + (["--sentence", sentence] if sentence else [])
    if generate:
        cmd += ["--generate", str(generate)]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    return json.loads(out)


def check_case(cli, model, tok, cfg, w, pieces, scores, sentence, generate):
    name = repr(sentence) + (" +%d generated" % generate if generate else "")
    got = run_cli(cli, model, tok, sentence, generate)
    ids = encode(sentence, pieces, scores)
    prompt_len = len(ids)
    for _ in range(generate):
        _, logits = forward(cfg, w, ids)
        ids.append(int(torch.argmax(logits[-1])))
    ok = True
    if got["token_ids"] != ids:
        print("%s: token ids differ\n  headscope %s\n  reference %s" % (name, got["token_ids"], ids))
        return False
    if got["prompt_tokens"] != prompt_len:
        print("%s: prompt_tokens %d, reference %d" % (name, got["prompt_tokens"], prompt_len))
        ok = False
    maps, logits = forward(cfg, w, ids)
    worst = (0.0, None)
    for l, layer in enumerate(maps):
        for h in range(layer.shape[0]):
            a = np.array(got["attention"][l][h], dtype=np.float64)
            err = np.abs(a - layer[h].numpy())
            i, j = np.unravel_index(np.argmax(err), err.shape)
            if err[i, j] > worst[0]:
                worst = (float(err[i, j]), (l, h, int(i), int(j)))
    if worst[0] > TOL:
        l, h, i, j = worst[1]
        print("%s: attention[layer %d][head %d][query %d][key %d] differs by %.3g (tolerance %g)" % (name, l, h, i, j, worst[0], TOL))
        ok = False
    # Next-token predictions must agree wherever the reference's best logit is clearly ahead.
    top2 = torch.topk(logits, 2, dim=-1)
    for t, nxt in enumerate(got["next_token_ids"]):
        margin = float(top2.values[t, 0] - top2.values[t, 1])
        if margin > 1e-3 and nxt != int(top2.indices[t, 0]):
            print("%s: next token after position %d is %d, reference %d (margin %.3g)" % (name, t, nxt, int(top2.indices[t, 0]), margin))
            ok = False
    print("%s: %d tokens, max map error %.3g over %d layers x %d heads%s" % (
        name, len(ids), worst[0], len(maps), maps[0].shape[0], "" if ok else "  FAILED"))
    return ok


def main():
    cli, models = sys.argv[1], os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[2]
    model = os.path.join(models, "stories260K", "stories260K.bin")
    tok = os.path.join(models, "stories260K", "tok512.bin")
    if not (os.path.isfile(model) and os.path.isfile(tok)):
        print("SKIP: %s or %s not found (set HEADSCOPE_MODELS_DIR)" % (model, tok))
        return 77
    torch.set_grad_enabled(False)
    cfg, w = load_checkpoint(model)
    pieces, scores = load_tokenizer(tok, cfg["vocab"])
    # No input at all is refused (a checkpoint would run on its <s> alone); --generate N with no
    # sentence starts from <s> (the last case).
    p = subprocess.run([cli, "maps", "--model", model, "--tokenizer", tok, "--json", "-"], capture_output=True, text=True)
    refused = p.returncode == 1 and "no input: give --sentence TEXT" in p.stderr
    print("%s maps without a sentence refuses: %s" % ("ok  " if refused else "FAIL", p.stderr.strip()))
    cases = [
        ("Once upon a time, there was a little girl named Lily.", 0),
        ("The cat sat on the mat. Tom said, \"Let's play!\"", 12),
        ("Lily saw a café and a 🐶 in the park\nthen she smiled", 0),
        ("", 40),
    ]
    ok = all([check_case(cli, model, tok, cfg, w, pieces, scores, s, g) for s, g in cases])
    return 0 if ok and refused else 1


if __name__ == "__main__":
    sys.exit(main())
