"""A check whose extra is not installed fails its test with one line that names the extra to install: no chained
traceback, no second error, and the run's other tests pass (vcrpy's cassettes: test_cassette_extras.py)."""

from __future__ import annotations

import pytest

#: The module blocked (as if its extra were not installed), the test's call, the extra its message names.
EXTRAS = {
    "sentence_transformers": (
        "from pytest_llmeval import assert_similar\n\n\ndef test_check():\n"
        "    assert_similar('The cat sat.', 'A cat was sitting.')\n",
        "embeddings",
    ),
    "presidio_analyzer": (
        "from pytest_llmeval import assert_check\n\n\ndef test_check():\n"
        "    assert_check('pii_presidio', actual='Call John Smith on 555-0100.')\n",
        "presidio",
    ),
    "deepeval": (
        "from types import SimpleNamespace\n\nfrom pytest_llmeval import assert_metric\n\n\ndef test_check():\n"
        "    assert_metric(SimpleNamespace(), actual='x')\n",
        "deepeval",
    ),
    "openai": (
        "from pytest_llmeval import assert_faithful\n\n\ndef test_check():\n"
        "    assert_faithful('Paris is in France.', ['Paris is the capital of France.'])\n",
        "judge",
    ),
}


@pytest.mark.parametrize("module", sorted(EXTRAS))
def test_a_missing_extra_is_one_line_naming_it(pytester: pytest.Pytester, module: str):
    source, extra = EXTRAS[module]
    pytester.makeconftest(f"import sys\n\nsys.modules[{module!r}] = None  # its extra not installed\n")
    pytester.makepyfile(test_app=source + "\n\ndef test_other():\n    assert True\n")
    result = pytester.runpytest(
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        "--llmeval-cache-dir=off",
        "--llmeval-judge-model=m",
        "-o",
        "llmeval_judge_base_url=http://127.0.0.1:9/v1",
    )
    result.assert_outcomes(passed=1, failed=1)
    failure = result.stdout.str().split("_ test_check _", 1)[1].split("short test summary", 1)[0]
    lines = [line for line in failure.splitlines() if line.strip() and not set(line) <= set("=_ ")]
    assert (
        len(lines) == 1
        and lines[0].startswith("llmeval: ")
        and f"pip install 'pytest-llm-verdict[{extra}]'" in lines[0]
    ), failure
