#!/usr/bin/python3
"""headscope installs like a Debian program: `cpack -G DEB` builds a package whose Depends come
from dpkg-shlibdeps; unpacked into a temporary root (dpkg-deb -x), it holds both programs, the
shipped model, the lessons, the menu entry and icon (and man pages when help2man is installed),
and both programs run from there: `headscope-cli maps --model stories260K` finds the installed
model (an installed program never looks in the source tree), and `headscope --screenshot` under
xvfb-run draws the app.

Usage: install_deb.py BUILD_DIR XVFB_RUN
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def run(args, **kw):
    p = subprocess.run(args, capture_output=True, text=True, timeout=120, **kw)
    if p.returncode != 0:
        print(f"$ {' '.join(args)}\nexit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return p


def main():
    build, xvfb_run = os.path.abspath(sys.argv[1]), sys.argv[2]
    tmp = tempfile.mkdtemp(prefix="headscope-deb-")
    try:
        p = run(["cpack", "-G", "DEB", "-B", os.path.join(tmp, "pkg"), "--config", os.path.join(build, "CPackConfig.cmake")],
                cwd=build)
        debs = [f for f in os.listdir(os.path.join(tmp, "pkg")) if f.endswith(".deb")] if p.returncode == 0 else []
        check(len(debs) == 1, "cpack -G DEB writes one .deb")
        if not debs:
            return 1
        deb = os.path.join(tmp, "pkg", debs[0])
        depends = run(["dpkg-deb", "-f", deb, "Depends"]).stdout
        print("     Depends: " + depends.strip())
        for lib in ("libc6", "libglfw3", "libcairo2", "libicu", "fonts-dejavu-core"):
            check(lib in depends, f"Depends names {lib} (dpkg-shlibdeps and the fonts)")
        root = os.path.join(tmp, "root")
        check(run(["dpkg-deb", "-x", deb, root]).returncode == 0, "dpkg-deb -x unpacks it")
        usr = os.path.join(root, "usr")
        files = ["bin/headscope", "bin/headscope-cli", "share/headscope/models/stories260K/stories260K.bin",
                 "share/headscope/models/stories260K/tok512.bin", "share/headscope/models/stories260K/LICENSE",
                 "share/headscope/lessons/multi_head_attention.json", "share/applications/headscope.desktop",
                 "share/icons/hicolor/scalable/apps/headscope.svg", "share/mime/packages/headscope.xml"]
        if shutil.which("help2man"):
            files += ["share/man/man1/headscope.1", "share/man/man1/headscope-cli.1"]
        for f in files:
            check(os.path.isfile(os.path.join(usr, f)), f"/usr/{f} is in the package")
        desktop = open(os.path.join(usr, "share/applications/headscope.desktop")).read()
        check("Exec=headscope %f" in desktop and "application/x-gguf" in desktop, "the menu entry opens files")
        if shutil.which("desktop-file-validate"):
            check(run(["desktop-file-validate", os.path.join(usr, "share/applications/headscope.desktop")]).returncode == 0,
                  "desktop-file-validate accepts the menu entry")

        env = {k: v for k, v in os.environ.items() if k != "HEADSCOPE_SHIPPED_MODELS"}
        out = os.path.join(tmp, "maps.json")
        p = run([os.path.join(usr, "bin/headscope-cli"), "maps", "--model", "stories260K", "--sentence", "Lily saw a cat",
                 "--json", out], cwd=tmp, env=env)
        layers = len(json.load(open(out))["attention"]) if p.returncode == 0 else 0
        check(layers == 5, f"the installed headscope-cli runs the installed stories260K ({layers} layers)")
        # The Python module, when the build made it (HEADSCOPE_BUILD_PYTHON): the installed package
        # runs the installed model.
        site = os.path.join(usr, "lib/python3/dist-packages")
        if os.path.isdir(os.path.join(site, "headscope")):
            p = run(["/usr/bin/python3", "-c", "import headscope; print(headscope.load('stories260K').run('Lily saw a cat')"
                     ".attention.shape)"], cwd=tmp, env=dict(env, PYTHONPATH=site))
            check(p.returncode == 0 and p.stdout.startswith("(5, 8, "),
                  "the installed Python package runs the installed stories260K: " + p.stdout.strip())
        # The installed model, not the source tree's: without it the installed program finds none.
        shutil.move(os.path.join(usr, "share/headscope/models"), os.path.join(tmp, "models-aside"))
        p = run([os.path.join(usr, "bin/headscope-cli"), "maps", "--model", "stories260K", "--sentence", "Lily"], cwd=tmp, env=env)
        check(p.returncode == 1 and "share/headscope/models" in p.stderr,
              "without the installed model it names the folders searched: " + p.stderr.strip()[:200])
        shutil.move(os.path.join(tmp, "models-aside"), os.path.join(usr, "share/headscope/models"))

        shot = os.path.join(tmp, "shot.png")
        p = run([xvfb_run, "-a", "-s", "-screen 0 1280x800x24", os.path.join(usr, "bin/headscope"), "--model", "stories260K",
                 "--screenshot", shot, "--frames", "3", "--width", "800", "--height", "600"], cwd=tmp, env=env)
        check(p.returncode == 0 and os.path.getsize(shot) > 1000 and os.path.isfile(shot + ".json"),
              "the installed headscope draws stories260K and writes its screenshot")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print(f"{len(failures)} failed")
        return 1
    print("the package installs and both programs run from it")
    return 0


if __name__ == "__main__":
    sys.exit(main())
