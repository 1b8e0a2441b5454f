#!/usr/bin/env python3
"""The tree's layers, checked from the #include lines (README, "Layout").

core/ is a one-way stack: each folder includes only itself and the folders below it.
    util -> formats -> text -> model -> analysis -> render -> export -> session
(session files and lessons name views by the view registry, core/export/view_registry.h)
core/ never includes app/ or a GUI header; app/cli never includes app/gui; inside app/gui the
folders are layered too (platform at the top, state at the bottom).

Usage: check_layers.py SOURCE_DIR. Prints every offending include and exits 1, or says how many
files it read and exits 0.
"""
import pathlib
import re
import sys

# Rank of each core folder: a file may include folders of its own rank or lower, except that
# folders of the same rank must not include each other.
CORE = {"util": 0, "formats": 1, "text": 2, "model": 3, "analysis": 4, "render": 5, "export": 6, "session": 7}
# app/gui: state <- widgets <- actions <- work <- panels <- platform (platform holds main and GL).
GUI = {"state": 0, "widgets": 1, "actions": 2, "work": 3, "panels": 4, "platform": 5}
GUI_HEADERS = re.compile(r"^(imgui|backends/|GLFW/|glad/|GL/)")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]')


def includes(path):
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        m = INCLUDE.match(line)
        if m:
            yield number, m.group(1)


def check_ranked(rel, target, ranks, prefix):
    """An include of prefix/<folder>/... from a file in prefix/<folder>/...: the rule above."""
    mine = rel.parts[len(prefix.split("/"))]
    parts = pathlib.PurePosixPath(target).parts
    if len(parts) < len(prefix.split("/")) + 2 or "/".join(parts[: len(prefix.split("/"))]) != prefix:
        return None
    theirs = parts[len(prefix.split("/"))]
    if mine not in ranks:
        return f"{prefix}/{mine}/ is not a known layer ({', '.join(ranks)})"
    if theirs not in ranks:
        return f"{prefix}/{theirs}/ is not a known layer ({', '.join(ranks)})"
    if ranks[theirs] > ranks[mine] or (ranks[theirs] == ranks[mine] and theirs != mine):
        return f"{prefix}/{mine} may not include {prefix}/{theirs} (layers: {' -> '.join(ranks)})"
    return None


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    problems, files = [], 0
    for path in sorted(root.glob("core/**/*")) + sorted(root.glob("app/**/*")):
        if path.suffix not in (".h", ".cpp") or not path.is_file():
            continue
        files += 1
        rel = path.relative_to(root)
        for number, target in includes(path):
            why = None
            if rel.parts[0] == "core":
                if target.startswith("app/"):
                    why = "core/ never includes app/"
                elif GUI_HEADERS.match(target):
                    why = "core/ never includes a GUI header"
                else:
                    why = check_ranked(rel, target, CORE, "core")
            elif rel.parts[:2] == ("app", "cli") and target.startswith("app/gui/"):
                why = "app/cli never includes app/gui"
            elif rel.parts[:2] == ("app", "common") and target.startswith(("app/gui/", "app/cli/")):
                why = "app/common is shared by the CLI and the app and includes neither"
            elif rel.parts[:2] == ("app", "gui") and len(rel.parts) > 3:
                why = check_ranked(rel, target, GUI, "app/gui")
            elif rel.parts[:2] == ("app", "gui"):
                why = "app/gui keeps no files at its top: put it in a layer folder"
            if why:
                problems.append(f"{rel}:{number}: #include \"{target}\": {why}")
    if files == 0:
        print(f"no sources under {root}/core or {root}/app", file=sys.stderr)
        return 1
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} include(s) break the layers", file=sys.stderr)
        return 1
    print(f"layers: {files} files, every include goes down the stack")
    return 0


if __name__ == "__main__":
    sys.exit(main())
