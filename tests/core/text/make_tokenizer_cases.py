#!/usr/bin/python3
"""Writes small tokenizer folders and the ids an independent Python implementation of each
algorithm gives for tricky texts; tokenizer_cases_test.cpp checks headscope against them.
    /usr/bin/python3 tests/core/text/make_tokenizer_cases.py OUT_DIR

Everything is built here from the formats' definitions, with no tokenizer library:
- tokenizer.model files: SentencePiece's ModelProto written as protobuf bytes by hand (varints,
  length-delimited fields, fixed32 floats), with a precompiled_charsmap whose darts-clone double
  array is built by the small builder below;
- tokenizer.json files (Unigram, WordPiece, BPE) and a BERT vocab.txt folder.
The reference algorithms below are written from their definitions:
- SentencePiece's normalizer (longest rule at each position, whitespace handling, dummy prefix);
- SentencePiece BPE: repeatedly merge the adjacent pair whose concatenation is a piece with the
  highest score (leftmost on ties), recomputing every pair each time; unused pieces split back;
- Unigram: Viterbi over every (start, end) substring that is a piece, unknown characters at
  min_score - 10 (float32 path scores for SentencePiece, float64 for Hugging Face);
- Hugging Face's Precompiled normalizer (grapheme clusters: a character and the combining marks
  after it, enough for the texts used here), Metaspace, BertNormalizer, BertPreTokenizer,
  WordPiece's greedy longest match, TemplateProcessing with type ids, Unicode normalizers
  (Python's unicodedata).
When Debian's python3-sentencepiece is installed, the reference is itself checked against the
real SentencePiece library on every SentencePiece model and text (the script fails if they differ).
"""
import base64
import json
import os
import struct
import sys
import unicodedata

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
SP = "\u2581"  # ▁

try:
    import sentencepiece  # Debian: python3-sentencepiece (the real library, as a check of the reference)
except ImportError:
    sentencepiece = None

CASES = []

# Tricky texts shared by the SentencePiece and Unigram models.
SPM_TEXTS = [
    "the cat sat",
    "The cat sat on the mat.",
    " leading space",
    "trailing spaces   ",
    "two  spaces,   three and\ttab",
    "caf\u00e9 and cafe\u0301 (decomposed)",
    "\uff21\uff22 full width \ufb01ne \u2460",
    "unknown \u65e5\u672c \U0001F436 bytes",
    "<s>the cat</s> sat <unk>",
    "x<tag>y <tag> cat",
    "ca cat scat",
    "   ",
    "",
    "aaaa bbbb",
    "\u2581already escaped",
]

def white_space(c):
    # Unicode White_Space: Zs, Zl, Zp, and TAB LF VT FF CR, U+0085
    return unicodedata.category(c) in ("Zs", "Zl", "Zp") or c in "\t\n\x0b\x0c\r\x85"


# ---------------------------------------------------------------------------------------------
# Protobuf writer (the wire format: varint keys, varints, length-delimited bytes, fixed32).


def varint(v):
    if v < 0:
        v += 1 << 64
    out = b""
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def field_varint(n, v):
    return varint(n << 3) + varint(v)


def field_bytes(n, b):
    if isinstance(b, str):
        b = b.encode("utf-8")
    return varint(n << 3 | 2) + varint(len(b)) + b


def field_float(n, f):
    return varint(n << 3 | 5) + struct.pack("<f", f)


NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
UNIGRAM, BPE = 1, 2


def model_proto(pieces, model_type, byte_fallback, charsmap=b"", add_dummy_prefix=True, remove_extra_whitespaces=True,
                escape_whitespaces=True, name="identity"):
    """pieces: [(piece, score, type)]. Also writes fields the reader must skip."""
    out = b""
    for piece, score, typ in pieces:
        body = field_bytes(1, piece) + field_float(2, score)
        if typ != NORMAL:
            body += field_varint(3, typ)
        out += field_bytes(1, body)
    trainer = field_bytes(1, "corpus.txt") + field_varint(3, model_type) + field_varint(4, len(pieces))
    trainer += field_float(10, 0.9995) + field_varint(35, 1 if byte_fallback else 0)
    trainer += field_varint(40, 0) + field_varint(41, 1) + field_varint(42, 2) + field_varint(43, -1)
    trainer += field_bytes(45, "<unk>")
    out += field_bytes(2, trainer)
    norm = field_bytes(1, name)
    if charsmap:
        norm += field_bytes(2, charsmap)
    norm += field_varint(3, int(add_dummy_prefix)) + field_varint(4, int(remove_extra_whitespaces))
    norm += field_varint(5, int(escape_whitespaces))
    out += field_bytes(3, norm)
    out += field_bytes(5, field_bytes(1, "identity"))  # denormalizer_spec: skipped
    return out


# ---------------------------------------------------------------------------------------------
# darts-clone double array for precompiled_charsmap: node at position p has base p ^ offset;
# its child with label c sits at base ^ c, its value (a leaf unit, bit 31 set) at base.


