#!/usr/bin/python3
"""The desktop app (headscope) against hostile flags and files, round 2 (issue 28): NaN and
infinities through float flags (--zoom nan,nan,0.5 crashed in the minimap; --temperature), and a
tokenizer whose Split regex backtracks catastrophically (the app never came back). Every case must
end within the time limit, not by a signal: a bad flag with exit 1 or 2 and one "error:" line
naming the flag; the regex with the status line's error and the screenshot written.

Usage: app_hostile_flags.py PATH/TO/headscope PATH/TO/xvfb-run
Needs only the standard library; runs the app as tests/gl/app_hostile_input.py does.
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import app_hostile_input as ah  # noqa: E402  (run(), expect_error() under xvfb-run)

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GiB = 1 << 30


def check_float_flags():
    shot = ["--screenshot", ah.path("s.png"), "--frames", "3"]
    for zoom in ("nan,nan,0.5", "0.1,inf,0.5", "0.1,0.1,-inf", "1e999,0,0.5", "0.2,0.2,NaN"):
        bad = next(v for v in zoom.split(",") if v.lower() in ("nan", "inf", "-inf", "1e999"))
        ah.expect_error(f"--zoom {zoom}", shot + ["--view", "head", "--zoom", zoom], must_contain=("--zoom", bad),
                        only_line=True, memory=2 * GiB)
    for value in ("nan", "inf", "-inf"):
        ah.expect_error(f"--temperature {value}", shot + ["--temperature", value],
                        must_contain=("--temperature", value), only_line=True, memory=2 * GiB)


def check_regex_budget():
    """A catastrophic Split regex: the app shows the error and keeps running (the screenshot is
    written) instead of never coming back."""
    folder = ah.path("regex")
    os.mkdir(folder)
    shutil.copy(os.path.join(SOURCE, "tests/fuzz/hf_folder/model.safetensors"), folder)
    shutil.copy(os.path.join(SOURCE, "tests/fuzz/corpus/hf_config/llama.json"), os.path.join(folder, "config.json"))
    with open(os.path.join(SOURCE, "tests/fuzz/hf_folder/tokenizer.json"), encoding="utf-8") as f:
        tok = json.load(f)
    tok["pre_tokenizer"] = {"type": "Split", "pattern": {"Regex": "(?:(?:a|a){1,18}b|)"}, "behavior": "Isolated",
                            "invert": False}
    with open(os.path.join(folder, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f)
    shot = ah.path("regex.png")
    code, err = ah.run(["--model", folder, "--sentence", "a" * 1000, "--screenshot", shot, "--frames", "5"],
                       timeout=60, memory=2 * GiB)
    problems = []
    if code is None:
        problems.append(err)
    elif code < 0 or code > 128:
        problems.append(f"killed by a signal (exit {code})")
    elif code == 0 and not os.path.exists(shot):
        problems.append("exit 0 without the screenshot")
    elif code != 0 and not any("budget" in l and "tokenizer.json" in l for l in ah.error_lines(err)):
        problems.append(f"exit {code} without an error naming tokenizer.json and the budget")
    if problems:
        ah.fail("catastrophic Split regex in the app: " + "; ".join(problems) + f"\n  stderr: {err.strip()[:600]}")
    else:
        ah.passed += 1
        print(f"ok: catastrophic Split regex in the app (exit {code})")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    ah.APP, ah.XVFB_RUN = os.path.abspath(sys.argv[1]), sys.argv[2]
    ah.SANITIZED = "ASAN_OPTIONS" in os.environ or b"__asan_init" in open(ah.APP, "rb").read()
    with tempfile.TemporaryDirectory(prefix="headscope-app-hostile-flags-") as work:
        ah.WORK = work
        check_float_flags()
        check_regex_budget()
    print(f"{ah.passed} passed, {len(ah.failures)} failed")
    return 1 if ah.failures else 0


if __name__ == "__main__":
    sys.exit(main())
