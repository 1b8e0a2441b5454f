#!/usr/bin/python3
"""Every shell command shown in README.md and docs/*.md runs, and succeeds:

    doc_commands.py SOURCE_DIR BUILD_DIR FIXTURES_DIR

The commands are the lines of the ```sh blocks (and of the plain ``` blocks whose lines all start
with headscope-cli or ./build/headscope), with their comments. Each runs with bash from a scratch
folder laid out as the repository root (build/, assets/, tools/ and tests/ linked, docs/ empty),
so what it writes lands there. Names the docs use for a user's own files are substituted from
PLACEHOLDERS (small files tests/docs/make_doc_fixtures.py wrote into FIXTURES_DIR); the app
(./build/headscope) gets --screenshot and --frames, under xvfb-run. A command in EXEMPT is not
run, for the reason given there (this is the one table of them). A failure names the file, the
command, its exit code and its standard error.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

# (pattern of the command, why it is not run here)
EXEMPT = [
    (r"^bash tests/setup_debian\.sh", "installs packages and builds the tree these tests run in (the README's own "
                                      "build and test commands; CI runs the test command itself)"),
    (r"^cmake --install build", "installs into the system; tests/install/install_deb.py installs the package into "
                                "a temporary root instead"),
    (r"^cd build && cpack -G DEB && apt install", "installs into the system; tests/install/install_deb.py builds and "
                                                  "unpacks the package instead"),
    (r"^/usr/bin/python3 -m venv --system-site-packages v && v/bin/pip install", "builds and installs the Python "
     "package (core compiled again); tests/python/fresh_install.py (ctest python_fresh_install) runs it and the next line"),
    (r"^v/bin/python -c ", "needs the virtual environment of the line above: tests/python/fresh_install.py runs it"),
    (r"^parallel ", "GNU parallel is not a dependency; the same four shards run one by one (make_doc_fixtures.py) and "
                    "are merged by the next command"),
]

# A user's own files, as the docs name them -> the fixture that stands for them ({F}: FIXTURES_DIR).
PLACEHOLDERS = [
    ("~/models/Qwen2.5-0.5B-Instruct-Q4_K_M.gguf", "{F}/qwen2-grouped.gguf"),
    ("~/models/Llama-3.2-1B-Instruct-Q8_0.gguf", "{F}/qwen2-grouped.gguf"),
    ("Qwen2.5-0.5B-Instruct-Q4_K_M.gguf", "{F}/qwen2-grouped.gguf"),
    ("~/models/stories260K-F32.gguf", "{F}/stories-gguf/stories260K_f32.gguf"),
    ("~/models/stories260K-Q8_0.gguf", "{F}/stories-gguf/stories260K_q8_0.gguf"),
    ("~/models/stories260K-Q4_0.gguf", "{F}/stories-gguf/stories260K_q4_0.gguf"),
    ("~/models/bert-base-uncased", "{F}/bert"),
    ("bert-base-uncased/", "{F}/bert/"),
    ("~/models/xlm-roberta-base", "{F}/xlm-roberta"),
    ("~/models/gpt2", "{F}/gpt2"),
    ("path/to/tokenizer-folder", "{F}/gpt2"),
    ("mha.safetensors", "{F}/mha.safetensors"),
    ("x.npy", "{F}/x.npy"),
    ("--attention maps.safetensors", "--attention {F}/maps.safetensors"),
    ("--style paper.json", "--style {F}/paper.json"),
    ("stories.txt", "{F}/stories.txt"),
    ("part0.jsonl part1.jsonl part2.jsonl part3.jsonl",
     "{F}/part0.jsonl {F}/part1.jsonl {F}/part2.jsonl {F}/part3.jsonl"),
    ("headscope-cli compare ... ", "headscope-cli compare --model stories260K --sentence \"Lily saw the big dog.\" "
                                   "--contrast \"Lily saw the little cat.\" "),
]

# The app: a few frames into a picture, then exit (it would otherwise wait for a person).
APP = re.compile(r"(^|\s)(\./build/headscope)(\s|$)")


def blocks(path):
    """The shell blocks of a Markdown file: (first line number, text)."""
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M):
        lang, body = m.group(1), m.group(2)
        lines = [l for l in body.splitlines() if l.strip() and not l.lstrip().startswith("#")]
        programs = all(re.match(r"(\./build/)?headscope(-cli)?\b", l) for l in lines)
        if lang in ("sh", "bash", "shell") or (lang == "" and lines and programs):
            yield text[:m.start()].count("\n") + 2, body


def commands(path):
    """(line number, command) of every command in the file's shell blocks; comments and blank lines dropped."""
    for first, body in blocks(path):
        for i, line in enumerate(body.splitlines()):
            if line.strip() and not line.lstrip().startswith("#"):
                yield first + i, line.strip()


