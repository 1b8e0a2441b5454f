#!/usr/bin/env python3
"""Save attention maps from any PyTorch model as the file headscope opens with --attention FILE.

headscope runs a few model families itself; for everything else (vision transformers, private
architectures, a model on a GPU cluster) run the model where it lives and bring the maps:

    from export_attention import save_attention
    outputs = model(**inputs, output_attentions=True)          # Hugging Face transformers
    save_attention("maps.safetensors", outputs.attentions, tokenizer.convert_ids_to_tokens(inputs["input_ids"][0]))

    logits, cache = model.run_with_cache(text)                  # TransformerLens
    save_attention("maps.safetensors", cache, model.to_str_tokens(text))

then `headscope --attention maps.safetensors` or `headscope-cli maps --attention maps.safetensors`.
The format is in docs/attention-file.md: one float32 array "attention" [layers, heads, T, T] and
the token strings (safetensors metadata, or FILE.tokens.json beside a .npz). Needs numpy; torch
tensors are converted (torch itself is only needed if the maps are torch tensors). The writer is
the Python package's (headscope.attention_file, docs/python.md): this tool imports it from the
installed package, or without one from this source tree's app/python/headscope/.

As a command, with transformers installed, it runs a Hugging Face model on a text (or a pair):
    python3 tools/export_attention.py bert-base-uncased "The cat sat." --text-b "It purred." --out maps.safetensors
"""
import argparse
import os
import sys


def _attention_file():
    """headscope's attention_file module: from the installed package, else from this source tree."""
    try:
        from headscope import attention_file
        return attention_file
    except ImportError:
        import importlib.util
        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.join(here, "..", "app", "python", "headscope", "attention_file.py")
        spec = importlib.util.spec_from_file_location("headscope_attention_file", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


_af = _attention_file()
FORMAT, VERSION = _af.FORMAT, _af.VERSION
stack_attention, save_attention = _af.stack_attention, _af.save_attention
_to_numpy, _metadata, _write_safetensors = _af._to_numpy, _af._metadata, _af._write_safetensors


def special_token_indices(tokenizer, ids):
    """Positions of the tokenizer's special tokens ([CLS], [SEP], <s>, </s>, ...) in ids."""
    special = set(getattr(tokenizer, "all_special_ids", []))
    return [i for i, t in enumerate(ids) if int(t) in special]


def main(argv=None):
    p = argparse.ArgumentParser(description="Run a Hugging Face model on a text and save its attention for headscope.")
    p.add_argument("model", help="model name or local folder (transformers' from_pretrained)")
    p.add_argument("text")
    p.add_argument("--text-b", help="a second sentence (encoders: [CLS] A [SEP] B [SEP])")
    p.add_argument("--out", required=True, help="FILE.safetensors or FILE.npz")
    a = p.parse_args(argv)
    try:
        import torch
        from transformers import AutoModel, AutoTokenizer
    except ImportError as e:
        sys.exit("export_attention.py needs torch and transformers to run a model (%s); "
                 "in your own code, call save_attention() with the maps you have" % e)
    tok = AutoTokenizer.from_pretrained(a.model)
    model = AutoModel.from_pretrained(a.model, attn_implementation="eager")
    inputs = tok(a.text, a.text_b, return_tensors="pt") if a.text_b else tok(a.text, return_tensors="pt")
    with torch.no_grad():
        outputs = model(**inputs, output_attentions=True)
    ids = inputs["input_ids"][0].tolist()
    segment_b = None
    if a.text_b and "token_type_ids" in inputs and 1 in inputs["token_type_ids"][0].tolist():
        segment_b = inputs["token_type_ids"][0].tolist().index(1)
    save_attention(a.out, outputs.attentions, tok.convert_ids_to_tokens(ids), name=a.model, token_ids=ids,
                   special_tokens=special_token_indices(tok, ids), segment_b_start=segment_b)
    print("wrote %s" % a.out)


if __name__ == "__main__":
    main()
