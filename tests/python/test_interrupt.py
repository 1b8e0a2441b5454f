"""Ctrl+C stops a long call: SIGINT during the call raises KeyboardInterrupt from it (the work runs
without the GIL, the caller checks for signals), the module stays usable, the process exits."""
import os
import subprocess
import sys
import textwrap

import pytest

CHILD = textwrap.dedent("""
    import os, signal, sys, threading
    import headscope
    from headscope import _core
    kind = sys.argv[1]
    m = headscope.load("stories260K")
    if kind == "ablate":
        lines = sys.argv[2]
    threading.Timer(0.5, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    try:
        if kind == "sleep":
            _core._test_sleep(3600)   # an hour: only Ctrl+C ends it within the test's timeout
        else:
            m.ablate("Once upon a time, there was a little girl named Lily.", mode="mean", reference=lines)
        print("finished")
    except KeyboardInterrupt:
        print("interrupted")
    print("usable", m.run("Lily saw a dog.").attention.shape)
""")


@pytest.mark.parametrize("kind", ["sleep", "ablate"])
def test_ctrl_c_interrupts_a_long_call(kind, tmp_path):
    lines = tmp_path / "reference.txt"
    # Mean ablation over a reference text: a forward pass per line before any head is knocked out.
    lines.write_text("Once upon a time, there was a little girl named Lily. She liked to play outside.\n" * 1500)
    p = subprocess.run([sys.executable, "-c", CHILD, kind, str(lines)], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ))
    assert p.returncode == 0, "the child failed (%d): %s" % (p.returncode, p.stderr)
    assert "interrupted" in p.stdout, "the call was not interrupted: %s %s" % (p.stdout, p.stderr)
    assert "usable (5, 8," in p.stdout, p.stdout


def test_calls_release_the_gil():
    # A call in another thread leaves the interpreter to this one: if it held the GIL, this thread
    # could run nothing until the call ended, and would find the other thread finished.
    import threading
    import time
    from headscope import _core
    t = threading.Thread(target=_core._test_sleep, args=(3.0,))
    t.start()
    while not t.is_alive():
        time.sleep(0.001)
    time.sleep(0.2)
    total = sum(range(100000))  # Python work while the call runs
    assert t.is_alive(), "the call held the GIL: this thread ran only after it ended"
    t.join()
    assert total == 4999950000
