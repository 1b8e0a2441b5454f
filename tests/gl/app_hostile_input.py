#!/usr/bin/python3
"""The desktop app (headscope) against hostile input and environments (issue 15): a screenshot
that cannot be written (/dev/full, a read-only file), sessions and lessons that are /dev/zero or
huge, no display at all, lesson steps and window sizes out of range. Every bad case must exit
non-zero (not by a signal, within a time limit) with its own "error:" line on stderr naming the
problem; no GLFW noise, no uncaught std::bad_alloc.

Usage: app_hostile_input.py PATH/TO/headscope PATH/TO/xvfb-run
Needs only the standard library.
"""
import os
import resource
import subprocess
import sys
import tempfile

APP = None
XVFB_RUN = None
WORK = None
SANITIZED = False  # the app carries AddressSanitizer's runtime (tests/sanitize.sh's build)
GiB = 1 << 30
failures = []
passed = 0


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def run(args, display=True, timeout=60, memory=None):
    """Runs the app (under xvfb-run when `display`), with an address-space limit when `memory`.
    Returns (exit code or None on a timeout, stderr text)."""
    env = dict(os.environ)
    env["XDG_CONFIG_HOME"] = os.path.join(WORK, "config")  # never a person's imgui.ini
    if display:
        cmd = [XVFB_RUN, "-a", "-s", "-screen 0 1920x1080x24", APP] + args
    else:
        cmd = [APP] + args
        for name in ("DISPLAY", "WAYLAND_DISPLAY"):
            env.pop(name, None)

    # A sanitized app reserves terabytes of shadow address space: it gets no address-space limit
    # (the reads are bounded by the app itself; the limit only makes a regression fail faster).
    def limit():
        if memory and not SANITIZED:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    # xvfb-run itself can fail when tests run in parallel ("xvfb-run: error: Xvfb failed to start"
    # after losing a race for a display number, exit 5 "problem while cleaning up temporary
    # directory"): that is the harness, not the app, so the run is repeated.
    for attempt in range(3):
        try:
            p = subprocess.run(cmd, capture_output=True, timeout=timeout, env=env, cwd=WORK,
                               preexec_fn=limit if memory else None)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {timeout} s"
        err = p.stderr.decode("utf-8", "replace")
        if not (display and "xvfb-run: error:" in err):
            break
        print(f"  (xvfb-run failed, not the app; again: {err.strip().splitlines()[-1]})")
    return p.returncode, err


def error_lines(stderr):
    return [l for l in stderr.splitlines() if l.strip()]


# DBL_MAX, as CLI11's PositiveNumber printed it ("0.000000 to 1797693134862315708...") or rounded.
DBL_MAX_TEXTS = ("1.797e308", "1.79769e+308", "17976931348623157")


def expect_error(label, args, must_contain=(), must_not_contain=("bad_alloc", "glfw error") + DBL_MAX_TEXTS,
                 only_line=False, **kw):
    """Exit 1 or 2, an "error:" line naming the problem; with `only_line`, nothing else on stderr."""
    global passed
    code, err = run(args, **kw)
    lines = error_lines(err)
    problems = []
    if code is None:
        problems.append(err)
    elif code not in (1, 2):
        problems.append(f"exit code {code} (expected 1 or 2" + (", not a signal)" if code < 0 or code > 128 else ")"))
    errors = [l for l in lines if l.startswith("error:")]
    if len(errors) != 1:
        problems.append(f"{len(errors)} 'error:' lines")
    if only_line and len(lines) != 1:
        problems.append(f"{len(lines)} stderr lines (expected only the error line)")
    for text in must_contain:
        if not any(text.lower() in l.lower() for l in errors):
            problems.append(f"the error line does not say {text!r}")
    for text in must_not_contain:
        if text.lower() in err.lower():
            problems.append(f"stderr says {text!r}")
    if problems:
        fail(f"{label}: " + "; ".join(problems) + f"\n  stderr: {err.strip()[:600]}")
    else:
        passed += 1
        print(f"ok: {label}: {errors[0] if errors else ''}")


def path(name):
    return os.path.join(WORK, name)


def symlink(target, name):
    p = path(name)
    if os.path.lexists(p):
        os.remove(p)
    os.symlink(target, p)
    return p


