"""Tests of the benchmark scripts in benchmarks/, loaded as modules by path (they are scripts, not a package)."""

from __future__ import annotations

import importlib.util
import pathlib
from types import ModuleType

#: The benchmarks folder.
BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"


def load_bench(name: str) -> ModuleType:
    """The benchmark script ``benchmarks/NAME.py`` as a module."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
