#!/usr/bin/python3
"""Command-line mistakes get sentences, in headscope-cli and headscope alike: "did you mean ...?"
with the closest choices for an unknown flag, command, view, colormap, lesson or shipped model;
a repeated flag or a wrong number of values said in words (not CLI11's "At Most 1 required but
received 2" / "At least 3 required"); a lesson step past the lesson's end refused with its range;
--help in groups (input, model, view, output / export, window).

Usage: friendly_flags.py PATH/TO/headscope-cli [PATH/TO/headscope]
The app's cases all stop before a window opens, so no display is needed.
"""
import os
import subprocess
import sys

CLI11_WORDS = ("required but received", "At least", "At Most", "required INT", "required TEXT",
               "The following argument", "not in {")
failures = []


def run(program, args):
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    p = subprocess.run([program] + args, capture_output=True, text=True, timeout=60, env=env)
    return p.returncode, p.stdout, p.stderr


def expect_error(program, args, must_contain, code=None):
    name = f"{os.path.basename(program)} {' '.join(args)}"
    rc, _, err = run(program, args)
    lines = [line for line in err.splitlines() if line.strip()]
    problems = []
    if rc not in (1, 2) or (code is not None and rc != code):
        problems.append(f"exit {rc}, expected {code or '1 or 2'}")
    if len(lines) != 1 or not lines[0].startswith("error: "):
        problems.append("not one 'error:' line")
    for text in must_contain:
        if text not in err:
            problems.append(f"no '{text}'")
    for word in CLI11_WORDS:
        if word in err:
            problems.append(f"CLI11's words '{word}'")
    status = "ok  " if not problems else "FAIL"
    print(f"{status} {name}\n     {err.strip()}" + ("" if not problems else f"\n     ({'; '.join(problems)})"))
    if problems:
        failures.append(name)


def check_cli(cli):
    s = ["--sentence", "the cat sat"]
    expect_error(cli, ["maps", "--sentnce", "hi"], ["unknown flag --sentnce", "did you mean --sentence?"], 2)
    expect_error(cli, ["mpas", "--sentence", "hi"], ["unknown command 'mpas'", "did you mean maps?"], 2)
    expect_error(cli, ["maps", "--view", "head"] + s, ["unknown flag --view", "export"], 2)
    expect_error(cli, ["maps", "--sentence", "a", "--sentence", "b"], ["--sentence was given 2 times", "give it once"], 2)
    expect_error(cli, ["maps"] + s + ["--heads", "2", "--heads=4"], ["--heads was given 2 times"], 2)
    expect_error(cli, ["maps"] + s + ["--heads"], ["--heads needs a value"], 2)
    expect_error(cli, ["maps", "--sentence", "the", "cat"], ["unexpected argument 'cat'", "quotes"], 2)
    expect_error(cli, ["export"] + s + ["--view", "heatmaps", "--out", "x.png"], ["unknown view 'heatmaps'", "did you mean heatmap?"])
    expect_error(cli, ["export"] + s + ["--colormap", "magmaa", "--out", "x.png"], ["unknown colormap 'magmaa'", "did you mean magma?"])
    expect_error(cli, ["maps", "--model", "stories26OK", "--sentence", "hi"], ["did you mean stories260K?"])
    rc, out, _ = run(cli, ["export", "--help"])
    for group in ("Input:", "Model:", "View:", "Output and export:"):
        if group not in out:
            print(f"FAIL headscope-cli export --help has no group '{group}'")
            failures.append(f"export --help {group}")


def check_app(app):
    expect_error(app, ["--sentnce", "hi"], ["unknown flag --sentnce", "did you mean --sentence?"], 2)
    expect_error(app, ["--view", "heatmaps"], ["unknown view 'heatmaps'", "did you mean heatmap?"], 2)
    expect_error(app, ["--sentence", "a", "--sentence", "b"], ["--sentence was given 2 times"], 2)
    expect_error(app, ["--zoom", "0.1,0.2"], ["--zoom takes 3 values separated by commas, got 2"], 2)
    expect_error(app, ["--colormap", "magmaa"], ["did you mean magma?"])
    expect_error(app, ["--lesson", "multi_head_atention"],
                 ["did you mean multi_head_attention?", "what_heads_do"])
    expect_error(app, ["--lesson", "multi_head_attention", "--step", "11"], ["--step 11", "steps 1 to 10"])
    rc, out, _ = run(app, ["--help"])
    for group in ("Input:", "Model:", "View:", "Export:", "Window:", "Lesson and session:"):
        if group not in out:
            print(f"FAIL headscope --help has no group '{group}'")
            failures.append(f"app --help {group}")


def main():
    check_cli(sys.argv[1])
    if len(sys.argv) > 2:
        check_app(sys.argv[2])
    if failures:
        print(f"{len(failures)} failed: " + ", ".join(failures))
        return 1
    print("all command-line mistakes answered in sentences")
    return 0


if __name__ == "__main__":
    sys.exit(main())