def double_array(keys):
    """keys: {bytes: value} -> list of uint32 units."""
    root = {}
    for k, v in keys.items():
        node = root
        for b in k:
            node = node.setdefault(b, {})
        node[None] = v
    units = [0] * 64
    used = {0}

    def grow(n):
        while len(units) <= n:
            units.extend([0] * len(units))

    queue = [(root, 0)]
    while queue:
        node, p = queue.pop(0)
        labels = sorted(c for c in node if c is not None)
        need = labels + ([0] if None in node else [])
        base = 1
        while any((base ^ c) in used for c in need) or (p ^ base) >= (1 << 21):
            base += 1
        offset = p ^ base
        for c in need:
            used.add(base ^ c)
        grow(base | 0xFF)
        units[p] |= (offset << 10) | ((1 << 8) if None in node else 0)
        if None in node:
            units[base] = node[None] | (1 << 31)
        for c in labels:
            units[base ^ c] = c
            queue.append((node[c], base ^ c))
    while units and units[-1] == 0:
        units.pop()
    return units


def charsmap_blob(rules):
    """rules: {source: replacement} -> precompiled_charsmap bytes."""
    strings = b""
    keys = {}
    for src, dst in rules.items():
        keys[src.encode("utf-8")] = len(strings)
        strings += dst.encode("utf-8") + b"\0"
    units = double_array(keys)
    trie = b"".join(struct.pack("<I", u) for u in units)
    return struct.pack("<I", len(trie)) + trie + strings


# NFKC-like rules, one with a two-character source (the longest match must win in SentencePiece,
# the shortest in Hugging Face's grapheme-wise Precompiled).
RULES = {
    "\t": " ",
    "\u3000": " ",
    "\uff21": "A",
    "\uff22": "B",
    "\ufb01": "fi",
    "\u2460": "1",
    "e\u0301": "\u00e9",
    "e": "e",
    "\u00a0": " ",
}
CHARSMAP = charsmap_blob(RULES)


# ---------------------------------------------------------------------------------------------
# SentencePiece reference.


def spm_normalize(text, rules, user_defined, add_dummy_prefix, remove_extra, escape, first=True):
    pieces = []  # normalized pieces, one per match
    pos = 0
    while pos < len(text):
        ud = [u for u in user_defined if text.startswith(u, pos)]
        if ud:
            u = max(ud, key=len)
            pieces.append(u)
            pos += len(u)
            continue
        best = None
        for src in rules:
            if text.startswith(src, pos) and (best is None or len(src) > len(best)):
                best = src
        if best is not None:
            pieces.append(rules[best])
            pos += len(best)
        else:
            pieces.append(text[pos])
            pos += 1
    space = SP if escape else " "
    out = space if (add_dummy_prefix and first and text) else ""
    prev_space = remove_extra
    for p in pieces:
        if prev_space:
            p = p.lstrip(" ")
        if p:
            out += p.replace(" ", space)
            prev_space = p.endswith(" ")
        if not remove_extra:
            prev_space = False
    if remove_extra:
        while out.endswith(space):
            out = out[: -len(space)]
    return out


def spm_bpe(normalized, pieces):
    """pieces: [(piece, score, type)] -> ids (the naive algorithm)."""
    index = {p: i for i, (p, s, t) in enumerate(pieces)}
    mergeable = {p: (s, t) for p, s, t in pieces if t in (NORMAL, USER_DEFINED, UNUSED)}
    user = sorted((p for p, s, t in pieces if t == USER_DEFINED), key=len, reverse=True)
    syms, frozen = [], []
    pos = 0
    while pos < len(normalized):
        u = next((u for u in user if normalized.startswith(u, pos)), None)
        syms.append(u or normalized[pos])
        frozen.append(u is not None)
        pos += len(u) if u else 1
    made = {}  # unused piece -> the pair that last made it
    while True:
        best = None
        for i in range(len(syms) - 1):
            if frozen[i] or frozen[i + 1]:
                continue
            cat = syms[i] + syms[i + 1]
            if cat in mergeable and (best is None or mergeable[cat][0] > best[0]):
                best = (mergeable[cat][0], i)
        if best is None:
            break
        i = best[1]
        cat = syms[i] + syms[i + 1]
        if mergeable[cat][1] == UNUSED:
            made[cat] = (syms[i], syms[i + 1])
        syms[i: i + 2] = [cat]
        frozen[i: i + 2] = [False]

    def reseg(s):
        if s in mergeable and mergeable[s][1] == UNUSED and s in made:
            return reseg(made[s][0]) + reseg(made[s][1])
        return [s]

    return [x for s in syms for x in reseg(s)]


