"""The attention file headscope opens with --attention FILE (docs/attention-file.md): one float32
array "attention" [layers, heads, T, T] and the token strings (safetensors metadata, or
FILE.tokens.json beside a .npz). save_attention() writes it from NumPy arrays, Hugging Face's
outputs.attentions, a TransformerLens cache or torch tensors (torch itself is only needed if the
maps are torch tensors). headscope.show() writes it too; tools/export_attention.py is a command
around this file and works without the compiled module (then the file is written through a
temporary file renamed over it, instead of core's atomic writer).
"""
import json
import os
import struct

import numpy as np

try:  # the package's compiled module: core's atomic writer (core/util/atomic_file.h)
    from ._core import _write_file_atomic
except ImportError:  # loaded alone, by path (tools/export_attention.py in a source tree)
    _write_file_atomic = None


def _write_atomic(path, data):
    if _write_file_atomic is not None:
        _write_file_atomic(path, data)
        return
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


FORMAT = "headscope-attention"
VERSION = "1"


def _to_numpy(t):
    """A torch tensor (any device or dtype) or array-like as a float32 numpy array."""
    if hasattr(t, "detach"):
        t = t.detach()
        if hasattr(t, "float"):
            t = t.float()
        t = t.cpu().numpy()
    return np.asarray(t, dtype=np.float32)


def _layer(t, batch, what):
    """One layer's maps [heads, T, T] from [batch, heads, T, T] or [heads, T, T]."""
    a = _to_numpy(t)
    if a.ndim == 4:
        if not 0 <= batch < a.shape[0]:
            raise ValueError("%s has a batch of %d; batch %d does not exist" % (what, a.shape[0], batch))
        a = a[batch]
    if a.ndim != 3 or a.shape[1] != a.shape[2]:
        raise ValueError("%s has shape %s; expected [batch, heads, T, T] or [heads, T, T]" % (what, list(a.shape)))
    return a


def _cache_layers(cache):
    """TransformerLens: cache["pattern", l] for l = 0, 1, ... (an ActivationCache), or a plain dict
    keyed "blocks.{l}.attn.hook_pattern" (what cache.cache_dict holds)."""
    layers = []
    while True:
        key = "blocks.%d.attn.hook_pattern" % len(layers)
        if isinstance(cache, dict):
            if key not in cache:
                break
            layers.append(cache[key])
            continue
        try:
            layers.append(cache["pattern", len(layers)])
        except (KeyError, IndexError):
            break
    return layers


def stack_attention(attentions, batch=0):
    """[layers, heads, T, T] float32 from Hugging Face's outputs.attentions (a tuple of
    [batch, heads, T, T] tensors, one per layer), a TransformerLens cache, a list of per-layer
    maps, or one array [layers, heads, T, T] / [layers, batch, heads, T, T]."""
    if hasattr(attentions, "cache_dict") or isinstance(attentions, dict):
        layers = _cache_layers(attentions)
        if not layers:
            raise ValueError("the cache has no attention patterns (blocks.0.attn.hook_pattern); "
                             "run the model with run_with_cache and keep the pattern hooks")
    elif isinstance(attentions, (list, tuple)):
        layers = list(attentions)
    else:
        a = _to_numpy(attentions)
        if a.ndim == 5:
            a = a[:, batch]
        if a.ndim != 4 or a.shape[2] != a.shape[3]:
            raise ValueError("attention array has shape %s; expected [layers, heads, T, T]" % list(a.shape))
        return np.ascontiguousarray(a)
    if not layers:
        raise ValueError("no layers of attention (did the model run with output_attentions=True?)")
    maps = [_layer(t, batch, "layer %d" % i) for i, t in enumerate(layers)]
    for i, m in enumerate(maps):
        if m.shape != maps[0].shape:
            raise ValueError("layer %d has shape %s but layer 0 has %s" % (i, list(m.shape), list(maps[0].shape)))
    return np.ascontiguousarray(np.stack(maps))


def _metadata(tokens, name, token_ids, special_tokens, segment_b_start, causal):
    meta = {"format": FORMAT, "version": VERSION, "tokens": json.dumps([str(t) for t in tokens], ensure_ascii=False)}
    if name:
        meta["name"] = str(name)
    if token_ids is not None:
        meta["token_ids"] = json.dumps([int(i) for i in token_ids])
    if special_tokens is not None:
        meta["special_tokens"] = json.dumps([int(i) for i in special_tokens])
    if segment_b_start is not None:
        meta["segment_b_start"] = json.dumps(int(segment_b_start))
    if causal is not None:
        meta["causal"] = json.dumps(bool(causal))
    return meta


def _write_safetensors(path, array, metadata):
    """The safetensors layout: 8-byte little-endian header length, JSON header, raw data."""
    data = array.astype("<f4", copy=False).tobytes()
    header = {"__metadata__": metadata,
              "attention": {"dtype": "F32", "shape": list(array.shape), "data_offsets": [0, len(data)]}}
    h = json.dumps(header, ensure_ascii=False).encode("utf-8")
    h += b" " * ((8 - len(h) % 8) % 8)
    _write_atomic(path, struct.pack("<Q", len(h)) + h + data)


def save_attention(path, attentions, tokens, name=None, batch=0, token_ids=None, special_tokens=None,
                   segment_b_start=None, causal=None, compress=False):
    """Writes `path` (.safetensors, or .npz with the tokens in PATH.tokens.json beside it).

    attentions      outputs.attentions, a TransformerLens cache, or [layers, heads, T, T]
    tokens          T strings (tokenizer.convert_ids_to_tokens(ids), model.to_str_tokens(text))
    name            shown in titles (default: the file name)
    batch           which sequence of a batch to save
    token_ids, special_tokens (indices of [CLS], [SEP], ...), segment_b_start (first token of the
    second sentence), causal: optional, shown by the views
    compress        .npz only: numpy.savez_compressed instead of numpy.savez
    Returns the [layers, heads, T, T] array written."""
    path = os.fspath(path)
    array = stack_attention(attentions, batch)
    tokens = list(tokens)
    if len(tokens) != array.shape[-1]:
        raise ValueError("%d tokens for maps of %d x %d" % (len(tokens), array.shape[-1], array.shape[-1]))
    if not np.all(np.isfinite(array)):
        raise ValueError("the maps hold NaN or infinity")
    meta = _metadata(tokens, name, token_ids, special_tokens, segment_b_start, causal)
    if path.endswith(".safetensors"):
        _write_safetensors(path, array, meta)
    elif path.endswith(".npz"):
        (np.savez_compressed if compress else np.savez)(path, attention=array)
        side = {k: (v if k in ("format", "version", "name") else json.loads(v)) for k, v in meta.items()}
        with open(path + ".tokens.json", "w", encoding="utf-8") as f:
            json.dump(side, f, ensure_ascii=False)
    else:
        raise ValueError("%s: use a .safetensors or .npz file name" % path)
    return array
