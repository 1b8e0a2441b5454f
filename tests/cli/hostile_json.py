#!/usr/bin/python3
"""headscope-cli against hostile JSON (issue 28, classes A and C): every JSON file the CLI reads,
nested far past the depth limit (512), a 1 MB value in a message, and huge element counts.
Every bad case must exit 1 or 2 with exactly one stderr line starting "error:" that names the
file: no stack overflow (death by SIGSEGV), no hang (each run has a time limit), and no message
that echoes the input whole. The element-count cases only have to answer within 20 s (parsing
was quadratic: 20,000 safetensors tensors took 25 s); they never assert a tight time.

Session and lesson files are read only by the app: tests/gl/app_hostile_input.py and
tests/core/formats/json_strict_test.cpp cover them.

Usage: hostile_json.py PATH/TO/headscope-cli
Needs only the standard library.
"""
import json
import os
import shutil
import struct
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile_input as h  # noqa: E402  (run with limits, temporary folder, the failure count)

DEEP = 1_000_000  # far past the limit: a recursive copy or dump() of this overflows the stack
MAX_LINE = 400    # an error line that echoes at most ~60 characters of a value stays under this
SENTENCE = ["--sentence", "a b"]


def deep_array(depth):
    return "[" * depth + "]" * depth


def write(path, text):
    with open(path, "w" if isinstance(text, str) else "wb") as f:
        f.write(text)
    return path


def safetensors(path, tensors, metadata=None):
    """A safetensors file of F32 tensors: {name: list of floats} (each stored as shape [len])."""
    header, data = {}, b""
    for name, values in tensors.items():
        header[name] = {"dtype": "F32", "shape": [len(values)], "data_offsets": [len(data), len(data) + 4 * len(values)]}
        data += struct.pack(f"<{len(values)}f", *values)
    if metadata is not None:
        header["__metadata__"] = metadata
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    return write(path, struct.pack("<Q", len(raw)) + raw + data)


def attention_file(path, metadata=None):
    """One layer, one head, two tokens: [1, 1, 2, 2] F32, rows summing to 1."""
    values = [0.5, 0.5, 0.25, 0.75]
    header = {"attention": {"dtype": "F32", "shape": [1, 1, 2, 2], "data_offsets": [0, 16]}}
    if metadata is not None:
        header["__metadata__"] = metadata
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    return write(path, struct.pack("<Q", len(raw)) + raw + struct.pack("<4f", *values))


def hf_folder(name, config=None, tokenizer=None, files=None):
    """The fuzzers' tiny llama folder (tests/fuzz/hf_folder) with config.json, tokenizer.json and
    any other file replaced by the given text (None: the working one; False: left out)."""
    folder = h.path(name)
    os.mkdir(folder)
    source = os.path.join(h.SOURCE, "tests/fuzz/hf_folder")
    shutil.copy(os.path.join(source, "model.safetensors"), folder)
    if config is None:
        shutil.copy(os.path.join(h.SOURCE, "tests/fuzz/corpus/hf_config/llama.json"), os.path.join(folder, "config.json"))
    else:
        write(os.path.join(folder, "config.json"), config)
    if tokenizer is None:
        shutil.copy(os.path.join(source, "tokenizer.json"), folder)
    elif tokenizer is not False:
        write(os.path.join(folder, "tokenizer.json"), tokenizer)
    for file_name, text in (files or {}).items():
        write(os.path.join(folder, file_name), text)
    return folder


def llama_config(**extra):
    with open(os.path.join(h.SOURCE, "tests/fuzz/corpus/hf_config/llama.json")) as f:
        config = json.load(f)
    config.update(extra)
    return config


def with_raw(obj, key, raw):
    """JSON text of `obj` with `key` set to the JSON text `raw` (too deep for json.dumps)."""
    text = json.dumps(obj)
    return text[:-1] + f', "{key}": {raw}}}'


def expect_refused(label, args, file_name, says=(), **kw):
    """Exit 1 or 2 with one short error line naming the file and `says`, within the time limit,
    not by a signal. (Its own check, not hostile_input's: a failing line may be megabytes long.)"""
    started = time.monotonic()
    rc, _, err = h.run(args, **kw)
    lines = [l for l in err.splitlines() if l.strip()]
    shown = err.strip()[:300]
    if rc is None:
        return h.fail(f"{label}: {err} (a hang)")
    if rc not in (1, 2):
        return h.fail(f"{label}: expected exit 1 or 2, got {rc}" + (" (a signal)" if rc < 0 or rc > 128 else "") +
                      f"; stderr: {shown}")
    if len(lines) != 1 or not lines[0].startswith("error:"):
        return h.fail(f"{label}: expected one stderr line starting 'error:', got {len(lines)}: {shown!r}")
    if len(lines[0]) > MAX_LINE:
        return h.fail(f"{label}: the error line is {len(lines[0]):,} characters long (it echoes the input): {shown}...")
    for text in [file_name] + list(says):
        if text.lower() not in lines[0].lower():
            return h.fail(f"{label}: the message does not mention {text!r}: {lines[0]}")
    h.passed += 1
    print(f"ok   {label} ({time.monotonic() - started:.1f} s): {lines[0][:200]}")


