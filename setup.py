"""Builds the package headscope (pyproject.toml has its metadata; docs/python.md how to install it).

The extension headscope._core is made by this repository's CMake build with only core and the
module switched on (HEADSCOPE_BUILD_CLI, _GUI, _TESTS and _BENCH off), in the same configuration
as the programs (Release). The shipped models (assets/models: stories260K) become package data
in headscope/models. Extra CMake arguments: $HEADSCOPE_CMAKE_ARGS (e.g. "-DHEADSCOPE_NATIVE=ON");
parallel jobs: $CMAKE_BUILD_PARALLEL_LEVEL (default: every core).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = os.path.dirname(os.path.abspath(__file__))


def project_version():
    """The version of the CMake project (one place for it)."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        match = re.search(r"project\(headscope VERSION ([0-9.]+)", f.read())
    if not match:
        sys.exit("setup.py: no 'project(headscope VERSION x.y.z)' in CMakeLists.txt")
    return match.group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class BuildWithCMake(build_ext):
    def build_extension(self, ext):
        if shutil.which("cmake") is None:
            sys.exit("headscope needs CMake to build its module: install it with  apt-get install cmake")
        build_dir = os.path.join(os.path.abspath(self.build_temp), "cmake")
        args = ["-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release", "-DHEADSCOPE_BUILD_PYTHON=ON",
                "-DHEADSCOPE_BUILD_CLI=OFF", "-DHEADSCOPE_BUILD_GUI=OFF", "-DHEADSCOPE_BUILD_TESTS=OFF",
                "-DHEADSCOPE_BUILD_BENCH=OFF", "-DPYTHON_EXECUTABLE=" + sys.executable]
        try:
            import pybind11
            args.append("-Dpybind11_DIR=" + pybind11.get_cmake_dir())
        except ImportError:
            pass  # CMake finds Debian's pybind11-dev, or says which package is missing
        if shutil.which("ninja"):
            args += ["-G", "Ninja"]
        args += shlex.split(os.environ.get("HEADSCOPE_CMAKE_ARGS", ""))
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.check_call(["cmake"] + args)
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "headscope_python", "-j", jobs])
        built = os.path.join(build_dir, "python", "headscope")
        module = [f for f in os.listdir(built) if f.startswith("_core") and f.endswith(".so")]
        if not module:
            sys.exit("setup.py: the CMake build made no headscope/_core*.so in " + built)
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(built, module[0]), target)


class BuildWithModels(build_py):
    """The package's Python files, and the shipped models as headscope/models."""

    def run(self):
        super().run()
        models = os.path.join(self.build_lib, "headscope", "models")
        if os.path.isdir(models):
            shutil.rmtree(models)
        shutil.copytree(os.path.join(ROOT, "assets", "models"), models)


os.makedirs(os.path.join(ROOT, "build-pip"), exist_ok=True)  # setuptools' own files stay out of the source tree
setup(
    version=project_version(),
    ext_modules=[CMakeExtension("headscope._core")],
    cmdclass={"build_ext": BuildWithCMake, "build_py": BuildWithModels},
    options={"build": {"build_base": "build-pip"}, "egg_info": {"egg_base": os.path.join(ROOT, "build-pip")}},
    zip_safe=False,
)
