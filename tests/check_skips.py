#!/usr/bin/python3
"""Fails when the last test run skipped anything that tests/allowed_skips.txt does not allow:

    check_skips.py BUILD_DIR

Part of the README's test command (after ctest, and in tests/sanitize.sh after its ctest), so a
clone without some file or package tests less than CI only where the allowed list says so. It
reads BUILD_DIR/Testing/Temporary/LastTest.log (every test's output) and finds each skip with its
reason: a GoogleTest skip (GTEST_SKIP() << reason: "Skipped", the reason, "[  SKIPPED ] Name"), or
a line of a script's output that starts with "SKIP" or "skip" (the reason is the line). Every skip
is printed with its reason; one that no line of the allowed list matches (its test and its reason)
fails the run.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def allowed_list(path):
    """[(test regex, reason regex, why)] from the allowed list: "TEST | REASON | WHY" lines."""
    rules = []
    for n, line in enumerate(open(path, encoding="utf-8"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" | ")]
        if len(parts) != 3 or not all(parts):
            sys.exit("%s:%d: expected 'TEST | REASON | WHY', got %r" % (path, n, line))
        rules.append((re.compile(parts[0]), re.compile(parts[1]), parts[2]))
    return rules


def test_outputs(log):
    """(ctest name, output) of every test in a LastTest.log."""
    text = open(log, encoding="utf-8", errors="replace").read()
    for m in re.finditer(r"^\d+/\d+ Test: (.*?)\n.*?^Output:\n-+\n(.*?)^<end of output>", text, re.S | re.M):
        yield m.group(1), m.group(2)


def skips(output):
    """(name within the test, reason) of each skip in one test's output."""
    lines = output.splitlines()
    reason = None
    for line in lines:
        if re.match(r"^\[ RUN      \] ", line):
            reason = None
        elif re.match(r"^.*:\d+: Skipped$", line):
            reason = []
        elif reason is not None and line.startswith("[  SKIPPED ] "):
            yield line[len("[  SKIPPED ] "):].split(" (")[0], " ".join(reason).strip() or "(no reason given)"
            reason = None
        elif reason is not None:
            reason.append(line.strip())
        elif re.match(r"^(SKIP|skip)\b", line):
            yield "", line.strip()


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    log = os.path.join(build, "Testing", "Temporary", "LastTest.log")
    if not os.path.isfile(log):
        sys.exit("check_skips: %s not found: run ctest first" % log)
    rules = allowed_list(os.path.join(HERE, "allowed_skips.txt"))
    bad = 0
    found = 0
    for test, output in test_outputs(log):
        for inner, reason in skips(output):
            found += 1
            name = test + (" " + inner if inner and inner != test else "")
            why = next((w for t, r, w in rules if t.search(name) and r.search(reason)), None)
            if why:
                print("skipped (allowed: %s): %s: %s" % (why, name, reason))
            else:
                bad += 1
                print("SKIPPED, NOT ALLOWED: %s: %s" % (name, reason))
    print("%d skips, %d not on tests/allowed_skips.txt" % (found, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
