#!/usr/bin/python3
"""`headscope-cli ablate`'s progress and Ctrl+C (issue 49): the progress line ("ablate: 12/40 heads,
3 s left") appears on a terminal (a pty here) or with --progress, never otherwise nor with --quiet, and
never changes standard output; SIGINT during the heads or during the reference means ends the run
with exit 130, one "error: interrupted" line and no output file.

Usage: ablate_progress_cli.py PATH/TO/headscope-cli MODELS_DIR
Needs only the standard library.
"""
import os
import pty
import re
import signal
import subprocess
import sys
import tempfile
import time

FAILURES = []
SENTENCE = "Once upon a time, there was a little girl named Lily."


def check(cond, msg):
    if not cond:
        FAILURES.append(msg)
        print("FAIL:", msg)


def model_args(models):
    d = os.path.join(models, "stories260K")
    return ["--model", os.path.join(d, "stories260K.bin"), "--tokenizer", os.path.join(d, "tok512.bin")]


def run(cli, args):
    return subprocess.run([cli] + args, capture_output=True, text=True, timeout=120)


def check_flags(cli, m):
    base = ["ablate"] + m + ["--sentence", SENTENCE, "--top", "3", "--threads", "2"]
    quiet = run(cli, base + ["--quiet"])
    piped = run(cli, base)
    shown = run(cli, base + ["--progress"])
    for name, p in [("--quiet", quiet), ("stderr a pipe", piped), ("--progress", shown)]:
        check(p.returncode == 0, f"ablate {name}: exit {p.returncode}: {p.stderr}")
    check(quiet.stderr == "", f"ablate --quiet: stderr should be empty, got {quiet.stderr!r}")
    check(piped.stderr == "", f"ablate with stderr a pipe and no --progress: no progress expected, got {piped.stderr!r}")
    check(re.search(r"^ablate: 40/40 heads, [0-9.]+ s$", shown.stderr, re.M) is not None,
          f"ablate --progress: no final 'ablate: 40/40 heads, S s' line in {shown.stderr!r}")
    check(re.search(r"^ablate: 1/40 heads, [0-9]+ s left$", shown.stderr, re.M) is not None,
          f"ablate --progress: no first 'ablate: 1/40 heads, N s left' line in {shown.stderr!r}")
    check(quiet.stdout == piped.stdout == shown.stdout, "ablate: standard output differs with --progress / --quiet")
    # One head per pass (the plain path) prints the same table as a layer's heads stacked in one pass.
    every = ["ablate"] + m + ["--sentence", SENTENCE, "--top", "0", "--threads", "2", "--quiet"]
    plain = run(cli, every + ["--heads-per-pass", "1"])
    stacked = run(cli, every)
    check(plain.returncode == 0 and plain.stdout == stacked.stdout,
          f"ablate --heads-per-pass 1: the table differs from the stacked passes' ({plain.stderr!r})")
    bad = run(cli, base + ["--heads-per-pass", "-2"])
    check(bad.returncode in (1, 2) and "--heads-per-pass" in bad.stderr,
          f"ablate --heads-per-pass -2: expected exit 1 or 2 naming the flag, got {bad.returncode}: {bad.stderr!r}")
    both = run(cli, base + ["--quiet", "--progress"])
    check(both.returncode == 1 and "--quiet" in both.stderr and "--progress" in both.stderr,
          f"ablate --quiet --progress: expected exit 1 naming both flags, got {both.returncode}: {both.stderr!r}")


def check_terminal(cli, m):
    """stderr a terminal: the line is rewritten in place (carriage returns) and ended by a newline."""
    master, slave = pty.openpty()
    p = subprocess.Popen([cli, "ablate"] + m + ["--sentence", SENTENCE, "--top", "3"], stdout=subprocess.PIPE,
                         stderr=slave, text=True)
    os.close(slave)
    out, _ = p.communicate(timeout=120)
    err = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    text = err.decode("utf-8", "replace")
    check(p.returncode == 0, f"ablate on a terminal: exit {p.returncode}")
    check("\rablate: 40/40 heads" in text and text.endswith("\n"),
          f"ablate on a terminal: expected '\\rablate: 40/40 heads ...' ending in a newline, got {text!r}")
    check("rank" in out, f"ablate on a terminal: the table is missing from stdout: {out[:200]!r}")


def interrupt_after_first_line(cli, args, out_json):
    p = subprocess.Popen([cli] + args + ["--json", out_json], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = p.stderr.readline()
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    rest = p.stderr.read()
    p.wait(timeout=60)
    return p.returncode, first, rest, time.monotonic() - sent


def check_interrupt(cli, m, tmp):
    out_json = os.path.join(tmp, "ablation.json")
    # During the heads: a 480-token input takes ~1 s for 40 heads on one thread; Ctrl+C comes at the first head.
    long_sentence = " ".join([SENTENCE] * 30)
    rc, first, rest, took = interrupt_after_first_line(
        cli, ["ablate"] + m + ["--sentence", long_sentence, "--progress", "--threads", "1"], out_json)
    check(first.startswith("ablate: 1/40 heads"), f"Ctrl+C during the heads: first stderr line {first!r}")
    check(rc == 130, f"Ctrl+C during the heads: exit {rc} (expected 130), stderr {rest!r}")
    match = re.search(r"^error: interrupted \(Ctrl\+C\) after (\d+) of 40 heads; nothing written$", rest, re.M)
    check(match is not None and int(match.group(1)) < 40, f"Ctrl+C during the heads: stderr {rest!r}")
    check(not os.path.exists(out_json), "Ctrl+C during the heads: the --json file was written")
    check(took < 10, f"Ctrl+C during the heads: the process took {took:.1f} s to stop")
    # During the reference means (mean ablation over 1500 lines: a forward pass per line).
    ref = os.path.join(tmp, "reference.txt")
    with open(ref, "w") as f:
        f.write((SENTENCE + " She liked to play outside.\n") * 1500)
    rc, first, rest, took = interrupt_after_first_line(
        cli, ["ablate"] + m + ["--sentence", SENTENCE, "--ablation", "mean", "--reference", ref, "--progress"], out_json)
    check(first.startswith("ablate: 1/1500 reference lines"), f"Ctrl+C during the reference: first stderr line {first!r}")
    check(rc == 130, f"Ctrl+C during the reference: exit {rc} (expected 130), stderr {rest!r}")
    check("error: interrupted (Ctrl+C) while reading the reference lines; nothing written" in rest,
          f"Ctrl+C during the reference: stderr {rest!r}")
    check(not os.path.exists(out_json), "Ctrl+C during the reference: the --json file was written")
    check(took < 10, f"Ctrl+C during the reference: the process took {took:.1f} s to stop")


def main():
    cli = sys.argv[1]
    models = os.environ.get("HEADSCOPE_MODELS_DIR") or sys.argv[2]
    m = model_args(models)
    check_flags(cli, m)
    check_terminal(cli, m)
    with tempfile.TemporaryDirectory() as tmp:
        check_interrupt(cli, m, tmp)
    print(f"{len(FAILURES)} failures" if FAILURES else "ablate progress and Ctrl+C: all checks passed")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
