#!/usr/bin/env python3
"""check_unity_names.py finds what a unity batch cannot compile, and only that: two files of one
batch that each define file_stem(const std::string&) in an anonymous namespace, a static kNaN, or
the same macro clash; overloads with other parameter types, names in named namespaces and
members of classes do not."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

A = r'''#include "a.h"
#define HS_ONLY_HERE 1
namespace hs {
namespace {
// a comment with file_stem(int) in it
std::string file_stem(const std::string& path) { return path; }
std::vector<bool> read_rope(const GgufFile& f, int n) { return {}; }
struct Reader { int read(); };
}  // namespace
static const double kNaN = 0.0 / 0.0;
int exported(int x) { return x; }
}  // namespace hs
'''
B = r'''#include "b.h"
#define HS_ONLY_HERE 2
namespace hs {
namespace {
const char* text = "namespace { std::string file_stem(const std::string& p) }";
std::string file_stem(const std::string& other_name) { return other_name; }
int read_rope(const HfConfig& cfg, const json& j, bool b = true) { return 0; }
class Writer { int read(); };
}  // namespace
static constexpr float kNaN = 1.0f;
int exported2(int x) { return x; }
}  // namespace hs
'''


def main():
    with tempfile.TemporaryDirectory() as d:
        src, build = os.path.join(d, "src"), os.path.join(d, "build", "lib.dir", "Unity")
        os.makedirs(src)
        os.makedirs(build)
        for name, text in (("a.cpp", A), ("b.cpp", B)):
            open(os.path.join(src, name), "w").write(text)
        open(os.path.join(build, "unity_0_cxx.cxx"), "w").write(
            "".join(f'#include "{os.path.join(src, n)}"\n' for n in ("a.cpp", "b.cpp")))
        run = subprocess.run([sys.executable, os.path.join(HERE, "check_unity_names.py"), src,
                              os.path.join(d, "build")], capture_output=True, text=True)
        out = run.stdout
        expected = ["file_stem(conststd::string&) defined in a.cpp:6 and b.cpp:6",
                    "kNaN defined in a.cpp:10 and b.cpp:10",
                    "macro HS_ONLY_HERE defined in a.cpp:2 and b.cpp:2",
                    "3 clashes"]
        missing = [e for e in expected if e not in out]
        wrong = [w for w in ("read_rope", "Reader", "Writer", "exported", "read(") if w in out]
        if run.returncode != 1 or missing or wrong:
            print(out, run.stderr)
            sys.exit(f"exit {run.returncode} (expected 1); missing {missing}; reported wrongly {wrong}")
        print("check_unity_names finds the 3 clashes and nothing else")


if __name__ == "__main__":
    main()