def expect_answer(label, args, timeout=20):
    """Finishes (exit 0, or 1/2 with one error line) within `timeout` seconds, not by a signal."""
    started = time.monotonic()
    rc, _, err = h.run(args, timeout=timeout)
    lines = [l for l in err.splitlines() if l.strip()]
    if rc is None:
        h.fail(f"{label}: no answer within {timeout} s")
    elif rc not in (0, 1, 2):
        h.fail(f"{label}: exit {rc}; stderr: {err.strip()[:300]}")
    elif rc != 0 and (len(lines) != 1 or not lines[0].startswith("error:")):
        h.fail(f"{label}: expected one stderr line starting 'error:', got {len(lines)}: {err.strip()[:300]!r}")
    else:
        h.passed += 1
        print(f"ok   {label} ({time.monotonic() - started:.1f} s, exit {rc}): {(lines or [''])[0][:150]}")


# ---------------------------------------------------------------------------------------------
def check_nesting():
    """A: every JSON file the CLI reads, nested past the limit (a SIGSEGV before)."""
    deep_style = write(h.path("deep.json"), '{"title": ' + deep_array(200_000) + "}")
    expect_refused("--style nested 200,000 deep", ["export", "--sentence", "a", "--style", deep_style,
                                                   "--out", h.path("x.png")], "deep.json", ["nested deeper than 512"])
    folder = hf_folder("deep_config", config=with_raw(llama_config(), "unused", deep_array(DEEP)))
    expect_refused("config.json with an unused key nested 10^6 deep", ["maps"] + SENTENCE + ["--model", folder],
                   "config.json", ["nested deeper than 512"])
    with open(os.path.join(h.SOURCE, "tests/fuzz/hf_folder/tokenizer.json")) as f:
        tok = json.load(f)
    tok["model"]["vocab"]["DEEP"] = "DEEP"  # a vocab entry whose id is an array nested 10^6 deep
    text = json.dumps(tok).replace('"DEEP": "DEEP"', '"deep": ' + deep_array(DEEP))
    folder = hf_folder("deep_tokenizer", tokenizer=text)
    expect_refused("tokenizer.json with a vocab entry nested 10^6 deep", ["maps"] + SENTENCE + ["--model", folder],
                   "tokenizer.json", ["nested deeper than 512"])
    # tokenizer_config.json is read beside vocab.txt or tokenizer.model (no tokenizer.json).
    folder = hf_folder("deep_tokenizer_config", tokenizer=False,
                       files={"vocab.txt": "a\nb\n[UNK]\n",
                              "tokenizer_config.json": with_raw({"do_lower_case": True}, "unk_token", deep_array(DEEP))})
    expect_refused("tokenizer_config.json nested 10^6 deep", ["maps"] + SENTENCE + ["--model", folder],
                   "tokenizer_config.json", ["nested deeper than 512"])
    att = attention_file(h.path("deep_meta.safetensors"), {"tokens": deep_array(DEEP)})
    expect_refused("attention file metadata \"tokens\" nested 10^6 deep", ["maps", "--attention", att, "--json", "-"],
                   "deep_meta.safetensors", ["tokens", "nested deeper than 512"])
    att = attention_file(h.path("deep_side.safetensors"))
    write(att + ".tokens.json", deep_array(DEEP))
    expect_refused(".tokens.json sidecar nested 10^6 deep", ["maps", "--attention", att, "--json", "-"],
                   "deep_side.safetensors.tokens.json", ["nested deeper than 512"])
    # The safetensors header itself and a sharded checkpoint's index.
    deep_weights = safetensors(h.path("deep_header.safetensors"), {"in_proj_weight": [0.0] * 4},
                               metadata={"format": "pt"})
    with open(deep_weights, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = raw[8:8 + n].rstrip(b" ")[:-1] + b', "deep": ' + deep_array(DEEP).encode() + b"}"
    write(deep_weights, struct.pack("<Q", len(header)) + header + raw[8 + n:])
    expect_refused("safetensors header nested 10^6 deep", ["maps"] + SENTENCE + ["--weights", deep_weights, "--heads", "1"],
                   "deep_header.safetensors", ["nested deeper than 512"])
    folder = hf_folder("deep_index", files={"model.safetensors.index.json": with_raw({"weight_map": {}}, "x", deep_array(DEEP))})
    os.remove(os.path.join(folder, "model.safetensors"))
    expect_refused("model.safetensors.index.json nested 10^6 deep", ["maps"] + SENTENCE + ["--model", folder],
                   "model.safetensors.index.json", ["nested deeper than 512"])
    # GPT-2's vocab.json (beside merges.txt).
    folder = hf_folder("deep_vocab", config=json.dumps(llama_config()), tokenizer=False,
                       files={"vocab.json": with_raw({"a": 0}, "b", deep_array(DEEP)), "merges.txt": "#version: 0.2\n"})
    expect_refused("vocab.json nested 10^6 deep", ["maps"] + SENTENCE + ["--model", folder], "vocab.json",
                   ["nested deeper than 512"])
    # 512 levels are fine: the limit is not off by one on the accepting side.
    ok_style = write(h.path("deep512.json"), '{"unused": ' + deep_array(511) + "}")
    expect_refused("--style nested exactly 512 deep reaches the key check", ["export", "--sentence", "a", "--style", ok_style,
                                                                             "--out", h.path("y.png")],
                   "deep512.json", ["not a style key"])


# ---------------------------------------------------------------------------------------------
def check_long_values():
    """A: no message echoes a value whole (a 1 MB value made a 1 MB error line)."""
    big = "x" * (1 << 20)
    folder = hf_folder("long_value", config=json.dumps(llama_config(hidden_size=big)))
    expect_refused("config.json with a 1 MB value", ["maps"] + SENTENCE + ["--model", folder], "config.json",
                   ["hidden_size", "expected an integer"])
    folder = hf_folder("long_type", config=json.dumps(llama_config(model_type=big)))
    expect_refused("config.json with a 1 MB model_type", ["maps"] + SENTENCE + ["--model", folder], "config.json",
                   ["model_type", "not supported"])
    folder = hf_folder("long_array", config=json.dumps(llama_config(rms_norm_eps=[1] * 300_000)))
    expect_refused("config.json with a 300,000-number array where a number goes", ["maps"] + SENTENCE + ["--model", folder],
                   "config.json", ["rms_norm_eps"])
    # nlohmann's own message ends with the token it read: a 1 MB string with a control character.
    folder = hf_folder("long_token", config='{"model_type": "' + big + '\x01"}')
    expect_refused("config.json with a 1 MB broken string", ["maps"] + SENTENCE + ["--model", folder], "config.json",
                   ["not valid JSON"])
    style = write(h.path("long_key.json"), json.dumps({big: 1}))
    expect_refused("--style with a 1 MB key", ["export", "--sentence", "a", "--style", style, "--out", h.path("z.png")],
                   "long_key.json", ["not a style key"])
    style = write(h.path("long_labels.json"), json.dumps({"labels": big}))
    expect_refused("--style with 1 MB labels", ["export", "--sentence", "a", "--style", style, "--out", h.path("z.png")],
                   "long_labels.json", ["labels"])
    style = write(h.path("twice.json"), '{"' + big + '": 1, "' + big + '": 2}')
    expect_refused("--style with a 1 MB key twice", ["export", "--sentence", "a", "--style", style, "--out", h.path("z.png")],
                   "twice.json", ["appears twice"])
    att = attention_file(h.path("long_tokens.safetensors"), {"tokens": json.dumps([{"s": big}])})
    expect_refused("attention file tokens holding a 1 MB object", ["maps", "--attention", att, "--json", "-"],
                   "long_tokens.safetensors", ["tokens"])


# ---------------------------------------------------------------------------------------------
def check_element_counts():
    """C: parsing is linear. 100,000 tensors or added tokens answer within 20 s (the duplicate-key
    check made nlohmann rescan the parent object after every object: quadratic)."""
    weights = safetensors(h.path("many.safetensors"), {f"t{i}": [0.0] for i in range(100_000)})
    expect_answer("--weights with 100,000 tensors", ["maps"] + SENTENCE + ["--weights", weights, "--heads", "1"])
    att = h.path("many_layers.safetensors")
    header, data = {}, b""
    for layer in range(20_000):
        header[f"layer.{layer}"] = {"dtype": "F32", "shape": [1, 1, 1], "data_offsets": [4 * layer, 4 * layer + 4]}
        data += struct.pack("<f", 1.0)
    header["__metadata__"] = {"tokens": json.dumps(["a"])}
    raw = json.dumps(header, separators=(",", ":")).encode()
    write(att, struct.pack("<Q", len(raw)) + raw + data)
    expect_answer("--attention with 20,000 layers", ["maps", "--attention", att, "--json", h.path("many.json")])
    with open(os.path.join(h.SOURCE, "tests/fuzz/hf_folder/tokenizer.json")) as f:
        tok = json.load(f)
    for count in (100_000, 300_000):
        added = list(tok["added_tokens"])
        added += [{"id": 3 + i, "content": f"<extra_{i}>", "single_word": False, "lstrip": False, "rstrip": False,
                   "normalized": False, "special": True} for i in range(count)]
        folder = hf_folder(f"added_{count}", tokenizer=json.dumps(dict(tok, added_tokens=added)))
        expect_answer(f"tokenizer.json with {count:,} added tokens", ["maps"] + SENTENCE + ["--model", folder, "--json",
                                                                                            h.path("added.json")])


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    h.CLI = os.path.abspath(sys.argv[1])
    h.SANITIZED = "ASAN_OPTIONS" in os.environ or h.built_with_asan(h.CLI)
    with tempfile.TemporaryDirectory(prefix="headscope-hostile-json-") as work:
        h.WORK = work
        started = time.monotonic()
        for check in (check_nesting, check_long_values, check_element_counts):
            check()
        print(f"{h.passed} hostile JSON cases passed, {len(h.failures)} failed in {time.monotonic() - started:.1f} s")
    return 1 if h.failures else 0


if __name__ == "__main__":
    sys.exit(main())