def spm_unigram(normalized, pieces):
    """Viterbi with float32 path scores, as SentencePiece's optimized encoder."""
    f32 = lambda x: struct.unpack("<f", struct.pack("<f", x))[0]  # noqa: E731
    normal_scores = [s for p, s, t in pieces if t == NORMAL]
    min_score = min(normal_scores)
    max_score = max(normal_scores + [1.1754943508222875e-38])  # FLT_MIN
    unk_score = f32(f32(min_score) - 10.0)
    table = {p: (i, s, t) for i, (p, s, t) in enumerate(pieces) if t in (NORMAL, USER_DEFINED)}
    data = normalized.encode("utf-8")
    n = len(data)
    best = [None] * (n + 1)  # (score, start, piece or None for unknown)
    best[0] = (0.0, -1, None)
    starts = [i for i in range(n) if (data[i] & 0xC0) != 0x80]
    for s in starts:
        char_end = next((e for e in starts if e > s), n)
        found_single = False
        for e in range(s + 1, n + 1):
            piece = data[s:e]
            try:
                piece = piece.decode("utf-8")
            except UnicodeDecodeError:
                continue
            if piece in table:
                _, score, typ = table[piece]
                if typ == USER_DEFINED:
                    score = f32(len(data[s:e]) * f32(max_score)) - 0.1
                cand = score + best[s][0]
                if best[e] is None or cand > best[e][0]:
                    best[e] = (f32(cand), s, piece)
                if e == char_end:
                    found_single = True
        if not found_single:
            cand = unk_score + best[s][0]
            if best[char_end] is None or cand > best[char_end][0]:
                best[char_end] = (f32(cand), s, None)
    out = []
    e = n
    while e > 0:
        score, s, piece = best[e]
        out.append((data[s:e].decode("utf-8"), piece is None))
        e = s
    return out[::-1]


def spm_ids(pieces, tokens_unknown, byte_fallback):
    """[(text, unknown?)] -> ids, fusing unknown runs or spelling them as bytes."""
    index = {p: i for i, (p, s, t) in enumerate(pieces)}
    unk = next(i for i, (p, s, t) in enumerate(pieces) if t == UNKNOWN)
    ids = []
    prev_unk = False
    for text, unknown in tokens_unknown:
        if unknown and byte_fallback:
            ids += [index["<0x%02X>" % b] for b in text.encode("utf-8")]
        elif unknown:
            if not prev_unk:
                ids.append(unk)
        else:
            ids.append(index[text])
        prev_unk = unknown
    return ids


def spm_encode(text, pieces, model_type, byte_fallback, rules, add_dummy_prefix=True, remove_extra=True, escape=True,
               bos=True, eos=False, cut_specials=True):
    """transformers-style framing: control/unknown pieces cut out, each fragment normalized alone."""
    index = {p: i for i, (p, s, t) in enumerate(pieces)}
    specials = sorted((p for p, s, t in pieces if t in (CONTROL, UNKNOWN)), key=len, reverse=True) if cut_specials else []
    user = [p for p, s, t in pieces if t == USER_DEFINED]
    fragments = []
    pos, begin = 0, 0
    while pos < len(text):
        hit = next((s for s in specials if text.startswith(s, pos)), None)
        if hit is None:
            pos += 1
            continue
        if pos > begin:
            fragments.append(text[begin:pos])
        fragments.append((hit,))
        pos += len(hit)
        begin = pos
    if begin < len(text):
        fragments.append(text[begin:])
    ids = [index["<s>"]] if bos else []
    for f in fragments:
        if isinstance(f, tuple):
            ids.append(index[f[0]])
            continue
        norm = spm_normalize(f, rules, user, add_dummy_prefix, remove_extra, escape)
        if not norm:
            continue
        if model_type == BPE:
            toks = [(s, s not in index or pieces[index[s]][2] in (UNKNOWN,)) for s in spm_bpe(norm, pieces)]
        else:
            toks = spm_unigram(norm, pieces)
        ids += spm_ids(pieces, toks, byte_fallback)
    if eos:
        ids.append(index["</s>"])
    return ids


def check_against_library(model_path, pieces, model_type, byte_fallback, rules, texts, **options):
    """The reference (without specials cut or BOS) must equal the real library's encode."""
    if sentencepiece is None:
        return
    sp = sentencepiece.SentencePieceProcessor(model_file=model_path)
    for text in texts:
        mine = spm_encode(text, pieces, model_type, byte_fallback, rules, bos=False, cut_specials=False, **options)
        real = sp.encode(text)
        if mine != real:
            sys.exit("%s: the Python reference gives %s for %r but SentencePiece gives %s"
                     % (model_path, mine, text, real))


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(folder, name), mode, **({} if mode == "wb" else {"encoding": "utf-8"})) as f:
        f.write(data)


def add_case(name, folder, texts):
    CASES.append({"name": name, "folder": folder, "texts": texts})


# ---------------------------------------------------------------------------------------------
# SentencePiece models.

BYTES = [("<0x%02X>" % b, 0.0, BYTE) for b in range(256)]
HEAD = [("<unk>", 0.0, UNKNOWN), ("<s>", 0.0, CONTROL), ("</s>", 0.0, CONTROL)]
CHARS = list(SP + "abcdefghijklmnopqrstuvwxyzT.,()'") + ["\u00e9", "1", "A", "B"]
MERGED = [SP + "t", "he", SP + "the", "at", SP + "c", SP + "cat", SP + "s", SP + "sat", "an", SP + "an", SP + "a",
          "on", SP + "on", "in", "ing", SP + SP, SP + SP + SP + SP, "ca", "cat", "fi", SP + "fi", "ne", "es",
          "ac", "aa", "bb", "aaaa", SP + "m", SP + "mat", "ce", "ed"]


