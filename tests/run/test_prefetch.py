"""Embeddings of the tests to come are encoded in batches (tests parametrized from cases(...)); judge prefetch
(opt-in)."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval import Case, Registry
from pytest_llmeval.run.prefetch import known_fields

ROWS = 40


def rows(n: int = ROWS) -> str:
    lines = []
    for i in range(n):
        lines.append(
            json.dumps(
                {
                    "id": f"c{i}",
                    "input": {"question": f"What is fact {i}?"},
                    "actual_output": f"Fact {i} is about city number {i}. It has {i * 7} parks.",
                    "retrieved_context": [f"City number {i} has {i * 7} parks. Fact {i} concerns city {i}."],
                }
            )
        )
    return "\n".join(lines) + "\n"


SUITE = """
import pytest
from pytest_llmeval import assert_grounded, cases

@pytest.mark.parametrize("case", cases("rows.jsonl"))
def test_grounded(case):
    assert_grounded(case.actual, case.context, method="embeddings", threshold=0.0)
"""


def test_known_fields_are_those_equal_to_the_case_parameter():
    evaluator = Registry(entry_points=False).create("groundedness", method="embeddings")
    param = Case(actual="a", context=["c"], question="q")
    assert known_fields(evaluator, Case(actual="a", context=["c"]), param) == ("actual", "context")
    assert known_fields(evaluator, Case(actual="live answer", context=["c"]), param) == ("context",)


def test_planned_texts_are_what_the_check_encodes(models):
    pytest.importorskip("sentence_transformers")
    from pytest_llmeval.checks.embedding.base import planned_texts

    evaluator = Registry(entry_points=False).create("groundedness", method="embeddings")
    evaluator.bind(models)
    cases = [
        Case(actual="Paris is the capital. It is big.", context=["Paris is the capital of France.", "It is large."])
    ]
    planned = planned_texts(evaluator, cases)
    assert models.embedder().encoded == 0  # planning encodes nothing
    asked: list[str] = []
    real = models.embedder().encode
    models.embedder().encode = lambda texts: asked.extend(texts) or real(texts)
    evaluator.evaluate(cases)
    assert planned == asked


def _models(report):
    stats = report["models"]
    return [stats["controller"], *stats["workers"].values()]


@pytest.mark.parametrize("workers", [0, 2])
def test_cases_suite_encodes_each_sentence_once_in_batches(pytester, workers):
    pytest.importorskip("sentence_transformers")
    pytester.makefile(".jsonl", rows=rows())
    pytester.makepyfile(SUITE)
    args = ["-p", "no:randomly", "--llmeval-report=out", "--llmeval-cache-dir=off"]
    result = pytester.runpytest(*args, *(["-n", str(workers)] if workers else []))
    result.assert_outcomes(passed=ROWS)
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    assert len(report["results"]) == ROWS
    stats = _models(report)
    encoded = sum(e["encoded"] for s in stats for e in s.get("embedders", []))
    batches = sum(s.get("prefetch", {}).get("batches", 0) for s in stats)
    unique = 2 * ROWS + ROWS * 2  # answer: 2 sentences, context: 2 sentences, all distinct
    if not workers:
        assert encoded == unique  # nothing twice
        assert batches == 2  # 32 tests, then the 8 left (the window doubles: 32, 64)
    else:
        # the workers share their blocks (tests/models/test_blocks.py): no sentence encoded twice
        assert encoded == unique
        assert batches == 2  # the same two blocks, each encoded by whichever worker claimed it
    assert all(not s.get("prefetch", {}).get("errors") for s in stats)


def test_planning_stops_on_a_cached_window_and_starts_again_when_tests_encode(pytester):
    """A rerun whose first window is all cached plans nothing ahead, until its tests meet new texts (the last 8)."""
    pytest.importorskip("sentence_transformers")
    pytester.makefile(".jsonl", rows=rows())
    pytester.makepyfile(SUITE)
    args = ["-p", "no:randomly", "--llmeval-report=out", "--llmeval-cache-dir=cache"]
    pytester.runpytest(*args).assert_outcomes(passed=ROWS)
    changed = rows().splitlines()
    changed[32:] = [line.replace("parks", "gardens") for line in changed[32:]]
    pytester.makefile(".jsonl", rows="\n".join(changed) + "\n")
    pytester.runpytest(*args).assert_outcomes(passed=ROWS)
    [stats] = _models(json.loads((pytester.path / "out" / "report.json").read_text()))
    assert stats["embedders"][0]["encoded"] == 8 * 2  # the changed rows' changed sentences, each once
    # the cached window (tests 0-31), then, after test 32 encoded its own, one window for tests 33-39
    assert stats["prefetch"]["batches"] == 2 and stats["prefetch"]["cases"] == 32 + 7


def test_answers_made_live_still_prefetch_the_context(pytester):
    pytest.importorskip("sentence_transformers")
    pytester.makefile(".jsonl", rows=rows(10))
    pytester.makepyfile("""
        import pytest
        from pytest_llmeval import assert_grounded, cases

        @pytest.mark.parametrize("case", cases("rows.jsonl"))
        def test_live(case):
            answer = case.actual.upper()  # the model under test, answering now
            assert_grounded(answer, case.context, method="embeddings", threshold=0.0)
    """)
    pytester.runpytest("-p", "no:randomly", "--llmeval-report=out", "--llmeval-cache-dir=off").assert_outcomes(
        passed=10
    )
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    [stats] = _models(report)
    assert stats["prefetch"]["batches"] == 1 and stats["prefetch"]["cases"] == 10
    assert stats["embedders"][0]["encoded"] == 40  # 20 context sentences ahead, 20 answer sentences as they come


def test_judge_prefetch_asks_the_next_tests_verdicts_once_each(pytester, server):
    """Opt-in: the first judge check asks the next tests' verdicts in the background; nothing is asked twice."""
    pytest.importorskip("openai")

    def reply(body):
        prompt = body["messages"][0]["content"]
        if "claims" in prompt.lower() and "verdict" not in prompt.lower():
            return {"text": json.dumps({"claims": ["one claim"]}), "delay": 0.05}
        return {"text": json.dumps({"verdict": "yes", "reason": "ok"}), "delay": 0.05}

    server.responder = reply
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_max_concurrency = 8\n"
    )
    pytester.makefile(".jsonl", rows=rows(12))
    pytester.makepyfile("""
        import pytest
        from pytest_llmeval import assert_faithful, cases

        @pytest.mark.parametrize("case", cases("rows.jsonl"))
        def test_faithful(case):
            assert_faithful(case.actual, case.context)
    """)
    result = pytester.runpytest(
        "-p", "no:randomly", "--llmeval-report=out", "--override-ini=llmeval_judge_prefetch=true"
    )
    result.assert_outcomes(passed=12)
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    assert len(server.requests) == 24  # one claim extraction and one verdict per test, each asked once
    assert report["judge"]["calls"] == 24  # prefetched calls are counted in the session's totals
    [stats] = _models(report)
    assert stats["prefetch"]["batches"] >= 1 and not stats["prefetch"]["errors"]
    replayed = sum(u["replayed"] for u in report["judge"]["per_test"].values())
    assert replayed > 0  # tests found prefetched verdicts waiting


def test_a_check_that_cannot_be_planned_is_not_scored_ahead(pytester):
    """BERTScore encodes with its own model, not through the embedding cache: nothing is planned (or scored) ahead."""
    pytest.importorskip("sentence_transformers")
    pytester.makefile(".jsonl", rows=rows(6))
    pytester.makepyfile("""
        import pytest
        from pytest_llmeval import assert_bertscore, cases

        @pytest.mark.parametrize("case", cases("rows.jsonl"))
        def test_bert(case):
            assert_bertscore(case.actual, case.context[0], threshold=-1.0)
    """)
    pytester.runpytest("-p", "no:randomly", "--llmeval-report=out", "--llmeval-cache-dir=off").assert_outcomes(passed=6)
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    [stats] = _models(report)
    assert stats["prefetch"]["batches"] == 0
