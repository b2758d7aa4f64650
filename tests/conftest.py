"""Shared helpers for the plugin tests."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

# pytester's in-process runs forget modules first imported inside them, and
# numpy refuses to be imported twice in one process: import the evaluators'
# libraries here, once, before any in-process run.
import hypothesis.internal.observability  # noqa: F401  (hypothesis's plugin imports it at every summary)
import jsonschema  # noqa: F401
import numpy  # noqa: F401
from nltk.translate import bleu_score  # noqa: F401
from rouge_score import rouge_scorer  # noqa: F401

try:  # the toxicity model's libraries, when installed (same reason)
    import profanity_check  # noqa: F401
    import sklearn  # noqa: F401
except ImportError:
    pass


@pytest.fixture
def junit_properties():
    """Parse a JUnit file into {testcase name: [(property, value), ...]} and the suite properties."""

    def parse(path):
        root = ET.parse(path).getroot()
        suite = root if root.tag == "testsuite" else root.find("testsuite")
        cases = {}
        for case in suite.iter("testcase"):
            props = case.find("properties")
            cases[case.get("name")] = [] if props is None else [(p.get("name"), p.get("value")) for p in props]
        suite_props = suite.find("properties")
        suite_values = {} if suite_props is None else {p.get("name"): p.get("value") for p in suite_props}
        return cases, suite_values

    return parse


@pytest.fixture
def read_json():
    def read(path):
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)

    return read
