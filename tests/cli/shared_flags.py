#!/usr/bin/python3
"""One vocabulary across headscope-cli's commands and headscope (app/common/flag_vocabulary.h):

    shared_flags.py PATH/TO/headscope-cli [PATH/TO/headscope]

Every flag is read from the programs' own tables (each command's --help, the app's --help); for
each flag that two or more of them take:
- meaning: its help starts with the same sentence everywhere (the text before the first ". ");
- choices: given a value no flag takes, each answers with the same "expected ..." list (or none
  answers with one);
then:
- every command that runs the engine takes --threads;
- an older name (an alias) does what its flag does and prints which flag to use;
- the cases issue 44 found: `export --scale log` answers with --color-scale, `tokens --model
  stories260K` and `--model teaching` work, `maps` without a sentence refuses.
The app's cases stop before a window opens: no display is needed.
"""
import os
import re
import subprocess
import sys

COMMANDS = ["maps", "export", "heads", "ablate", "tokens", "compare"]
ENGINE = ["maps", "export", "heads", "ablate", "compare", "app"]  # the commands that run the engine
failures = []


def run(args, timeout=120):
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def help_table(text):
    """{flag: description} from a CLI11 --help text."""
    flags, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^  (?:-\w,)?--([a-z0-9-]+)(.*)$", line)
        if m:
            current = m.group(1)
            parts = re.split(r"\s{2,}", m.group(2).strip(), maxsplit=1)
            flags[current] = parts[1] if len(parts) > 1 else ""
        elif current and re.match(r"^ {20,}\S", line):
            flags[current] = (flags[current] + " " + line.strip()).strip()
        elif not line.strip() or not line.startswith(" "):
            current = None
    return flags


def meaning(description):
    return description.split(". ")[0].rstrip(".")


def tables(cli, app):
    out = {}
    for c in COMMANDS:
        _, text, _ = run([cli, c, "--help"])
        out[c] = help_table(text)
    if app:
        _, text, _ = run([app, "--help"])
        out["app"] = help_table(text)
    return out


def base_args(program_name, cli, app):
    """A command line that parses (what the flag under test is added to)."""
    if program_name == "app":
        return [app]
    if program_name == "tokens":
        return [cli, "tokens", "--sentence", "a b"]
    return [cli, program_name]


def choices(program_name, flag, cli, app):
    """The "expected ..." list a bad value of --flag gets while the command line is read (exit 2:
    the flag's own check, before anything runs), or None."""
    rc, _, err = run(base_args(program_name, cli, app) + ["--" + flag, "zzqx"])
    m = re.search(r"(?<!un)expected ([^;()]*)", err)
    return m.group(1).strip() if rc == 2 and m and "zzqx" in err else None


def check_shared(t, cli, app):
    owners = {}
    for program_name, flags in t.items():
        for flag in flags:
            owners.setdefault(flag, []).append(program_name)
    shared = {f: p for f, p in owners.items() if len(p) > 1 and f != "help"}
    check(len(shared) > 20, "%d flags are shared by two or more commands" % len(shared))
    for flag, programs in sorted(shared.items()):
        if all(t[p][flag].startswith("Older name of") for p in programs):
            continue  # an alias in each: checked below
        meanings = {p: meaning(t[p][flag]) for p in programs}
        check(len(set(meanings.values())) == 1,
              "--%s means one thing in %s%s" % (flag, ", ".join(programs),
                                                 "" if len(set(meanings.values())) == 1 else ": %r" % meanings))
        lists = {p: choices(p, flag, cli, app) for p in programs}
        if any(lists.values()):
            check(len(set(lists.values())) == 1, "--%s takes the same values in %s: %r" % (flag, ", ".join(programs), lists))


def check_threads(t):
    for c in ENGINE:
        if c in t:
            check("threads" in t[c], "%s takes --threads" % c)


def check_aliases(cli):
    s = ["--sentence", "the cat sat"]
    rc, _, err = run([cli, "ablate"] + s + ["--mean"])
    check("note: --mean is --ablation mean; use --ablation mean" in err, "ablate --mean says to use --ablation mean: " + err.strip())
    rc, _, err = run([cli, "export"] + s + ["--view", "heads", "--ablation-mode", "mean", "--out", "x.png"])
    check("use --ablation mean" in err and "--ablation is for --view ablation" in err,
          "export --ablation-mode says to use --ablation, and means what --ablation means: " + err.strip())
    out = os.path.join(os.environ.get("TMPDIR", "/tmp"), "shared_flags_%d.png" % os.getpid())
    rc, _, err = run([cli, "export"] + s + ["--scale", "2", "--out", out])
    check(rc == 0 and "use --figure-scale 2" in err, "export --scale 2 is --figure-scale 2, with a note: %d %s" % (rc, err.strip()))
    if os.path.exists(out):
        os.remove(out)
    rc, _, err = run([cli, "export"] + s + ["--scale", "log", "--out", out])
    check(rc != 0 and "--color-scale log" in err, "export --scale log answers with --color-scale: " + err.strip())


def check_findings(cli):
    for model in ("stories260K", "teaching"):
        rc, out, err = run([cli, "tokens", "--model", model, "--sentence", "Lily saw the big dog."])
        check(rc == 0 and "tokens" in out, "tokens --model %s works (exit %d %s)" % (model, rc, err.strip()))
    rc, _, err = run([cli, "maps", "--model", "stories260K"])
    check(rc == 1 and "no input: give --sentence TEXT" in err, "maps without a sentence refuses: %d %s" % (rc, err.strip()))
    rc, _, err = run([cli, "maps", "--model", "stories260K", "--generate", "2", "--json", os.devnull])
    check(rc == 0, "maps --generate N still starts from <s>: %d %s" % (rc, err.strip()))


def main():
    cli = sys.argv[1]
    app = sys.argv[2] if len(sys.argv) > 2 else None
    t = tables(cli, app)
    check_shared(t, cli, app)
    check_threads(t)
    check_aliases(cli)
    check_findings(cli)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