def substituted(command, fixtures, shots):
    for name, value in PLACEHOLDERS:  # whole names only: "x.npy" is not the end of "max.npy"
        command = re.sub(r"(?<![\w./-])" + re.escape(name), lambda m: value.replace("{F}", fixtures), command)
    if APP.search(command):
        shot = os.path.join(shots, "app%d.png" % len(os.listdir(shots)))
        command = command.split(" #")[0] + " --screenshot %s --frames 2 --width 1280 --height 720" % shot
        command = "xvfb-run -a -s '-screen 0 1920x1080x24' " + command
    return command


def scratch_root(source, build):
    """A folder laid out as the repository root, where outputs go."""
    root = tempfile.mkdtemp(prefix="doc-commands-")
    for name in ("assets", "tools", "tests"):
        os.symlink(os.path.join(source, name), os.path.join(root, name))
    os.symlink(os.path.abspath(build), os.path.join(root, "build"))
    os.makedirs(os.path.join(root, "docs"))
    return root


def main():
    source, build, fixtures = (os.path.abspath(a) for a in sys.argv[1:4])
    docs = [os.path.join(source, "README.md")] + sorted(
        os.path.join(source, "docs", f) for f in os.listdir(os.path.join(source, "docs")) if f.endswith(".md"))
    root = scratch_root(source, build)
    shots = os.path.join(root, "shots")
    os.makedirs(shots)
    env = dict(os.environ, PATH=os.path.abspath(build) + os.pathsep + os.environ["PATH"], HOME=root,
               SLURM_ARRAY_TASK_ID="3", XDG_CONFIG_HOME=os.path.join(root, "config"))
    ran, exempt, failed = 0, [], []
    for doc in docs:
        rel = os.path.relpath(doc, source)
        for line, command in commands(doc):
            reason = next((why for pattern, why in EXEMPT if re.search(pattern, command)), None)
            if reason:
                exempt.append("%s:%d %s" % (rel, line, command))
                continue
            if APP.search(command) and not shutil.which("xvfb-run"):
                print("SKIP %s:%d %s: xvfb-run not installed (tests/setup_debian.sh installs xvfb)" % (rel, line, command))
                continue
            run = substituted(command, fixtures, shots)
            try:
                p = subprocess.run(["bash", "-c", run], cwd=root, env=env, capture_output=True, text=True, timeout=600)
                code, err = p.returncode, p.stderr
            except subprocess.TimeoutExpired:
                code, err = "timeout", "still running after 600 s"
            ran += 1
            if code != 0:
                failed.append("%s:%d: %s\n  ran: %s\n  exit %s: %s" % (rel, line, command, run, code, err.strip()[-2000:]))
            else:
                print("ok   %s:%d %s" % (rel, line, command))
    for e in exempt:
        print("exempt (EXEMPT table) %s" % e)
    for f in failed:
        print("FAIL " + f)
    print("%d commands ran, %d failed, %d exempt" % (ran, len(failed), len(exempt)))
    if not failed:
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failed or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
