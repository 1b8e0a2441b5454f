#!/usr/bin/python3
"""The app's settings (imgui.ini) when the machine misbehaves (issue 54). Each run is the app as a
person runs it (no --screenshot: settings are read and saved) for a few frames, then closed:

- HOME and XDG_CONFIG_HOME unset: it starts, exits 0, and says the settings are kept in memory only;
- a config folder that cannot be made (XDG_CONFIG_HOME under a regular file): the same, naming it;
- a read-only file system (tests/cli/write_fault_shim.c fails every open for writing there): the
  save is reported with the path and the previous imgui.ini stays whole;
- a writable folder: imgui.ini is written whole ([headscope][prefs] once), no temporary left;
- two instances closing at the same time over one imgui.ini: the file is one whole save, not torn.

Usage: app_settings_faults.py PATH/TO/headscope PATH/TO/xvfb-run PATH/TO/libwrite_fault_shim.so
"""
import os
import subprocess
import sys
import tempfile
import time

APP = XVFB_RUN = SHIM = WORK = None
failures = []
passed = 0


def fail(msg):
    failures.append(msg)
    print("FAIL: " + msg)


def ok(msg):
    global passed
    passed += 1
    print("ok   " + msg)


def command(frames):
    return [XVFB_RUN, "-a", "-s", "-screen 0 1280x720x24", APP, "--frames", str(frames)]


def environment(config=None, home=None, extra=None):
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_CONFIG_HOME")}
    if config is not None:
        env["XDG_CONFIG_HOME"] = config
    if home is not None:
        env["HOME"] = home
    env.update(extra or {})
    return env


def run(env, frames=4, timeout=90):
    for _ in range(3):  # xvfb-run can lose a race for a display number when tests run in parallel
        try:
            p = subprocess.run(command(frames), capture_output=True, timeout=timeout, env=env, cwd=WORK)
        except subprocess.TimeoutExpired:
            return None, f"timed out after {timeout} s"
        err = p.stderr.decode("utf-8", "replace")
        if "xvfb-run: error:" not in err:
            return p.returncode, err
    return p.returncode, err


def expect(name, env, phrases, frames=4):
    rc, err = run(env, frames)
    missing = [p for p in phrases if p not in err]
    if rc != 0 or missing:
        fail(f"{name}: exit {rc}, missing {missing}; stderr: {err.strip()[:500]}")
        return False
    ok(f"{name}: {next((l for l in err.splitlines() if 'settings' in l), 'exit 0')[:160]}")
    return True


def whole_ini(path):
    text = open(path, encoding="utf-8").read()
    return text.count("[headscope][prefs]") == 1 and "export_font=" in text and text.endswith("\n"), text


def main():
    global APP, XVFB_RUN, SHIM, WORK
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    APP, XVFB_RUN, SHIM = (os.path.abspath(a) for a in sys.argv[1:])
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="headscope-settings-") as work:
        WORK = work
        expect("HOME and XDG_CONFIG_HOME unset", environment(),
               ["warning: the settings are kept in memory only: neither XDG_CONFIG_HOME nor HOME is set"])
        blocker = os.path.join(work, "a-file")
        open(blocker, "w").write("not a folder\n")
        expect("a config folder that cannot be made", environment(config=os.path.join(blocker, "config")),
               ["the settings are kept in memory only: cannot make the folder " + os.path.join(blocker, "config", "headscope")])

        config = os.path.join(work, "config")
        ini = os.path.join(config, "headscope", "imgui.ini")
        if expect("a writable config folder", environment(config=config), []):
            good, text = whole_ini(ini)
            (ok if good else fail)(f"imgui.ini written whole ({len(text)} bytes)")
        previous = open(ini, "rb").read() if os.path.exists(ini) else b""
        readonly = {"LD_PRELOAD": SHIM, "HEADSCOPE_FAULT_DIR": os.path.join(config, "headscope"),
                    "HEADSCOPE_FAULT": "EROFS", "HEADSCOPE_FAULT_AT": "open"}
        if expect("a read-only config folder", environment(config=config, extra=readonly),
                  ["the settings were not saved", "cannot write " + ini, "Read-only file system"]):
            same = open(ini, "rb").read() == previous
            (ok if same else fail)("the previous imgui.ini is untouched after the failed save")

        # Two instances over one file, closing at about the same time (each saves when it closes).
        env = environment(config=config)
        procs = [subprocess.Popen(command(12), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=work)
                 for _ in range(2)]
        codes = [p.wait(timeout=120) for p in procs]
        left = [f for f in os.listdir(os.path.dirname(ini)) if f.startswith(".hs-")]
        good, text = whole_ini(ini)
        if codes == [0, 0] and good and not left:
            ok(f"two instances: imgui.ini is one whole save ({len(text)} bytes), no temporary file left")
        else:
            fail(f"two instances: exits {codes}, whole {good}, temporaries {left}")
    print(f"{passed} settings cases passed, {len(failures)} failed in {time.monotonic() - started:.1f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
