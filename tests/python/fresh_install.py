#!/usr/bin/python3
"""The install docs/python.md and the README give, as a user runs it on a fresh clone:

    fresh_install.py SOURCE_DIR WORK_DIR

copies the repository's committed files (git ls-files, as a clone has them; with the working
tree's content) into WORK_DIR/src, then from there runs
    /usr/bin/python3 -m venv --system-site-packages v && v/bin/pip install --no-build-isolation .
and the one-liner of issue 52's "Done when"; then, from another folder (so the source tree is not
what is imported), checks that the installed package has its shipped models and stubs and that
its maps equal the ones of the module the main build made (PYTHONPATH of this test) to 1e-6.
Prints how long the pip build took (it compiles core and the module: its cost in CI).
"""
import os
import shutil
import subprocess
import sys
import time


def run(cmd, cwd, env=None):
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        sys.exit("FAIL: %s exited %d\n%s\n%s" % (" ".join(cmd), p.returncode, p.stdout[-4000:], p.stderr[-4000:]))
    return p.stdout


def copy_clone(source, dest):
    files = subprocess.run(["git", "-C", source, "ls-files", "-z"], capture_output=True, check=True).stdout
    for rel in files.decode().split("\0"):
        if not rel or not os.path.lexists(os.path.join(source, rel)):
            continue  # deleted in the working tree
        os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
        shutil.copy2(os.path.join(source, rel), os.path.join(dest, rel), follow_symlinks=False)
    # Files added but not yet committed (a branch under work): what `git status` shows as new.
    extra = subprocess.run(["git", "-C", source, "ls-files", "-z", "--others", "--exclude-standard"],
                           capture_output=True, check=True).stdout
    for rel in extra.decode().split("\0"):
        if rel:
            os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
            shutil.copy2(os.path.join(source, rel), os.path.join(dest, rel))


def main():
    source, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    src = os.path.join(work, "src")
    copy_clone(source, src)
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", "2")
    run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", "v"], src, env)
    start = time.monotonic()
    run(["v/bin/pip", "install", "--no-build-isolation", "."], src, env)
    print("pip install --no-build-isolation . took %.0f s" % (time.monotonic() - start))
    out = run(["v/bin/python", "-c",
               "import headscope; print(headscope.load('stories260K').run('Lily saw a dog.').attention.shape)"], src, env)
    if not out.strip().startswith("(5, 8, "):
        sys.exit("FAIL: the one-liner printed %r; expected the shape (5, 8, T, T)" % out)
    print("one-liner: " + out.strip())
    # From elsewhere: the installed package, not the source tree; its models, stubs and maps.
    python = os.path.join(src, "v", "bin", "python")
    check = (
        "import headscope, os, sys, json\n"
        "d = os.path.dirname(headscope.__file__)\n"
        "assert '/v/lib/' in d, d\n"
        "assert os.path.isfile(os.path.join(d, 'models', 'stories260K', 'stories260K.bin')), 'no shipped model'\n"
        "assert os.path.isfile(os.path.join(d, '__init__.pyi')) and os.path.isfile(os.path.join(d, 'py.typed'))\n"
        "r = headscope.load('stories260K').run('Once upon a time, there was a little girl named Lily.')\n"
        "json.dump(r.attention.tolist(), sys.stdout)\n")
    installed = run([python, "-c", check], work, env)
    import json
    import numpy as np
    sys.path.insert(0, os.environ.get("HEADSCOPE_BUILD_PYTHONPATH", ""))
    import headscope
    want = headscope.load("stories260K").run("Once upon a time, there was a little girl named Lily.").attention
    got = np.array(json.loads(installed), dtype=np.float32)
    err = float(np.abs(got - want).max())
    if got.shape != want.shape or err > 1e-6:
        sys.exit("FAIL: the installed package's maps differ from the build's: shape %s against %s, error %.3g"
                 % (got.shape, want.shape, err))
    print("installed package: shipped model, stubs, maps equal to the build's (max error %.3g)" % err)
    shutil.rmtree(work, ignore_errors=True)
    print("PASS")


if __name__ == "__main__":
    main()
