#!/usr/bin/python3
"""Oracle for the teaching model (docs/teaching-model.md), checked live.

The scores of every head are written here from the table in docs/teaching-model.md, as
functions of the tokens (no weight matrices): previous b[j = i-1], first b[j = 0], who
is_pronoun(i) (B is_name(j) + 8 j), what is_pronoun(i) (B is_noun(j) - 8 j), induction
b prev(j)[slot i] - b[j = 0] with prev(j) = sum_j' A_previous[j, j'] onehot(slot j'), duplicate
b[slot i = slot j] - b[j = i], self b[j = i], broad 0; then the causal softmax in float64. The
vocabulary is rebuilt here from its sources: the core table of core/text/teaching_vocabulary.cpp,
then the possessives of its names and nouns, then the word list core/text/teaching_lexicon.txt
(front coding and suffix flags decoded here); a word's slot is its id in the core table, else
core size + FNV-1a(word) mod (512 - core size). Compared with
`headscope-cli maps --model teaching --json -` on several texts, and the next tokens with the
argmax of the readout: 10 (induction-copied slots)[slot w] + 4 [w = <unk>] + for a word outside
the core table 2.5 (s(w) . (induction-copied id bits) - B).

usage: teaching_model_reference.py HEADSCOPE_CLI SOURCE_DIR
exit 0: match; 1: mismatch (the text, the head, the cell and the error are printed).
"""
import json
import os
import re
import subprocess
import sys

try:
    import numpy as np
except ImportError as e:
    print("SKIP: %s (install python3-numpy)" % e)
    sys.exit(77)

TOL = 1e-5
b, P = 20.0, 64
B = 8.0 * P + b

K = 512
TEXTS = [
    "the keys that Priya left on the table were not hers",
    "the trophy did not fit in the suitcase because it was too big",
    "the trophy did not fit in the suitcase . the trophy did not fit in the suitcase",
    "Aaron's sister painted the fence while he washed their windows",
    "I'm sure it's the dog's bowl, and they're not hungry",
    "Lily saw a big red ball. Lily saw a big red ball.",
    "once the keys that Priya left on the table were not hers . Priya found the keys in the park",
    "Tom gave Lily his old hat and she gave him her new book , then they went home",
    "a zebra and a yak met a cat",
]


RULES = {"s": ("", "s"), "e": ("", "es"), "y": ("y", "ies"), "d": ("", "ed"), "D": ("", "d"), "i": ("y", "ied"),
         "g": ("", "ing"), "G": ("e", "ing"), "p": ("", "$ed"), "n": ("", "$ing"), "r": ("", "er"), "R": ("", "r"),
         "t": ("", "est"), "T": ("", "st"), "l": ("", "ly"), "L": ("y", "ily")}
SECTION = {"[names]": "NAME", "[pronouns]": "PRON", "[nouns]": "NOUN", "[words]": "N"}


def lexicon(source_dir):
    out, feat, prev = [], None, ""
    for line in open(os.path.join(source_dir, "core", "text", "teaching_lexicon.txt"), encoding="utf-8"):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            feat, prev = SECTION[line], ""
            continue
        if line[0].isdigit():
            line = prev[: int(line[0])] + line[1:]
        prev = line
        word, _, flags = line.partition("/")
        forms = [word]
        for f in flags:
            strip, add = RULES[f]
            assert word.endswith(strip)
            stem = word[: len(word) - len(strip)] if strip else word
            forms.append(stem + add.replace("$", stem[-1]))
        for w in forms:
            if feat in ("NAME", "NOUN"):
                out.append((w + "'s", feat))
            out.append((w, feat))
    return out


def fnv1a(word):
    h = 2166136261
    for c in word.encode("utf-8"):
        h = ((h ^ c) * 16777619) & 0xFFFFFFFF
    return h


def vocabulary(source_dir):
    """[(text, feature, slot)] by id."""
    text = open(os.path.join(source_dir, "core", "text", "teaching_vocabulary.cpp"), encoding="utf-8").read()
    body = text[text.index("static const std::vector<TeachingWord> words"):]
    body = body[: body.index("};")]
    core = [(w.encode().decode("unicode_escape"), f) for w, f in re.findall(r'\{"((?:[^"\\]|\\.)*)", (N|NAME|PRON|NOUN)\}', body)]
    D = len(core)
    slot = lambda w: D + fnv1a(w) % (K - D)
    words = [(w, f, i) for i, (w, f) in enumerate(core)]
    words += [(w + "'s", f, slot(w + "'s")) for w, f in core[1:] if f in ("NAME", "NOUN")]
    core_lower, seen = {w.lower() for w, _ in core[1:]}, set()
    for w, f in lexicon(source_dir):
        if w.lower() in core_lower or w in seen:
            continue
        seen.add(w)
        words.append((w, f, slot(w)))
    return words, D


