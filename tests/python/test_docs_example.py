"""docs/python.md's examples run: every ```python block of the page, in order, in one namespace,
from a scratch folder without a display (headscope.show prints its command there)."""
import os
import re

import pytest

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "python.md")


def test_python_md_examples_run(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.chdir(tmp_path)
    with open(DOC, encoding="utf-8") as f:
        blocks = re.findall(r"^```python\n(.*?)^```", f.read(), re.S | re.M)
    assert blocks, "docs/python.md has no ```python block"
    namespace = {}
    for i, block in enumerate(blocks):
        try:
            exec(compile(block, "docs/python.md block %d" % (i + 1), "exec"), namespace)
        except Exception as e:  # noqa: BLE001 - the message names the block
            pytest.fail("docs/python.md block %d failed: %s: %s\n%s" % (i + 1, type(e).__name__, e, block))