def bpe_pieces(unused=("ca",), ties=("aa", "bb")):
    pieces = list(HEAD)
    pieces += [(m, -float(i), UNUSED if m in unused else NORMAL) for i, m in enumerate(MERGED)]
    for m in ties:  # equal scores: the leftmost pair merges first
        i = next(k for k, p in enumerate(pieces) if p[0] == m)
        pieces[i] = (m, -3.5, pieces[i][2])
    pieces += [(c, -100.0 - i, NORMAL) for i, c in enumerate(CHARS)]
    pieces += [("<tag>", 0.0, USER_DEFINED)]
    return pieces


def spm_case(name, pieces, model_type, byte_fallback, rules, texts, config=None, **options):
    folder = os.path.join(OUT, name)
    charsmap = charsmap_blob(rules) if rules else b""
    proto = model_proto(([(p, s, t) for p, s, t in pieces]), model_type, byte_fallback, charsmap,
                        add_dummy_prefix=options.get("add_dummy_prefix", True),
                        remove_extra_whitespaces=options.get("remove_extra", True),
                        escape_whitespaces=options.get("escape", True))
    write(folder, "tokenizer.model", proto)
    check_against_library(os.path.join(folder, "tokenizer.model"), pieces, model_type, byte_fallback, rules, texts, **options)
    frame = {"bos": True, "eos": False}
    if config is not None:
        write(folder, "tokenizer_config.json", json.dumps(config))
        frame = {"bos": config.get("add_bos_token", True), "eos": config.get("add_eos_token", False)}
    add_case(name, folder, [{"a": t, "ids": spm_encode(t, pieces, model_type, byte_fallback, rules, **frame, **options)}
                            for t in texts])


# Llama 2-style: BPE with byte fallback, no normalization rules, extra whitespace kept.
spm_case("spm_bpe_bytes", bpe_pieces() + BYTES, BPE, True, {}, SPM_TEXTS, remove_extra=False)
# BPE without byte fallback (unknown runs fused), with rules, whitespace collapsed, EOS added.
spm_case("spm_bpe_rules", bpe_pieces(unused=(), ties=()), BPE, False, RULES, SPM_TEXTS,
         config={"add_bos_token": False, "add_eos_token": True})


def unigram_pieces(with_bytes):
    pieces = list(HEAD)
    scores = {SP + "the": -2.0, SP + "cat": -3.0, "cat": -3.5, SP + "c": -4.0, "at": -4.2, SP + "sat": -3.1, SP + "s": -4.5,
              "he": -5.0, SP + "t": -5.5, SP + "a": -4.8, "an": -5.1, SP + "an": -4.9, SP + "on": -4.4, "in": -5.3,
              "ing": -4.1, SP + SP: -6.0, "ca": -6.5, "fi": -5.9, SP + "fi": -5.7, "ne": -6.1, "es": -6.2, "aa": -7.0,
              "bb": -7.0, "aaaa": -13.0, SP + "m": -6.3, SP + "mat": -4.6, "ed": -6.4, "ce": -6.6}
    pieces += [(p, s, NORMAL) for p, s in scores.items()]
    pieces += [(c, -8.0 - 0.01 * i, NORMAL) for i, c in enumerate(CHARS)]
    pieces += [("<tag>", 0.0, USER_DEFINED), ("scat", -1.0, UNUSED)]
    return pieces + (BYTES if with_bytes else [])


UNIGRAM_BYTES = unigram_pieces(True)
UNIGRAM_PLAIN = unigram_pieces(False)
# T5 / XLM-R-style Unigram: rules, whitespace collapsed, byte fallback.
spm_case("spm_unigram_bytes", UNIGRAM_BYTES, UNIGRAM, True, RULES, SPM_TEXTS)
# Unigram without byte fallback or dummy prefix; legacy false only changes the prefix, off here.
spm_case("spm_unigram_plain", UNIGRAM_PLAIN, UNIGRAM, False, {}, SPM_TEXTS, add_dummy_prefix=False, remove_extra=False,
         config={"add_bos_token": True, "legacy": True})

# A real model trained by the library (its charsmap is SentencePiece's own nmt_nfkc double array),
# compared with the library directly (no Python reference): BPE and Unigram.
if sentencepiece is not None:
    corpus = os.path.join(OUT, "corpus.txt")
    lines = ["The quick brown fox jumps over the lazy dog.", "Lily saw a cat on the mat, and the cat sat.",
             "caf\u00e9 na\u00efve r\u00e9sum\u00e9 \uff26\uff55\uff4c\uff4c width", "Once upon a time there was a little girl."]
    with open(corpus, "w", encoding="utf-8") as f:
        for i in range(40):
            f.write(lines[i % len(lines)] + " " + str(i) + "\n")
    for kind in ("bpe", "unigram"):
        folder = os.path.join(OUT, "trained_" + kind)
        os.makedirs(folder, exist_ok=True)
        sentencepiece.SentencePieceTrainer.train(
            input=corpus, model_prefix=os.path.join(folder, "tokenizer"), vocab_size=320, model_type=kind,
            byte_fallback=True, character_coverage=1.0, minloglevel=2, hard_vocab_limit=False, user_defined_symbols=["<tag>"])
        sp = sentencepiece.SentencePieceProcessor(model_file=os.path.join(folder, "tokenizer.model"))
        texts = SPM_TEXTS + ["\uff26\uff55\uff4c\uff4c width \u2460\u2461 \u3000 ideographic space", "na\u00efve\u00a0r\u00e9sum\u00e9"]
        add_case("trained_" + kind, folder,
                 [{"a": t, "ids": [sp.bos_id()] + sp.encode(t)} for t in texts if "<s>" not in t and "<unk>" not in t])
