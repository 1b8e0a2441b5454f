"""headscope.show (this module: headscope.viewer): the app on maps made in Python. The maps go into the attention file the app
already reads (`headscope --attention FILE`, docs/attention-file.md), then the app starts on it;
without a display (no $DISPLAY or $WAYLAND_DISPLAY: a server, a test, a notebook over ssh) or
without the app, the command is printed instead, to run where there is a screen.
"""
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

from .attention_file import save_attention


def _find_app():
    """$HEADSCOPE_APP, else the app of the build tree this module was built in (<build>/headscope
    beside <build>/python/headscope), else `headscope` on PATH; None when there is none."""
    env = os.environ.get("HEADSCOPE_APP")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.normpath(os.path.join(here, "..", "..", "headscope"))
    if os.path.isfile(built) and os.access(built, os.X_OK):
        return built
    return shutil.which("headscope")


def has_display():
    """True when a window can open: an X11 or Wayland display is set."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def show_command(path, app=None):
    """The command that opens the attention file `path` in the app (a list of str)."""
    return [app or _find_app() or "headscope", "--attention", os.path.abspath(os.fspath(path))]


def show(attention, tokens, *, name=None, path=None, token_ids=None, causal=None, app=None, wait=False, file=None):
    """Opens the app on `attention` ([layers, heads, T, T], or anything save_attention takes: a
    Result's attention, Hugging Face's outputs.attentions, a TransformerLens cache) with its T
    `tokens`. The maps are written to `path` (default: a new temporary folder's maps.safetensors)
    first. With a display and the app, starts it (wait=True: until it is closed); otherwise prints
    the command (to `file`, default standard output). Returns the command, a list of str."""
    if path is None:
        path = os.path.join(tempfile.mkdtemp(prefix="headscope-"), "maps.safetensors")
    path = os.fspath(path)
    save_attention(path, attention, tokens, name=name, token_ids=token_ids, causal=causal)
    app = app or _find_app()
    command = show_command(path, app)
    if not has_display() or app is None:
        reason = "no display" if not has_display() else "the app (headscope) is not installed"
        print("headscope.show: %s; to see the maps, run:  %s" % (reason, shlex.join(command)), file=file or sys.stdout)
        return command
    process = subprocess.Popen(command, start_new_session=True)
    if wait:
        process.wait()
    return command