def softmax_causal(S):
    T = S.shape[0]
    A = np.zeros_like(S)
    for i in range(T):
        row = S[i, : i + 1]
        e = np.exp(row - row.max())
        A[i, : i + 1] = e / e.sum()
    return A


def expected_maps(ids, feats, slots):
    T = len(ids)
    i_, j_ = np.meshgrid(np.arange(T), np.arange(T), indexing="ij")
    tok = np.array([slots[t] for t in ids])
    is_name = np.array([feats[t] == "NAME" for t in ids], dtype=float)
    is_pron = np.array([feats[t] == "PRON" for t in ids], dtype=float)
    is_noun = np.array([feats[t] == "NOUN" for t in ids], dtype=float)
    prev = softmax_causal(b * (j_ == i_ - 1))
    first = softmax_causal(b * (j_ == 0) + 0.0 * i_)
    who = softmax_causal(is_pron[:, None] * (B * is_name[None, :] + 8.0 * j_))
    what = softmax_causal(is_pron[:, None] * (B * is_noun[None, :] - 8.0 * j_))
    # prev(j)[t]: the weight L0 h0 puts, from row j, on keys holding token t.
    onehot = (tok[:, None] == np.arange(K)[None, :]).astype(float)  # [T, K]
    prev_tok = prev @ onehot  # [T, K]
    induction = softmax_causal(b * prev_tok[:, tok].T - b * (j_ == 0))
    duplicate = softmax_causal(b * (tok[:, None] == tok[None, :]) - b * (j_ == i_))
    self_ = softmax_causal(b * (j_ == i_))
    broad = softmax_causal(np.zeros((T, T)))
    return [[prev, first, who, what], [induction, duplicate, self_, broad]]


def main():
    cli, source_dir = sys.argv[1], sys.argv[2]
    words, D = vocabulary(source_dir)
    feats = [f for _, f, _ in words]
    slots = np.array([sl for _, _, sl in words])
    V = len(words)
    B = max(1, int(np.ceil(np.log2(V))))
    signs = np.where((np.arange(V)[:, None] >> np.arange(B)[None, :]) & 1, 1.0, -1.0)  # [V, B]
    bad = 0
    worst = 0.0
    for text in TEXTS:
        out = subprocess.run([cli, "maps", "--model", "teaching", "--sentence", text, "--json", "-"],
                             capture_output=True, text=True)
        if out.returncode != 0:
            print("FAIL: headscope-cli refused %r: %s" % (text, out.stderr.strip()))
            return 1
        j = json.loads(out.stdout)
        ids = j["token_ids"]
        labels = [words[t][0] for t in ids]
        if labels != j["tokens"]:
            print("FAIL: %r: tokens %s, the table says %s" % (text, j["tokens"], labels))
            bad += 1
        want = expected_maps(ids, feats, slots)
        got = j["attention"]
        for l in range(2):
            for h in range(4):
                g = np.array(got[l][h], dtype=float)
                e = want[l][h]
                err = np.abs(g - e)
                worst = max(worst, err.max())
                if err.max() > TOL:
                    i, k = np.unravel_index(err.argmax(), err.shape)
                    print("FAIL: %r L%d h%d cell (%d, %d): headscope %.9g, docs %.9g" % (text, l, h, i, k, g[i, k], e[i, k]))
                    bad += 1
        # Next tokens: the readout of what the induction head copies.
        ind = want[1][0]
        copied_slots = ind @ (slots[np.array(ids)][:, None] == np.arange(K)[None, :]).astype(float)  # [T, K]
        copied_bits = ind @ signs[np.array(ids)]  # [T, B]
        logits = 10.0 * copied_slots[:, slots]  # [T, V]
        logits[:, D:] += 2.5 * (copied_bits @ signs[D:].T - B)
        logits[:, 0] += 4.0
        for p, row in enumerate(logits):
            top = np.sort(row)[::-1]
            if top[0] - top[1] < 1e-2:
                continue  # a tie (float32 and float64 may break it differently)
            if j["next_tokens"][p] != words[int(np.argmax(row))][0]:
                print("FAIL: %r next token after %d: %s, expected %s" % (text, p, j["next_tokens"][p], words[int(np.argmax(row))][0]))
                bad += 1
    print("teaching model vs docs/teaching-model.md: %d texts, largest difference %.2g (tolerance %g)" % (len(TEXTS), worst, TOL))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