else:
    print("SKIP the SentencePiece library check: python3-sentencepiece is not installed (tests/setup_debian.sh installs it)")

# ---------------------------------------------------------------------------------------------
# Hugging Face Unigram (tokenizer.json), XLM-R style.


def graphemes(text):
    out = []
    for c in text:
        if out and (unicodedata.category(c) in ("Mn", "Mc", "Me") or c == "\u200d"):
            out[-1] += c
        else:
            out.append(c)
    return out


def hf_precompiled(text, rules):
    out = ""
    for g in graphemes(text):
        if len(g.encode("utf-8")) < 6:
            match = [src for src in rules if g.startswith(src)]
            if match:
                out += rules[min(match, key=len)]
                continue
        for c in g:
            out += rules.get(c, c)
    return out


def metaspace(text, prepend, first):
    text = text.replace(" ", SP)
    if (prepend == "always" or (prepend == "first" and first)) and not text.startswith(SP):
        text = SP + text
    words, cur = [], ""
    for i, c in enumerate(text):
        if c == SP and cur:
            words.append(cur)
            cur = ""
        cur += c
    if cur:
        words.append(cur)
    return words


def hf_unigram_word(word, vocab, unk_id, byte_fallback):
    index = {}
    for i, (p, s) in enumerate(vocab):
        index[p] = i
    min_score = min(s for p, s in vocab)
    data = word.encode("utf-8")
    n = len(data)
    starts = [i for i in range(n) if (data[i] & 0xC0) != 0x80]
    best = [None] * (n + 1)
    best[0] = (0.0, -1, None)
    for s in starts:
        char_end = next((e for e in starts if e > s), n)
        single = False
        for e in range(s + 1, n + 1):
            try:
                piece = data[s:e].decode("utf-8")
            except UnicodeDecodeError:
                continue
            if piece in index:
                cand = vocab[index[piece]][1] + best[s][0]
                if best[e] is None or cand > best[e][0]:
                    best[e] = (cand, s, index[piece])
                single = single or e == char_end
        if not single:
            cand = min_score - 10.0 + best[s][0]
            if best[char_end] is None or cand > best[char_end][0]:
                best[char_end] = (cand, s, unk_id)
    toks = []
    e = n
    while e > 0:
        _, s, i = best[e]
        toks.append((data[s:e].decode("utf-8"), i))
        e = s
    toks.reverse()
    ids, fused = [], ""
    for text, i in toks + [("", None)]:
        if i == unk_id:
            fused += text
            continue
        if fused:
            if fused in index:
                ids.append(index[fused])
            elif byte_fallback and all("<0x%02X>" % b in index for b in fused.encode("utf-8")):
                ids += [index["<0x%02X>" % b] for b in fused.encode("utf-8")]
            else:
                ids.append(unk_id)
            fused = ""
        if i is not None:
            ids.append(i)
    return ids


def split_added(text, added, lstrip=()):
    """[(segment text, None) or (None, id)] with added tokens cut out, longest first; a token in
    `lstrip` takes the whitespace before it."""
    order = sorted(added, key=lambda a: len(a[0]), reverse=True)
    out, pos, begin = [], 0, 0
    while pos < len(text):
        hit = next((a for a in order if text.startswith(a[0], pos)), None)
        if hit is None:
            pos += 1
            continue
        end = pos
        while hit[0] in lstrip and end > begin and white_space(text[end - 1]):
            end -= 1
        if end > begin:
            out.append((text[begin:end], None))
        out.append((None, hit[1]))
        pos += len(hit[0])
        begin = pos
    if begin < len(text):
        out.append((text[begin:], None))
    return out


def frame(template, a_ids, b_ids):
    """TemplateProcessing: [("A"|"B"|id, type_id)] -> (ids, type_ids)."""
    ids, types = [], []
    for item, type_id in template:
        part = a_ids if item == "A" else b_ids if item == "B" else [item]
        ids += part
        types += [type_id] * len(part)
    return ids, types


def template_json(template, names):
    items = []
    for item, type_id in template:
        if item in ("A", "B"):
            items.append({"Sequence": {"id": item, "type_id": type_id}})
        else:
            items.append({"SpecialToken": {"id": names[item], "type_id": type_id}})
    return items


XLMR_VOCAB = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
XLMR_VOCAB += [(p, s) for p, s, t in UNIGRAM_PLAIN[3:] if t == NORMAL]
XLMR_VOCAB += [("<mask>", 0.0)]
XLMR_ADDED = [("<s>", 0), ("<pad>", 1), ("</s>", 2), ("<unk>", 3), ("<mask>", len(XLMR_VOCAB) - 1)]
XLMR_SINGLE = [(0, 0), ("A", 0), (2, 0)]
XLMR_PAIR = [(0, 0), ("A", 0), (2, 0), (2, 0), ("B", 0), (2, 0)]


