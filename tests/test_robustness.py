"""Reproductions of defects found under bad input, faults and attack (issue 11), one test each."""

from __future__ import annotations

import time

import pytest

from pytest_llmeval import Case, Registry
from pytest_llmeval.patterns import PII_DETECTORS, SECRET_DETECTORS

REGISTRY = Registry(entry_points=False)

# Fragments that make backtracking patterns explode when repeated: hex-and-colon runs, digit groups,
# separators, key-like runs, e-mail parts, dots, PEM dashes.
FRAGMENTS = ["1:", "a:", "ab:cd:", "1 ", "1-", "1.", "A1", "a", "x@", "a.", "-", "sk-a", "eyJ", "=", "AccountKey=", "+1 "]


def _seconds(pattern, text):
    start = time.perf_counter()
    for _ in pattern.finditer(text):
        pass
    return time.perf_counter() - start


@pytest.mark.parametrize("detector", [*PII_DETECTORS, *SECRET_DETECTORS], ids=lambda d: f"{d.kind}-{d.description[:20]}")
def test_every_builtin_pattern_is_linear(detector):
    """Growing adversarial inputs 10x grows the scan time about 10x, never 100x (and stays well under a second)."""
    for fragment in FRAGMENTS:
        for tail in ("g", "_final", "", "!"):
            small = fragment * 400 + tail
            large = fragment * 4000 + tail
            t_small = _seconds(detector.pattern, small)
            t_large = _seconds(detector.pattern, large)
            assert t_large < 1.0, (fragment, tail, t_large)
            assert t_large < 40 * t_small + 0.02, (fragment, tail, t_small, t_large)


def test_the_ipv6_answer_that_hung_returns_at_once():
    answer = "Build ab:cd:3c7d5f8a9b1e2d4c6a8f0e1d3b5c7a9e2f4d6b8a_final"
    start = time.perf_counter()
    [result] = REGISTRY.create("pii_leakage").evaluate([Case(actual=answer)])
    assert time.perf_counter() - start < 1.0 and result.passed
    for k in (24, 28, 5000):  # 28 took the old pattern about 10 s, 35 took 31 s
        start = time.perf_counter()
        REGISTRY.create("pii_leakage").evaluate([Case(actual="1:1:" + "a" * k + "g")])
        assert time.perf_counter() - start < 1.0
    [leak] = REGISTRY.create("pii_leakage").evaluate([Case(actual="The server is at 2001:db8:85a3::8a2e:370:7334 today.")])
    assert not leak.passed


def test_a_catastrophic_user_regexp_stops_with_a_clear_error(monkeypatch):
    from pytest_llmeval import conditions

    monkeypatch.setattr(conditions, "REGEX_TIMEOUT", 0.2)
    matching = REGISTRY.create("text_matching")
    start = time.perf_counter()
    with pytest.raises(conditions.RegexTimeoutError, match=r"regexp\(\"\(x\+x\+\)\+y\"\) ran longer than 0.2 s on a text of 5,000 characters"):
        matching.evaluate([Case(actual="x" * 5000, conditions='regexp("(x+x+)+y")')])
    assert time.perf_counter() - start < 5.0
    # an ordinary pattern behaves as re.search
    [ok] = matching.evaluate([Case(actual="Revenue was 15,969 million", conditions='regexp("15,?969 [Mm]il")')])
    assert ok.passed


def test_a_catastrophic_schema_pattern_stops_with_a_clear_error(monkeypatch):
    from pytest_llmeval import conditions

    monkeypatch.setattr(conditions, "REGEX_TIMEOUT", 0.2)
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(x+x+)+y$"}}}
    evaluator = REGISTRY.create("json_schema", schema=schema)
    with pytest.raises(conditions.RegexTimeoutError, match="the schema pattern '\\^\\(x\\+x\\+\\)\\+y\\$' ran longer than 0.2 s"):
        evaluator.evaluate([Case(actual='{"code": "' + "x" * 5000 + '"}')])
    [bad] = REGISTRY.create("json_schema", schema={"properties": {"c": {"type": "string", "pattern": "^[A-Z]{3}$"}}}).evaluate(
        [Case(actual='{"c": "eur"}')]
    )
    assert not bad.passed and "'eur' does not match '^[A-Z]{3}$'" in bad.reason