def check_screenshot_destinations():
    global passed
    full = symlink("/dev/full", "full.png")
    expect_error("--screenshot to a symlink to /dev/full", ["--screenshot", full, "--frames", "2"],
                 must_contain=("full.png", "no space left"))
    ro = path("ro.png")
    with open(ro, "wb") as f:
        f.write(b"keep me")
    os.chmod(ro, 0o444)
    expect_error("--screenshot to a read-only file", ["--screenshot", ro, "--frames", "2"],
                 must_contain=("ro.png", "read-only"))
    with open(ro, "rb") as f:
        if f.read() != b"keep me":
            fail("--screenshot replaced a read-only file")
        else:
            passed += 1
    os.chmod(ro, 0o644)
    missing = path("no_such_folder/shot.png")
    expect_error("--screenshot into a folder that does not exist", ["--screenshot", missing, "--frames", "2"],
                 must_contain=("shot.png", "does not exist"))


def check_sessions_and_lessons():
    zero = symlink("/dev/zero", "zero.json")
    huge = path("huge.json")
    with open(huge, "wb") as f:
        f.write(b"{")
    os.truncate(huge, 6 * GiB)  # sparse
    for p in (zero, huge):
        name = os.path.basename(p)
        # At most 2 GiB of address space: reading the file whole would fail with bad_alloc.
        expect_error(f"a session that is {name}", [p, "--screenshot", path("s.png"), "--frames", "2"],
                     must_contain=(name,), memory=2 * GiB, only_line=True)
        expect_error(f"--lesson {name}", ["--lesson", p, "--screenshot", path("s.png"), "--frames", "2"],
                     must_contain=(name,), memory=2 * GiB, only_line=True)
    os.remove(huge)


def check_nested_json():
    """Issue 28: a session or lesson file nested 10^6 deep (a stack overflow in a recursive copy or
    dump before), and one whose key repeats, each refused with one line naming the file."""
    deep = "[" * 1_000_000 + "]" * 1_000_000
    session = path("deep_session.json")
    with open(session, "w") as f:
        f.write('{"format": "headscope-session", "version": 1, "input": {"sentence": ' + deep + "}}")
    expect_error("a session nested 10^6 deep", [session, "--screenshot", path("s.png"), "--frames", "2"],
                 must_contain=("deep_session.json", "nested deeper than 512"), only_line=True)
    lesson = path("deep_lesson.json")
    with open(lesson, "w") as f:
        f.write('{"format": "headscope-lesson", "version": 1, "title": "t", "steps": [{"title": "a", "caption": "b", '
                '"session": {"view": ' + deep + "}}]}")
    expect_error("--lesson nested 10^6 deep", ["--lesson", lesson, "--screenshot", path("s.png"), "--frames", "2"],
                 must_contain=("deep_lesson.json", "nested deeper than 512"), only_line=True)
    twice = path("twice_lesson.json")
    with open(twice, "w") as f:
        f.write('{"format": "headscope-lesson", "version": 1, "title": "t", "title": "u", "steps": []}')
    expect_error("--lesson with a key twice", ["--lesson", twice, "--screenshot", path("s.png"), "--frames", "2"],
                 must_contain=("twice_lesson.json", '"title" appears twice'), only_line=True)


def check_no_display():
    expect_error("no display (DISPLAY unset, no xvfb)", ["--frames", "1"], display=False, only_line=True,
                 must_contain=("no display",))


def check_numeric_flags():
    for args, says in ((["--lesson", "multi_head_attention", "--step", "0"], ("--step", "(0)", "from 1 to 200")),
                       (["--lesson", "multi_head_attention", "--step", "-3"], ("--step", "(-3)")),
                       (["--lesson", "multi_head_attention", "--step", "1e400"], ("--step", "whole number")),
                       (["--width", "100"], ("--width", "(100)", "from 320 to 8192")),
                       (["--height", "99999999999999999999"], ("--height", "from 240 to 8192"))):
        expect_error(" ".join(args), args, must_contain=says, display=False, only_line=True)


def main():
    global APP, XVFB_RUN, WORK, SANITIZED
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    APP, XVFB_RUN = os.path.abspath(sys.argv[1]), sys.argv[2]
    SANITIZED = "ASAN_OPTIONS" in os.environ or b"__asan_init" in open(APP, "rb").read()
    with tempfile.TemporaryDirectory(prefix="headscope-app-hostile-") as work:
        WORK = work
        check_screenshot_destinations()
        check_sessions_and_lessons()
        check_nested_json()
        check_no_display()
        check_numeric_flags()
    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
