"""Startup cost: plain checks never import torch or sentence-transformers (cf. hypothesis' test_pytest_detection)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

HEAVY = (
    "torch",
    "sentence_transformers",
    "transformers",
    "detoxify",
    "profanity_check",
    "vaderSentiment",
    "presidio_analyzer",
    "spacy",
    "openai",
    "deepeval",
)

PROBE = """
import sys
import pytest
from pytest_llmeval import (assert_matches, assert_json, assert_no_pii, assert_no_sensitive_data,
    assert_no_encoded_leak, assert_not_looping, assert_rouge, assert_bleu, assert_exact_match,
    assert_edit_distance)

def test_every_deterministic_check():
    assert_matches("15,969", '"15,969"')
    assert_json('{"a": 1}', {"type": "object"})
    assert_no_pii("nothing personal")
    assert_no_sensitive_data("nothing secret")
    assert_no_encoded_leak("nothing encoded")
    assert_not_looping("One sentence here. Another one there.")
    assert_rouge("the cat sat", "the cat sat")
    assert_bleu("the cat sat on the mat", "the cat sat on the mat")
    assert_exact_match("a", "a")
    assert_edit_distance("colour", "color", threshold=0.5)

def test_zz_nothing_heavy_was_imported():
    loaded = [name for name in {heavy!r} if name in sys.modules]
    assert not loaded, loaded
"""


def test_deterministic_run_leaves_heavy_libraries_out(pytester):
    installed = [name for name in HEAVY if importlib.util.find_spec(name) is not None]
    if not installed:
        pytest.skip("none of the heavy libraries is installed: nothing to prove")
    pytester.makepyfile(PROBE.replace("{heavy!r}", repr(HEAVY)))
    # -p no:deepeval: deepeval's own pytest plugin (when its extra is installed) imports it at start-up
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-p", "no:deepeval", "--llmeval-report=r.json")
    result.assert_outcomes(passed=2)


def test_importing_the_plugin_is_light():
    code = (
        f"import sys, pytest_llmeval, pytest_llmeval.plugin; print(sorted(m for m in {HEAVY!r} if m in sys.modules)); "
        "print('numpy' in sys.modules, 'jsonschema' in sys.modules, 'nltk' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]"
    assert out[1] == "False False False"
