#!/usr/bin/python3
"""A pure-Python GPT-2 encoder (OpenAI's encoder.py algorithm), independent of headscope.

Python's `regex` module is not installed, so GPT-2's pre-tokenizer regex
  's|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+
is matched by hand with the same leftmost-alternative semantics: \\p{L} / \\p{N} are the
Unicode general categories L* / N* (unicodedata), \\s is str.isspace().

usage: gpt2_reference_tokenizer.py ENCODER_JSON VOCAB_BPE TEXT...   prints one id list per text
Also imported by hf_reference.py.
"""
import json
import sys
import unicodedata


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def is_letter(c):
    return unicodedata.category(c).startswith("L")


def is_number(c):
    return unicodedata.category(c).startswith("N")


def is_space(c):
    return c.isspace()


def pre_tokenize(text):
    out, i, n = [], 0, len(text)
    while i < n:
        # 1. contractions
        hit = None
        for c in ("'s", "'t", "'re", "'ve", "'m", "'ll", "'d"):
            if text.startswith(c, i):
                hit = c
                break
        if hit:
            out.append(hit)
            i += len(hit)
            continue
        j = i + 1 if text[i] == " " and i + 1 < n else i
        # 2-4. optional space then a run of one class
        matched = False
        for cls in (is_letter, is_number, lambda c: not (is_space(c) or is_letter(c) or is_number(c))):
            if j < n and cls(text[j]):
                k = j
                while k < n and cls(text[k]):
                    k += 1
                out.append(text[i:k])
                i = k
                matched = True
                break
        if matched:
            continue
        # 5. \s+(?!\S)   6. \s+
        k = i
        while k < n and is_space(text[k]):
            k += 1
        assert k > i, "every character is a letter, number, other or space"
        if k == n or k - i == 1:
            out.append(text[i:k])
            i = k
        else:
            out.append(text[i:k - 1])
            i = k - 1
    return out


class Encoder:
    def __init__(self, encoder_json, vocab_bpe):
        self.encoder = json.load(open(encoder_json, encoding="utf-8"))
        lines = open(vocab_bpe, encoding="utf-8").read().split("\n")[1:]
        merges = [tuple(l.split()) for l in lines if l.strip()]
        self.ranks = dict(zip(merges, range(len(merges))))
        self.byte_encoder = bytes_to_unicode()

    def bpe(self, token):
        word = list(token)
        while len(word) > 1:
            pairs = {(word[i], word[i + 1]) for i in range(len(word) - 1)}
            best = min(pairs, key=lambda p: self.ranks.get(p, float("inf")))
            if best not in self.ranks:
                break
            first, second = best
            new, i = [], 0
            while i < len(word):
                if i < len(word) - 1 and word[i] == first and word[i + 1] == second:
                    new.append(first + second)
                    i += 2
                else:
                    new.append(word[i])
                    i += 1
            word = new
        return word

    def encode(self, text):
        ids = []
        for tok in pre_tokenize(text):
            mapped = "".join(self.byte_encoder[b] for b in tok.encode("utf-8"))
            ids.extend(self.encoder[p] for p in self.bpe(mapped))
        return ids


if __name__ == "__main__":
    enc = Encoder(sys.argv[1], sys.argv[2])
    for t in sys.argv[3:]:
        print(json.dumps(t, ensure_ascii=False), enc.encode(t))
