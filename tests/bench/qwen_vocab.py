#!/usr/bin/python3
"""Byte-level BPE vocabularies of real models' sizes for the benchmark GGUF files, grown from GPT-2's
50,257 pieces and 50,000 merges (tests/data/gpt2-tokenizer) by deterministic merges of
existing pieces:

- Qwen 2 (qwen_vocabulary): 151,643 ordinary pieces (151,386 merges), then 22 control tokens and
  unused padding up to the 151,936 rows of Qwen2.5-0.5B's embedding, as llama.cpp's converter
  writes them.
- Llama 3 (llama3_vocabulary): 128,000 ordinary pieces (127,743 merges), then Llama 3's 256
  special tokens (<|begin_of_text|> = 128000, <|end_of_text|>, <|start_header_id|>,
  <|end_header_id|>, <|eot_id|> and the reserved ones), 128,256 in all, for the "llama-bpe"
  pre-tokenizer (the regex llama.cpp's converter names so for Llama 3).

Every added merge joins two pieces already in the vocabulary (a word-start piece and a letters-only
continuation), so the table is a valid BPE (each merge's parts come from earlier merges) and the
added pieces occur in English text. Only the sizes and the build order matter to the benchmarks.

    tokens, types, merges = qwen_vocabulary(tokdir)
    tokens, types, merges = llama3_vocabulary(tokdir)
"""
import json
import os

QWEN_ORDINARY = 151643
QWEN_ROWS = 151936
QWEN_CONTROL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
                "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>",
                "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>", "<|fim_prefix|>",
                "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>"]
LLAMA3_ORDINARY = 128000
LLAMA3_ROWS = 128256
LLAMA3_BOS, LLAMA3_EOS = 128000, 128001
CONTROL, UNUSED, NORMAL = 3, 5, 1  # llama.cpp's token types


def extended_gpt2(tokdir, ordinary):
    """GPT-2's pieces and merges grown to `ordinary` pieces: (tokens, merges as "A B" lines)."""
    vocab = json.load(open(os.path.join(tokdir, "encoder.json"), encoding="utf-8"))
    tokens = [None] * len(vocab)
    for piece, i in vocab.items():
        tokens[i] = piece
    merges = [l for l in open(os.path.join(tokdir, "vocab.bpe"), encoding="utf-8").read().split("\n")[1:] if l.strip()]
    # GPT-2's <|endoftext|> (id 50256) becomes an ordinary-looking piece name so that the control
    # tokens can follow the ordinary pieces, as in Qwen's and Llama 3's files.
    tokens[50256] = "<|gpt2_endoftext|>"
    seen = set(tokens)
    starts = [t for t in tokens if t.startswith("\u0120") and t[1:].isalpha() and 2 <= len(t) <= 8]
    tails = [t for t in tokens if t.isalpha() and t.islower() and 2 <= len(t) <= 6]
    i = 0
    while len(tokens) < ordinary:
        a = starts[(i * 7919) % len(starts)]
        b = tails[(i * 104729 + i // len(starts)) % len(tails)]
        i += 1
        if a + b in seen:
            continue
        seen.add(a + b)
        tokens.append(a + b)
        merges.append(a + " " + b)
    return tokens, merges


def qwen_vocabulary(tokdir):
    """(tokens, token types, merges as "A B" lines) of QWEN_ROWS tokens."""
    tokens, merges = extended_gpt2(tokdir, QWEN_ORDINARY)
    types = [NORMAL] * len(tokens)
    for name in QWEN_CONTROL:
        tokens.append(name)
        types.append(CONTROL)
    while len(tokens) < QWEN_ROWS:
        tokens.append("[PAD%d]" % len(tokens))
        types.append(UNUSED)
    return tokens, types, merges


def llama3_special_tokens():
    """Llama 3's 256 special tokens, ids 128000 .. 128255 in order."""
    named = {0: "<|begin_of_text|>", 1: "<|end_of_text|>", 6: "<|start_header_id|>", 7: "<|end_header_id|>",
             9: "<|eot_id|>"}
    out, reserved = [], 0
    for i in range(LLAMA3_ROWS - LLAMA3_ORDINARY):
        if i in named:
            out.append(named[i])
        else:
            out.append("<|reserved_special_token_%d|>" % reserved)
            reserved += 1
    return out


def llama3_vocabulary(tokdir):
    """(tokens, token types, merges) of LLAMA3_ROWS tokens: the ordinary pieces, then the control tokens."""
    tokens, merges = extended_gpt2(tokdir, LLAMA3_ORDINARY)
    types = [NORMAL] * len(tokens)
    specials = llama3_special_tokens()
    return tokens + specials, types + [CONTROL] * len(specials), merges
