"""Shared by the tests of the Python package (tests/python/tests.cmake runs them with pytest):
headscope-cli, the GGUF files of the fixture formats.gguf_test_files, and a comparison of the
package's answers with the CLI's JSON that names the first cell that differs and by how much."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

CLI = os.environ.get("HEADSCOPE_CLI", "")
GGUF_DIR = os.environ.get("HEADSCOPE_GGUF_DIR", "")
TOLERANCE = 1e-6


@pytest.fixture(scope="session")
def cli():
    if not CLI or not os.access(CLI, os.X_OK):
        pytest.fail("HEADSCOPE_CLI must name headscope-cli (tests/python/tests.cmake sets it); got %r" % CLI)
    return CLI


def cli_json(*args):
    """headscope-cli ARGS --json - as a Python object."""
    p = subprocess.run([CLI, *args, "--json", "-"], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, "headscope-cli %s failed (%d): %s" % (" ".join(args), p.returncode, p.stderr)
    return json.loads(p.stdout)


def cli_error(*args):
    """The one-line message headscope-cli ARGS prints for bad input (without 'error: ')."""
    p = subprocess.run([CLI, *args, "--json", "-"], capture_output=True, text=True, timeout=600)
    assert p.returncode in (1, 2), "headscope-cli %s: expected a refusal, got exit %d" % (" ".join(args), p.returncode)
    line = p.stderr.strip().splitlines()[-1]
    return line[len("error: "):] if line.startswith("error: ") else line


def gguf(name):
    path = os.path.join(GGUF_DIR, name)
    if not os.path.isfile(path):
        pytest.fail("%s is missing: the fixture formats.gguf_test_files writes it (HEADSCOPE_GGUF_DIR=%r)" % (name, GGUF_DIR))
    return path


def first_difference(got, want, where="", tol=TOLERANCE):
    """'' when got equals want (numbers within tol, NaN == null), else where they first differ."""
    if isinstance(got, np.ndarray):
        got = got.tolist()
    if isinstance(want, dict) or isinstance(got, dict):
        if not isinstance(got, dict) or not isinstance(want, dict):
            return "%s: %s against %s" % (where, type(got).__name__, type(want).__name__)
        if set(got) != set(want):
            return "%s: keys differ: only here %s, only in the CLI %s" % (where, sorted(set(got) - set(want)),
                                                                        sorted(set(want) - set(got)))
        for k in want:
            d = first_difference(got[k], want[k], "%s[%r]" % (where, k), tol)
            if d:
                return d
        return ""
    if isinstance(want, list) or isinstance(got, list):
        if not isinstance(got, (list, tuple)) or not isinstance(want, list) or len(got) != len(want):
            return "%s: %r against %r" % (where, _short(got), _short(want))
        for i, (g, w) in enumerate(zip(got, want)):
            d = first_difference(g, w, "%s[%d]" % (where, i), tol)
            if d:
                return d
        return ""
    if isinstance(want, float) or isinstance(got, float):
        if got is None or want is None:
            if (got is None or math.isnan(got)) and (want is None or math.isnan(want)):
                return ""
            return "%s: %r against %r" % (where, got, want)
        if abs(float(got) - float(want)) <= tol:
            return ""
        return "%s: %r against %r (error %.3g, tolerance %g)" % (where, got, want, abs(float(got) - float(want)), tol)
    return "" if got == want else "%s: %r against %r" % (where, _short(got), _short(want))


def _short(v):
    s = repr(v)
    return s if len(s) < 120 else s[:117] + "..."


def assert_same(got, want, what, tol=TOLERANCE):
    d = first_difference(got, want, what, tol)
    assert not d, "the package and headscope-cli differ at " + d


def assert_maps_equal(got, want, what):
    """Arrays [L, H, T, T]: the largest error, and the cell where it is, within 1e-6."""
    want = np.asarray(want, dtype=np.float64)
    assert got.shape == want.shape, "%s: shape %s, the CLI's %s" % (what, got.shape, want.shape)
    err = np.abs(got.astype(np.float64) - want)
    cell = np.unravel_index(int(np.argmax(err)), err.shape) if err.size else ()
    worst = float(err.max()) if err.size else 0.0
    assert worst <= TOLERANCE, "%s: cell %s (layer, head, query, key) differs by %.3g: %r against the CLI's %r" % (
        what, tuple(int(i) for i in cell), worst, float(got[cell]), float(want[cell]))
