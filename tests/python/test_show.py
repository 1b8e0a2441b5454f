"""headscope.show: the maps go into the attention file the app reads, and without a display the
command is printed instead of starting the app (what these tests see: no $DISPLAY)."""
import io

import numpy as np

import headscope
from conftest import assert_maps_equal, cli_json


def test_show_without_display_prints_the_command(cli, tmp_path, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    r = headscope.load("stories260K").run("Lily saw a big dog.")
    scaled = r.attention ** 2
    scaled = scaled / scaled.sum(-1, keepdims=True)  # a map made in Python
    out = io.StringIO()
    path = tmp_path / "python maps.safetensors"
    command = headscope.show(scaled, r.tokens, name="squared", path=path, file=out)
    assert command[1:] == ["--attention", str(path)], command
    assert "no display" in out.getvalue() and "--attention" in out.getvalue(), out.getvalue()
    # The app's reader (headscope-cli opens the file as the app does) gets the same maps and tokens.
    maps = cli_json("maps", "--attention", str(path))
    assert maps["tokens"] == r.tokens
    assert_maps_equal(scaled.astype(np.float32), maps["attention"], "show()'s file")


def test_show_default_path_and_refusals(tmp_path, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    a = np.full((1, 2, 3, 3), 1 / 3, np.float32)
    command = headscope.show(a, ["a", "b", "c"], file=io.StringIO())
    assert command[-1].endswith("maps.safetensors")
    for bad, tokens in ((a, ["a", "b"]), (a * np.nan, ["a", "b", "c"]), (np.ones((2, 3)), ["a", "b", "c"])):
        try:
            headscope.show(bad, tokens, path=tmp_path / "x.safetensors", file=io.StringIO())
        except ValueError:
            continue
        raise AssertionError("show() accepted maps of shape %s with %d tokens" % (bad.shape, len(tokens)))


def test_show_starts_the_app_when_there_is_a_display(tmp_path, monkeypatch):
    # A stand-in app records its arguments: with a display, show() starts it instead of printing.
    app = tmp_path / "fake-app"
    record = tmp_path / "args.txt"
    app.write_text("#!/bin/sh\necho \"$@\" > %s\n" % record)
    app.chmod(0o755)
    monkeypatch.setenv("DISPLAY", ":99")
    out = io.StringIO()
    a = np.full((1, 1, 2, 2), 0.5, np.float32)
    command = headscope.show(a, ["x", "y"], path=tmp_path / "m.safetensors", app=str(app), wait=True, file=out)
    assert out.getvalue() == "", "printed although a display is set: " + out.getvalue()
    assert record.read_text().split() == ["--attention", str(tmp_path / "m.safetensors")], record.read_text()
    assert command[0] == str(app)
