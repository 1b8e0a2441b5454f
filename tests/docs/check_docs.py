#!/usr/bin/env python3
"""The README is a front door, and the documentation's links lead somewhere.

Checks, from the repository root given as the first argument:
  - README.md has at most 250 lines;
  - every relative link and image in README.md and docs/*.md names a file or folder that exists,
    and a '#anchor' on a Markdown file names one of its headings (GitHub's slugs);
  - the README's test command is exactly the command .ci/run runs.
Prints every problem, one a line, and exits 1 when there is any.
"""
import pathlib
import re
import sys

MAX_README_LINES = 250
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"`[^`\n]*`")


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(md_file):
    found = set()
    in_code = False
    for line in md_file.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("#"):
            found.add(slug(line.lstrip("#")))
    return found


def links(md_file):
    in_code = False
    for number, line in enumerate(md_file.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            in_code = not in_code
            continue
        if in_code:
            continue
        for match in LINK.finditer(CODE_SPAN.sub("", line)):
            yield number, match.group(1)


def check_links(root, md_file, problems):
    for number, target in links(md_file):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:: not checked (offline)
            continue
        path_part, _, anchor = target.partition("#")
        where = f"{md_file.relative_to(root)}:{number}"
        resolved = (md_file.parent / path_part).resolve() if path_part else md_file
        if not resolved.exists():
            problems.append(f"{where}: link '{target}' names {path_part}, which does not exist")
            continue
        if anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            problems.append(f"{where}: link '{target}': {resolved.name} has no heading '#{anchor}'")


def test_command(text, where, problems):
    for line in text.splitlines():
        if line.startswith("bash tests/setup_debian.sh &&") and "ctest" in line:
            return line.strip()
    problems.append(f"{where}: no test command (a line starting 'bash tests/setup_debian.sh &&' that runs ctest)")
    return None


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    problems = []
    readme = root / "README.md"
    lines = readme.read_text(encoding="utf-8").count("\n")
    if lines > MAX_README_LINES:
        problems.append(f"README.md: {lines} lines; the front door holds at most {MAX_README_LINES} (move details to docs/)")
    for md_file in [readme] + sorted((root / "docs").glob("*.md")):
        check_links(root, md_file, problems)
    readme_command = test_command(readme.read_text(encoding="utf-8"), "README.md", problems)
    ci_command = test_command((root / ".ci" / "run").read_text(encoding="utf-8"), ".ci/run", problems)
    if readme_command and ci_command and readme_command != ci_command:
        problems.append(f"README.md's test command differs from .ci/run's:\n  README: {readme_command}\n  CI:     {ci_command}")
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"README.md: {lines} lines; every link in README.md and docs/*.md resolves; test command matches .ci/run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
