#!/usr/bin/env python3
"""Unity batches must not define one internal name twice.

A unity build (cmake/Unity.cmake, on by default and in CI) compiles up to 16 .cpp files as one
translation unit, so two files that each define `file_stem` in an anonymous namespace, or a
`static` helper of the same name, or the same macro, compile apart and fail together. Builds with
a compiler launcher such as ccache turn unity off, so a developer's build cannot see the clash;
this check can.

usage: check_unity_names.py SOURCE_DIR UNITY_BUILD_DIR
UNITY_BUILD_DIR is a tree configured with -DHEADSCOPE_UNITY=ON (configuring writes the
Unity/unity_*.cxx batch files; nothing needs to be compiled). Prints each clash as
"batch: name defined in a.cpp:LINE and b.cpp:LINE" and exits 1 when there is one.
"""
import collections
import glob
import os
import re
import sys

KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "decltype", "alignof", "operator",
            "static_assert", "noexcept", "requires", "throw", "new", "delete"}


def strip(text):
    """Comments, string and character literals blanked out; newlines kept for line numbers."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j])); i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c); i = j + 1
        else:
            out.append(c); i += 1
    return "".join(out)


def declared_name(statement):
    """The name a namespace-scope statement (text before its '{' or ';') defines, or None."""
    s = " ".join(statement.split())
    if not s or s.startswith("#") or s.startswith("template <") and s.endswith(">"):
        return None
    s = re.sub(r"^template\s*<.*?>\s*", "", s)
    m = re.match(r"^(?:using\s+(\w+)\s*=)", s)
    if m:
        return m.group(1)
    m = re.search(r"\b(?:struct|class|union|enum(?:\s+class)?)\s+(\w+)\s*(?:final\s*)?(?::[^()]*)?$", s)
    if m:
        return m.group(1)
    if s.startswith("using ") or s.startswith("namespace ") or s.startswith("extern \"") or s.startswith("friend "):
        return None
    head = s.split("=", 1)[0]
    paren = head.find("(")
    if paren >= 0:
        m = re.search(r"(\w+)\s*$", head[:paren])
        if m and m.group(1) not in KEYWORDS and "operator" not in head[:paren]:
            # Overloads are fine: a function is named with its parameter types.
            return m.group(1) + "(" + parameter_types(s[paren + 1:]) + ")"
        return None
    m = re.search(r"(\w+)\s*(?:\[[^\]]*\])*\s*$", head)
    return m.group(1) if m and m.group(1) not in KEYWORDS else None


def parameter_types(rest):
    """The parameter types of a parameter list (the text after its '('), names and defaults left
    out: "const std::string& path, int n = 2) const" -> "const std::string&,int"."""
    depth, params, current = 0, [], []
    for c in rest:
        if c in "(<[":
            depth += 1
        elif c in ")>]":
            if depth == 0 and c == ")":
                break
            depth -= 1
        if c == "," and depth == 0:
            params.append("".join(current)); current = []
        else:
            current.append(c)
    params.append("".join(current))
    types = []
    for p in params:
        p = " ".join(p.split("=", 1)[0].split())
        m = re.match(r"^(.*?[\w>&*\]])\s+(\w+)$", p)
        types.append((m.group(1) if m and m.group(1) not in ("const", "unsigned") else p).replace(" ", ""))
    return ",".join(t for t in types if t and t != "void")


def internal_names(path):
    """(name, line) for each name with internal linkage a .cpp defines at namespace scope: what an
    anonymous namespace holds, `static` functions and variables, and #define'd macros it does not
    #undef again."""
    raw = open(path, encoding="utf-8", errors="replace").read()
    text = strip(raw)
    found = []
    macros = {}
    for number, line in enumerate(text.split("\n"), 1):
        m = re.match(r"\s*#\s*define\s+(\w+)", line)
        if m:
            macros[m.group(1)] = number
        m = re.match(r"\s*#\s*undef\s+(\w+)", line)
        if m:
            macros.pop(m.group(1), None)
    found += [("macro " + name, line) for name, line in macros.items()]
    # Preprocessor lines out, so their text is not read as declarations.
    text = re.sub(r"(?m)^[ \t]*#.*$", lambda m: " " * len(m.group(0)), text)
    scopes = []  # one per open brace: "anon", "ns" or "block"
    statement, start = [], 0
    i, line = 0, 1
    while i < len(text):
        c = text[i]
        if c == "\n":
            line += 1
        at_namespace_scope = all(s != "block" for s in scopes)
        if c in "{;}":
            s = "".join(statement).strip()
            if c == "{":
                if at_namespace_scope and re.fullmatch(r"(?:inline\s+)?namespace", s):
                    scopes.append("anon")
                elif at_namespace_scope and re.fullmatch(r"(?:inline\s+)?namespace\s+[\w:]+", s):
                    scopes.append("ns")
                elif at_namespace_scope and s.startswith("extern \"") :
                    scopes.append("ns")
                else:
                    if at_namespace_scope and s and ("anon" in scopes or re.match(r"(?:template\s*<.*?>\s*)?static\b", s)):
                        name = declared_name(s)
                        if name:
                            found.append((name, start))
                    scopes.append("block")
                statement = []
            elif c == "}":
                if scopes:
                    scopes.pop()
                statement = []
            else:  # ';'
                if at_namespace_scope and s and ("anon" in scopes or re.match(r"static\b", s)):
                    name = declared_name(s)
                    if name:
                        found.append((name, start))
                statement = []
        elif at_namespace_scope:
            if not statement and not c.isspace():
                start = line
            if statement or not c.isspace():
                statement.append(c)
        i += 1
    return found


def batches(build_dir):
    for unity in sorted(glob.glob(os.path.join(build_dir, "**", "Unity", "unity_*.cxx"), recursive=True)):
        sources = re.findall(r'#include\s+"([^"]+\.(?:cpp|cc|cxx))"', open(unity).read())
        if len(sources) > 1:
            yield unity, sources


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source_dir, build_dir = (os.path.abspath(a) for a in sys.argv[1:])
    count, clashes = 0, 0
    for unity, sources in batches(build_dir):
        count += 1
        seen = collections.defaultdict(list)
        for source in sources:
            if not os.path.exists(source):  # generated at build time (embedded_files.cpp)
                continue
            for name, line in internal_names(source):
                seen[name].append((os.path.relpath(source, source_dir), line))
        for name, where in sorted(seen.items()):
            files = {f for f, _ in where}
            if len(files) > 1:
                clashes += 1
                places = " and ".join(f"{f}:{l}" for f, l in where)
                print(f"{os.path.relpath(unity, build_dir)}: {name} defined in {places}")
    if count == 0:
        sys.exit(f"no unity batches under {build_dir}: configure it with -DHEADSCOPE_UNITY=ON")
    print(f"unity names: {count} batches, {clashes} clashes")
    return 1 if clashes else 0


if __name__ == "__main__":
    sys.exit(main())
