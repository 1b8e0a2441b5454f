"""What the CLI test scripts share: a tally of checks, running headscope-cli with its output
decoded, and the refusal rule of docs/cli-contract.md (exit 1 or 2, exactly one line on
stderr starting "error:", naming the problem).

    sys.path.insert(0, "<tests>/cli"); from cli_checks import Checks
    T = Checks()                      # at import; T.cli = sys.argv[1] in main()
    check, ok, error = T.check, T.ok, T.error
    ...
    return T.summary()                # prints the tally, 1 if anything failed
"""
import os
import subprocess


class Checks:
    def __init__(self, cli=None, timeout=300, env=None):
        self.cli = cli
        self.timeout = timeout
        self.env = env  # None: the caller's environment
        self.passed = 0
        self.failures = []

    def fail(self, msg):
        self.failures.append(msg)
        print("FAIL: " + msg)

    def check(self, cond, msg):
        if cond:
            self.passed += 1
        else:
            self.fail(msg)
        return bool(cond)

    def run(self, args, timeout=None, env=None):
        p = subprocess.run([self.cli] + args, capture_output=True, timeout=timeout or self.timeout,
                           env=env if env is not None else self.env)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")

    def ok_err(self, label, args):
        """Runs args expecting exit 0: (stdout, stderr), stdout None on failure."""
        rc, out, err = self.run(args)
        self.check(rc == 0, f"{label}: exit {rc}; stderr: {err.strip()[:500]}")
        return (out if rc == 0 else None), err

    def ok(self, label, args):
        return self.ok_err(label, args)[0]

    def error(self, label, args, must_contain):
        """Runs args expecting a refusal whose one "error:" line mentions every string given."""
        rc, _, err = self.run(args)
        lines = [l for l in err.splitlines() if l.strip()]
        if rc not in (1, 2) or len(lines) != 1 or not lines[0].startswith("error:"):
            self.fail(f"{label}: expected exit 1 or 2 and one 'error:' line, got {rc}: {err.strip()[:300]!r}")
            return
        missing = [s for s in must_contain if s.lower() not in lines[0].lower()]
        self.check(not missing, f"{label}: the message does not mention {missing}: {lines[0]}")

    def summary(self):
        print(f"{self.passed} checks passed, {len(self.failures)} failed")
        return 1 if self.failures else 0


def headless_env():
    """The environment without a display: the CLI must never need one."""
    return {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "XDG_RUNTIME_DIR")}
