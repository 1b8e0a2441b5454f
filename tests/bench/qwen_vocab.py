#!/usr/bin/python3
"""A Qwen2.5-sized byte-level BPE vocabulary for the benchmark GGUF files: GPT-2's 50,257 pieces and
50,000 merges (../shared/models/gpt2-tokenizer), extended by deterministic merges of existing pieces
up to Qwen 2's 151,643 ordinary pieces (151,386 merges), then 22 control tokens and unused padding
up to the 151,936 rows of Qwen2.5-0.5B's embedding, as llama.cpp's converter writes them.

Every added merge joins two pieces already in the vocabulary (a word-start piece and a letters-only
continuation), so the table is a valid BPE (each merge's parts come from earlier merges) and the
added pieces occur in English text. Only the sizes and the build order matter to the benchmarks.

    tokens, types, merges = qwen_vocabulary(tokdir)
"""
import json
import os

QWEN_ORDINARY = 151643
QWEN_ROWS = 151936
QWEN_CONTROL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>",
                "<|box_start|>", "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>",
                "<|vision_pad|>", "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>", "<|fim_prefix|>",
                "<|fim_middle|>", "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>"]
CONTROL, UNUSED, NORMAL = 3, 5, 1  # llama.cpp's token types


def qwen_vocabulary(tokdir):
    """(tokens, token types, merges as "A B" lines) of QWEN_ROWS tokens."""
    vocab = json.load(open(os.path.join(tokdir, "encoder.json"), encoding="utf-8"))
    tokens = [None] * len(vocab)
    for piece, i in vocab.items():
        tokens[i] = piece
    merges = [l for l in open(os.path.join(tokdir, "vocab.bpe"), encoding="utf-8").read().split("\n")[1:] if l.strip()]
    # GPT-2's <|endoftext|> (id 50256) becomes an ordinary-looking piece name so that the control
    # tokens can follow the ordinary pieces, as in Qwen's file.
    tokens[50256] = "<|gpt2_endoftext|>"
    seen = set(tokens)
    starts = [t for t in tokens if t.startswith("\u0120") and t[1:].isalpha() and 2 <= len(t) <= 8]
    tails = [t for t in tokens if t.isalpha() and t.islower() and 2 <= len(t) <= 6]
    i = 0
    while len(tokens) < QWEN_ORDINARY:
        a = starts[(i * 7919) % len(starts)]
        b = tails[(i * 104729 + i // len(starts)) % len(tails)]
        i += 1
        if a + b in seen:
            continue
        seen.add(a + b)
        tokens.append(a + b)
        merges.append(a + " " + b)
    types = [NORMAL] * len(tokens)
    for name in QWEN_CONTROL:
        tokens.append(name)
        types.append(CONTROL)
    while len(tokens) < QWEN_ROWS:
        tokens.append("[PAD%d]" % len(tokens))
        types.append(UNUSED)
    return tokens, types, merges