def xlmr_encode(text, prepend="always", byte_fallback=False, vocab=XLMR_VOCAB):
    ids, first = [], True
    for seg, added_id in split_added(text, XLMR_ADDED, lstrip=("<mask>",)):
        if added_id is not None:
            ids.append(added_id)
            first = False
            continue
        norm = hf_precompiled(seg, RULES)
        for w in metaspace(norm, prepend, first):
            ids += hf_unigram_word(w, vocab, 3, byte_fallback)
        first = False
    return ids


def xlmr_json(prepend, byte_fallback, vocab):
    names = {0: "<s>", 2: "</s>"}
    return {
        "version": "1.0",
        "added_tokens": [{"id": i, "content": c, "special": True, "normalized": False, "lstrip": c == "<mask>",
                          "rstrip": False, "single_word": False} for c, i in XLMR_ADDED],
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(CHARSMAP).decode()}]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": SP, "prepend_scheme": prepend, "split": True},
        "post_processor": {"type": "TemplateProcessing", "single": template_json(XLMR_SINGLE, names),
                           "pair": template_json(XLMR_PAIR, names),
                           "special_tokens": {"<s>": {"id": "<s>", "ids": [0], "tokens": ["<s>"]},
                                              "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}}},
        "decoder": {"type": "Metaspace", "replacement": SP, "prepend_scheme": prepend, "split": True},
        "model": {"type": "Unigram", "unk_id": 3, "vocab": [[p, s] for p, s in vocab], "byte_fallback": byte_fallback},
    }


UNIGRAM_TEXTS = SPM_TEXTS + ["x<mask>y", "the  \u3000<mask> cat <mask>", "AB\uff21\uff22\ufb01 e\u0301e\u0301 \u2460 tab\there"]
PAIRS = [("the cat", "sat on the mat"), ("caf\u00e9", "\u65e5 unknown"), ("<s>", "")]

folder = os.path.join(OUT, "hf_unigram")
write(folder, "tokenizer.json", json.dumps(xlmr_json("always", False, XLMR_VOCAB), ensure_ascii=False))
cases = []
for t in UNIGRAM_TEXTS:
    ids, types = frame(XLMR_SINGLE, xlmr_encode(t), [])
    cases.append({"a": t, "ids": ids, "type_ids": types})
for a, b in PAIRS:
    ids, types = frame(XLMR_PAIR, xlmr_encode(a), xlmr_encode(b))
    cases.append({"a": a, "b": b, "ids": ids, "type_ids": types})
add_case("hf_unigram", folder, cases)

bytes_vocab = XLMR_VOCAB[:-1] + [(p, s) for p, s, t in BYTES] + [XLMR_VOCAB[-1]]
XLMR_ADDED[-1] = ("<mask>", len(bytes_vocab) - 1)
folder = os.path.join(OUT, "hf_unigram_bytes_first")
write(folder, "tokenizer.json", json.dumps(xlmr_json("first", True, bytes_vocab), ensure_ascii=False))
add_case("hf_unigram_bytes_first", folder,
         [{"a": t, "ids": frame(XLMR_SINGLE, xlmr_encode(t, "first", True, bytes_vocab), [])[0]} for t in UNIGRAM_TEXTS])

# ---------------------------------------------------------------------------------------------
# Normalizers, each seen through a Unigram model of single characters (ids spell the normalized
# text; a character the reference does not produce would be <unk>).


def hf_lowercase(s):
    return "".join(c.lower() for c in s)  # per character: no final-sigma context, as Rust's char::to_lowercase


def bert_normalize(text, clean=True, chinese=True, strip_accents=None, lowercase=True):
    if clean:
        out = ""
        for c in text:
            cp = ord(c)
            if cp == 0 or cp == 0xFFFD or (c not in "\t\n\r" and unicodedata.category(c) in ("Cc", "Cf", "Co")):
                continue
            out += " " if white_space(c) else c
        text = out
    if chinese:
        text = "".join(" %s " % c if is_cjk(ord(c)) else c for c in text)
    if strip_accents is None:
        strip_accents = lowercase
    if strip_accents:
        text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
    if lowercase:
        text = hf_lowercase(text)
    return text


def is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B920 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def strip(text, left, right):
    while left and text and white_space(text[0]):
        text = text[1:]
    while right and text and white_space(text[-1]):
        text = text[:-1]
    return text


NMT_DROP = set(range(1, 9)) | {0x0B} | set(range(0x0E, 0x20)) | {0x7F, 0x8F, 0x9F}
NMT_SPACE = {0x09, 0x0A, 0x0C, 0x0D, 0x1680, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2028, 0x2029, 0x2581, 0xFEFF, 0xFFFD}

NORMALIZERS = {
    "NFC": ({"type": "NFC"}, lambda s: unicodedata.normalize("NFC", s)),
    "NFD": ({"type": "NFD"}, lambda s: unicodedata.normalize("NFD", s)),
    "NFKC": ({"type": "NFKC"}, lambda s: unicodedata.normalize("NFKC", s)),
    "NFKD": ({"type": "NFKD"}, lambda s: unicodedata.normalize("NFKD", s)),
    "Lowercase": ({"type": "Lowercase"}, hf_lowercase),
    "StripAccents": ({"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}]},
                     lambda s: "".join(c for c in unicodedata.normalize("NFD", s) if not unicodedata.category(c).startswith("M"))),
    "Strip": ({"type": "Strip", "strip_left": True, "strip_right": True}, lambda s: strip(s, True, True)),
    "StripRight": ({"type": "Strip", "strip_left": False, "strip_right": True}, lambda s: strip(s, False, True)),
    "Replace": ({"type": "Sequence", "normalizers": [
        {"type": "Replace", "pattern": {"String": "``"}, "content": "\""},
        {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": SP}]},
        lambda s: __import__("re").sub(" {2,}", SP, s.replace("``", "\""))),
    "Prepend": ({"type": "Prepend", "prepend": SP}, lambda s: SP + s if s else s),
    "Nmt": ({"type": "Nmt"}, lambda s: "".join(" " if ord(c) in NMT_SPACE else c for c in s if ord(c) not in NMT_DROP)),
    "Bert": ({"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
             bert_normalize),
    "BertCased": ({"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": False, "strip_accents": True,
                   "lowercase": False}, lambda s: bert_normalize(s, True, False, True, False)),
}
NORMALIZER_TEXTS = [
    "caf\u00e9 cafe\u0301 \u00c5ngstr\u00f6m \u212b \u1e9b\u0323",
    "\uff21\uff22\uff23 \ufb01 \u2460 \u00bd x\u00b2 \u3000 \u00a0nbsp",
    "\u0130stanbul \u03a3\u039f\u03a3 STRASSE stra\u00dfe \u0048\u0307",
    "  spaced\tout  \n",
    "ctrl\x01\x07\u200bzero\ufeffwidth\u00adsoft\ue000pua\ufffd",
    "\u4e2d\u6587\u5b57 and \u3042 kana",
    "``quoted''   three   spaces",
    "\u1100\u1161\u11a8 \uac01 hangul",
]
for name, (spec, ref) in NORMALIZERS.items():
    expected = [ref(t) for t in NORMALIZER_TEXTS]
    chars = sorted(set("".join(expected)))
    vocab = [("<unk>", 0.0)] + [(c, -1.0) for c in chars]
    index = {c: i + 1 for i, c in enumerate(chars)}
    folder = os.path.join(OUT, "normalizer_" + name)
    write(folder, "tokenizer.json", json.dumps({
        "version": "1.0", "added_tokens": [], "normalizer": spec, "pre_tokenizer": None, "post_processor": None,
        "model": {"type": "Unigram", "unk_id": 0, "vocab": [[p, s] for p, s in vocab], "byte_fallback": False}},
        ensure_ascii=False))
    add_case("normalizer_" + name, folder, [{"a": t, "ids": [index[c] for c in e]} for t, e in zip(NORMALIZER_TEXTS, expected)])

# Qwen-style: NFC, then GPT-2's byte-level split; a byte alphabet and no merges, so the ids are
# the bytes of the NFC text.
alpha, extra = {}, 0
for b in range(256):
    printable = ord("!") <= b <= ord("~") or 0xA1 <= b <= 0xAC or 0xAE <= b <= 0xFF
    alpha[b] = chr(b) if printable else chr(256 + extra)
    extra += 0 if printable else 1
folder = os.path.join(OUT, "qwen_nfc")
write(folder, "tokenizer.json", json.dumps({
    "version": "1.0", "added_tokens": [{"id": 256, "content": "<|endoftext|>", "special": True}],
    "normalizer": {"type": "NFC"},
    "pre_tokenizer": {"type": "Sequence", "pretokenizers": [
        {"type": "Split", "pattern": {"Regex": "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"},
         "behavior": "Isolated", "invert": False},
        {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False}]},
    "post_processor": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
    "model": {"type": "BPE", "vocab": {alpha[b]: b for b in range(256)}, "merges": [], "byte_fallback": False,
              "ignore_merges": False}}, ensure_ascii=False))
qwen_texts = ["cafe\u0301 \u212b\u2126 A\u030a", "plain ascii", "\ud55c\uad6d\uc5b4 \u1112\u1161\u11ab<|endoftext|>x"]
cases = []
for t in qwen_texts:
    ids = []
    for seg, added_id in split_added(t, [("<|endoftext|>", 256)]):
        ids += [added_id] if added_id is not None else list(unicodedata.normalize("NFC", seg).encode("utf-8"))
    cases.append({"a": t, "ids": ids})
add_case("qwen_nfc", folder, cases)

# ---------------------------------------------------------------------------------------------
# WordPiece (BERT).


def is_bert_punct(c):
    cp = ord(c)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def bert_pre_tokenize(text):
    words, cur = [], ""
    for c in text:
        if white_space(c):
            if cur:
                words.append(cur)
            cur = ""
        elif is_bert_punct(c):
            if cur:
                words.append(cur)
            words.append(c)
            cur = ""
        else:
            cur += c
    if cur:
        words.append(cur)
    return words


def wordpiece(word, index, unk, max_chars):
    if len(word) > max_chars:
        return [index[unk]]
    out, start = [], 0
    while start < len(word):
        end = len(word)
        cur = None
        while start < end:
            sub = word[start:end]
            if start > 0:
                sub = "##" + sub
            if sub in index:
                cur = index[sub]
                break
            end -= 1
        if cur is None:
            return [index[unk]]
        out.append(cur)
        start = end
    return out


BERT_VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + list(".,!?'\"()-$") + [
    "the", "cat", "sat", "on", "mat", "un", "##aff", "##able", "##ed", "##ing", "play", "caf", "##e", "cafe", "resume",
    "naive", "\u4e2d", "\u6587", "hello", "world", "##s", "a", "b", "##b", "##a", "##r", "e", "r", "s", "u", "m",
    "The", "Cafe", "Ca", "##f", "##\u00e9", "caf\u00e9", "\u00e9", "x", "##x", "##\u0301", "don", "t", "isn", "\u00f1", "ma", "##\u00f1ana",
    "##ana", "##n", "2024", "##4", "20", "##24", "\u00c9", "##c", "##t", "##h", "##e"]
BERT_VOCAB = list(dict.fromkeys(BERT_VOCAB))  # no repeats
BERT_INDEX = {p: i for i, p in enumerate(BERT_VOCAB)}
BERT_TEXTS = [
    "The cat sat on the mat.",
    "unaffable playing",
    "Caf\u00e9 na\u00efve r\u00e9sum\u00e9 cafe\u0301",
    "\u4e2d\u6587hello\u6587world",
    "don't, isn't (x)! $20 2024",
    "ma\u00f1ana MA\u00d1ANA",
    "unknownword xyzzy",
    "aaaaaaaaaaaaaaaaaaaaaaaaaa bbbbb",
    "  \t\nwhitespace\u00a0and\u3000more  ",
    "[CLS] the [MASK] sat [SEP]",
    "ctrl\x01\x07chars\u200b\ufffd",
    "",
]
BERT_PAIRS = [("The cat sat.", "On the mat!"), ("unaffable", "\u4e2d\u6587"), ("", "x")]
BERT_SPECIALS = [("[PAD]", 0), ("[UNK]", 1), ("[CLS]", 2), ("[SEP]", 3), ("[MASK]", 4)]


def bert_encode(text, lowercase=True, strip_accents=None, chinese=True, max_chars=100):
    ids = []
    for seg, added_id in split_added(text, BERT_SPECIALS):
        if added_id is not None:
            ids.append(added_id)
            continue
        norm = bert_normalize(seg, True, chinese, strip_accents, lowercase)
        for w in bert_pre_tokenize(norm):
            ids += wordpiece(w, BERT_INDEX, "[UNK]", max_chars)
    return ids


BERT_SINGLE = [(2, 0), ("A", 0), (3, 0)]
BERT_PAIR = [(2, 0), ("A", 0), (3, 0), ("B", 1), (3, 1)]


def bert_cases(**options):
    cases = []
    for t in BERT_TEXTS:
        ids, types = frame(BERT_SINGLE, bert_encode(t, **options), [])
        cases.append({"a": t, "ids": ids, "type_ids": types})
    for a, b in BERT_PAIRS:
        ids, types = frame(BERT_PAIR, bert_encode(a, **options), bert_encode(b, **options))
        cases.append({"a": a, "b": b, "ids": ids, "type_ids": types})
    return cases


def bert_json(lowercase, post):
    return {
        "version": "1.0",
        "added_tokens": [{"id": i, "content": c, "special": True, "normalized": False} for c, i in BERT_SPECIALS],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None,
                       "lowercase": lowercase},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": post,
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 12,
                  "vocab": BERT_INDEX},
    }


folder = os.path.join(OUT, "bert_json")
write(folder, "tokenizer.json", json.dumps(bert_json(True, {"type": "BertProcessing", "sep": ["[SEP]", 3], "cls": ["[CLS]", 2]}),
                                           ensure_ascii=False))
add_case("bert_json", folder, bert_cases(max_chars=12))
folder = os.path.join(OUT, "bert_json_template_cased")
write(folder, "tokenizer.json", json.dumps(bert_json(False, {
    "type": "TemplateProcessing", "single": template_json(BERT_SINGLE, {2: "[CLS]", 3: "[SEP]"}),
    "pair": template_json(BERT_PAIR, {2: "[CLS]", 3: "[SEP]"}),
    "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}}),
    ensure_ascii=False))
add_case("bert_json_template_cased", folder, bert_cases(lowercase=False, max_chars=12))
# vocab.txt only (bert-base-cased style: tokenizer_config.json says do_lower_case false).
folder = os.path.join(OUT, "bert_vocab_cased")
write(folder, "vocab.txt", "\n".join(BERT_VOCAB) + "\n")
write(folder, "tokenizer_config.json", json.dumps({"do_lower_case": False, "model_max_length": 512}))
add_case("bert_vocab_cased", folder, bert_cases(lowercase=False))
folder = os.path.join(OUT, "bert_vocab_uncased")
write(folder, "vocab.txt", "\n".join(BERT_VOCAB))
add_case("bert_vocab_uncased", folder, bert_cases())

with open(os.path.join(OUT, "cases.json"), "w", encoding="utf-8") as f:
    json.dump({"cases": CASES}, f, ensure_ascii=False, indent=1)
print("%d tokenizer folders, %d texts in %s" % (len(CASES), sum(len(c["texts"]) for c in CASES), OUT))
