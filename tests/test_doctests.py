"""Every docstring example in the package runs and is right."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import pytest_llmeval

MODULES = sorted(info.name for info in pkgutil.walk_packages(pytest_llmeval.__path__, prefix="pytest_llmeval."))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS, verbose=False)
    assert failures == 0
