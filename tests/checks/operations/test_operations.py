"""Operational metrics of the model under test: measured generations, budgets, per-model totals and insights."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval import LLMEvalAssertionError, measure_generation, record_generation


def test_usage_is_read_from_openai_style_responses_and_budgets_gate():
    with measure_generation(price=(1.0, 2.0)) as gen:
        reply = gen.usage(
            {
                "choices": [{"message": {"content": "Paris."}}],
                "usage": {"prompt_tokens": 1000, "completion_tokens": 500},
            }
        )
    assert reply["usage"]["prompt_tokens"] == 1000 and gen.text == "Paris." and gen.latency_ms is not None
    result = record_generation(latency_ms=120, prompt_tokens=1000, completion_tokens=500, price=(1.0, 2.0))
    assert result.metrics["cost"] == pytest.approx(0.002) and result.metrics["total_tokens"] == 1500
    assert result.passed and result.reason.startswith("within budget")

    class Usage:  # an object, as the openai client returns, with Anthropic-style names
        input_tokens, output_tokens = 7, 3

    class Response:
        usage = Usage()
        choices = ()

    with measure_generation() as gen:
        gen.usage(Response())
    assert (gen.prompt_tokens, gen.completion_tokens) == (7, 3)
    with pytest.raises(LLMEvalAssertionError, match="latency_ms 2500 > max_latency_ms 2000; cost 0.5 > max_cost 0.1"):
        record_generation(latency_ms=2500, cost=0.5, max_latency_ms=2000, max_cost=0.1)
    with pytest.raises(LLMEvalAssertionError, match="max_tokens set but no total_tokens measured"):
        record_generation(latency_ms=5, max_tokens=100)
    with pytest.raises(TypeError, match="argument 'price' must be"):
        record_generation(prompt_tokens=1, price=(1.0,))
    with pytest.raises(ValueError, match="'latency_ms' must be a non-negative number"):
        record_generation(latency_ms=-1)


def test_nothing_is_recorded_when_the_call_raises(pytester):
    pytester.makepyfile(
        "from pytest_llmeval import measure_generation\n\n"
        "def test_boom(llmeval):\n"
        "    try:\n"
        "        with measure_generation():\n"
        "            raise ConnectionError('down')\n"
        "    except ConnectionError:\n"
        "        pass\n"
        "    assert llmeval.results == []\n"
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)


SUITE = """
import pytest
from pytest_llmeval import measure_generation, record_generation

TIMES = {"fast": [10, 12, 14], "slow": [200, 220, 400]}
PRICES = {"fast": (5.0, 10.0), "slow": (0.1, 0.2)}


@pytest.mark.parametrize("model", ["fast", "slow"])
@pytest.mark.parametrize("i", range(3))
def test_generate(model, i, llmeval):
    llmeval.model = model
    record_generation(latency_ms=TIMES[model][i], prompt_tokens=100, completion_tokens=50, price=PRICES[model])


def test_measured(llmeval):
    llmeval.model = "fast"
    with measure_generation(max_latency_ms=60_000) as gen:
        gen.tokens(prompt=10, completion=5)
"""


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_generations_are_gathered_per_model_with_the_four_insights(pytester, workers):
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=out", *workers)
    result.assert_outcomes(passed=7)
    result.stdout.fnmatch_lines(
        [
            "generations (measured):",
            "model*latency ms*p95 ms*tokens*cost*total*n",
            "fast*4",
            "slow*273.3*400.0*150.0*0.000020*0.000060*3",
            "fastest: fast; slowest: slow; cheapest: slow; most expensive: fast",
        ]
    )
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    rows = {row["model"]: row for row in report["summary"]["operations"]}
    assert rows["slow"]["latency_ms_mean"] == pytest.approx(820 / 3) and rows["slow"]["latency_ms_p95"] == 400
    assert rows["fast"]["count"] == 4 and rows["slow"]["cost_total"] == pytest.approx(3 * (100 * 0.1 + 50 * 0.2) / 1e6)
    assert report["summary"]["operations_insights"] == {
        "fastest": "fast",
        "slowest": "slow",
        "cheapest": "slow",
        "most_expensive": "fast",
    }
    assert "## Generations (measured)" in (pytester.path / "out" / "report.md").read_text()
    assert "fastest: fast; slowest: slow" in (pytester.path / "out" / "report.html").read_text()
