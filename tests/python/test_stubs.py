"""The type stubs (.pyi) say what the package is: every public name of each module is in its stub
and the other way round, and every function's and method's parameters (names, kinds, defaults)
are the same in the stub and in the code."""
import ast
import inspect
import os

import pytest

import headscope
import headscope.attention_file
import headscope.viewer

PACKAGE_DIR = os.path.dirname(headscope.__file__)
MODULES = {"__init__": headscope, "attention_file": headscope.attention_file, "viewer": headscope.viewer}


def stub_tree(name):
    path = os.path.join(PACKAGE_DIR, name + ".pyi")
    assert os.path.isfile(path), "no stub %s beside the module" % path
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read(), path)


def stub_functions(tree):
    """name -> FunctionDef, and 'Class.method' -> FunctionDef (properties as attributes)."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    out[node.name + "." + item.name] = item
    return out


def stub_names(tree):
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname for a in node.names if a.asname and a.asname == a.name)
    return {n for n in names if not n.startswith("_") or n == "__version__"}


def stub_parameters(fn):
    """[(name, kind, default source or None)] as inspect would list them."""
    a = fn.args
    out = []
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for arg, d in zip(positional, defaults):
        out.append((arg.arg, "POSITIONAL_OR_KEYWORD", None if d is None else ast.unparse(d)))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, "KEYWORD_ONLY", None if d is None else ast.unparse(d)))
    return out


def code_parameters(obj):
    out = []
    for p in inspect.signature(obj).parameters.values():
        default = None if p.default is inspect.Parameter.empty else repr(p.default)
        out.append((p.name, p.kind.name, default))
    return out


@pytest.mark.parametrize("module", sorted(MODULES))
def test_stub_names_match_the_module(module):
    mod = MODULES[module]
    public = set(getattr(mod, "__all__", None) or [n for n in vars(mod) if not n.startswith("_")
                                                      and getattr(vars(mod)[n], "__module__", mod.__name__) == mod.__name__
                                                      and (inspect.isfunction(vars(mod)[n]) or inspect.isclass(vars(mod)[n]))])
    if module != "__init__":
        public |= {n for n in ("FORMAT", "VERSION") if hasattr(mod, n)}
    stub = stub_names(stub_tree(module))
    assert not public - stub, "%s.pyi lacks %s" % (module, sorted(public - stub))
    assert not stub - public - {"Result", "Model"}, "%s.pyi names what the module lacks: %s" % (module, sorted(stub - public))


@pytest.mark.parametrize("module", sorted(MODULES))
def test_stub_signatures_match_the_code(module):
    mod = MODULES[module]
    for name, fn in stub_functions(stub_tree(module)).items():
        obj = mod
        for part in name.split("."):
            assert hasattr(obj, part), "%s.pyi has %s, the module does not" % (module, name)
            obj = getattr(obj, part)
        if isinstance(obj, property):
            continue
        want, got = stub_parameters(fn), code_parameters(obj)
        if "." in name:
            want, got = want[1:], got[1:]  # self
        assert got == want, "%s.%s: the code has %s, the stub %s" % (module, name, got, want)


@pytest.mark.parametrize("cls", ["Model", "Result"])
def test_stub_classes_name_every_public_member(cls):
    stub = {name.split(".", 1)[1] for name in stub_functions(stub_tree("__init__")) if name.startswith(cls + ".")}
    code = {n for n in vars(getattr(headscope, cls)) if not n.startswith("_")}
    assert code <= stub, "__init__.pyi's %s lacks %s" % (cls, sorted(code - stub))
