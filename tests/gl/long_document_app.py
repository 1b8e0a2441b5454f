#!/usr/bin/python3
"""The desktop app on a long text (issue 50), in a real window under xvfb-run: a small random
qwen2-shaped GGUF file (kept_maps_cli.py's: 2 layers, 4 query heads on 2 key/value heads of 16) and
T = 2100 token ids, past the long-input rule's 2048.

1. With no view flag the app opens on the layers x heads overview of block maxima (every head of
   both layers drawn) and the status line shows the memory in use against the budget.
2. `--view head --layer 1 --head 2`: the head's exact [T, T] map is computed off the UI thread; the
   map the window shows (--save-opened-map) equals `headscope-cli export --layer 1 --head 2
   --whole-maps --out F.npy` within 1e-6 (a mismatch names the cell), and the view says "exact map".
3. `--memory-budget 64` (MiB, less than the app holds): the map is refused in the status line with
   its numbers (its size, the memory in use, the budget), the app keeps running (exit 0), and
   --save-opened-map then fails with one "error:" line naming the refusal.
Cancel is the headless exact_head_test's (a window cannot press it in time).

usage: long_document_app.py HEADSCOPE HEADSCOPE_CLI XVFB_RUN
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "cli"))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
import kept_maps_cli  # noqa: E402  (write_small_qwen: the same file cli_kept_maps uses)

T = 2100
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL: " + msg)
    return cond


def shot(app, xvfb, work, name, args):
    png = os.path.join(work, name + ".png")
    cmd = [xvfb, "-a", "-s", "-screen 0 1280x720x24", app] + args + [
        "--width", "1280", "--height", "720", "--screenshot", png, "--frames", "6"]
    # xvfb-run itself can fail when tests run in parallel (a lost race for a display number, exit 5
    # "problem while cleaning up temporary directory"): the harness, not the app; run it again.
    for _ in range(3):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if "xvfb-run: error:" not in p.stderr:
            break
        print("  (xvfb-run failed, not the app; again: %s)" % p.stderr.strip().splitlines()[-1])
    report = None
    if os.path.exists(png + ".json"):
        with open(png + ".json", encoding="utf-8") as f:
            report = json.load(f)
    return p, report


def texts(report):
    return [t["text"] for t in (report or {}).get("texts", [])]


def main():
    app, cli, xvfb = sys.argv[1], sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory(prefix="headscope-longapp-") as work:
        env_home = os.path.join(work, "home")
        os.makedirs(env_home)
        os.environ["HOME"] = env_home  # a fresh imgui.ini: the default budget
        os.environ.pop("XDG_CONFIG_HOME", None)
        model = os.path.join(work, "small-qwen2.gguf")
        kept_maps_cli.write_small_qwen(model)
        ids = ",".join(str(i) for i in np.random.default_rng(7).integers(0, 256, T))
        base = ["--model", model, "--input-ids", ids, "--threads", "2"]

        # 1. The overview of block maxima, and the memory line.
        p, report = shot(app, xvfb, work, "overview", base)
        if check(p.returncode == 0 and report, "overview: exit %d: %s" % (p.returncode, p.stderr.strip()[-400:])):
            drawn = {(h["layer"], h["head"]) for h in report["heatmaps"]}
            check(drawn == {(l, h) for l in range(2) for h in range(4)},
                  "overview: heads drawn %s, expected every head of layers 0 and 1" % sorted(drawn))
            memory = [t for t in texts(report) if re.match(r"memory \d.* of \d+(\.\d+)? GiB", t.strip())]
            check(memory, "overview: no 'memory ... of N GiB' in the status line: %s" % texts(report)[-6:])

        # 2. One head opened exactly, against the CLI's export of the same head.
        opened = os.path.join(work, "opened.npy")
        p, report = shot(app, xvfb, work, "opened", base + ["--view", "head", "--layer", "1", "--head", "2",
                                                          "--save-opened-map", opened])
        if check(p.returncode == 0 and os.path.exists(opened), "opened: exit %d: %s" % (p.returncode, p.stderr.strip()[-400:])):
            said = [t for t in texts(report) if t.startswith("exact map: all 2100 x 2100 cells")]
            check(said, "opened: the view does not say 'exact map: all 2100 x 2100 cells': %s" %
                  [t for t in texts(report) if "exact" in t])
            heads = [h for h in report["heatmaps"] if h["key"] == "head view"]
            check(heads and heads[0]["rows"] == T and heads[0]["cols"] == T,
                  "opened: the head view drew %s, expected %d x %d cells" %
                  ([(h["rows"], h["cols"]) for h in heads], T, T))
            cli_npy = os.path.join(work, "cli.npy")
            r = subprocess.run([cli, "export"] + base + ["--layer", "1", "--head", "2", "--whole-maps", "--out", cli_npy],
                               capture_output=True, text=True, timeout=300)
            if check(r.returncode == 0, "export --layer 1 --head 2 --whole-maps: exit %d, %s" % (r.returncode, r.stderr.strip())):
                got, want = np.load(opened), np.load(cli_npy)
                if check(got.shape == want.shape == (T, T), "shapes: app %s, CLI %s" % (got.shape, want.shape)):
                    err = np.abs(got.astype(np.float64) - want.astype(np.float64))
                    i, j = np.unravel_index(np.argmax(err), err.shape)
                    check(err[i, j] <= 1e-6, "opened L1 h2: query %d, key %d: app %.9g, CLI %.9g, error %.3g" %
                          (i, j, got[i, j], want[i, j], err[i, j]))
                    print("ok: the app's opened L1 h2 equals the CLI's export (max error %.3g over %d cells)" % (err.max(), T * T))

        # 3. Over the memory budget: refused with the numbers, the app keeps running.
        p, report = shot(app, xvfb, work, "refused", base + ["--view", "head", "--layer", "1", "--head", "2",
                                                           "--memory-budget", "64"])
        if check(p.returncode == 0 and report, "refused: exit %d: %s" % (p.returncode, p.stderr.strip()[-400:])):
            line = [t for t in texts(report) if t.startswith("\u26a0 exact map refused:")]
            want = re.compile(r"L1 h2: the exact 2100 x 2100 map needs 16\.8 MiB; [\d.]+ MiB in use, memory budget 64 MiB")
            check(line and want.search(line[0]), "refused: status line %s, expected %s" % (line, want.pattern))
        p, _ = shot(app, xvfb, work, "refused_save", base + ["--view", "head", "--layer", "1", "--head", "2",
                                                           "--memory-budget", "64", "--save-opened-map", opened + "2"])
        err_lines = [ln for ln in p.stderr.splitlines() if ln.startswith("error:")]
        check(p.returncode == 1 and len(err_lines) == 1 and "refused" in err_lines[0] and not os.path.exists(opened + "2"),
              "refused --save-opened-map: exit %d, stderr %r" % (p.returncode, p.stderr.strip()[-400:]))
    if failures:
        print("%d failure(s)" % len(failures))
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
