"""The catalog derives from the evaluator classes: --llmeval-evaluators, the README tables, plugins adding checks."""

from __future__ import annotations

import json
import pathlib

import pytest

from pytest_llmeval import Registry
from pytest_llmeval.harness.catalog import EXAMPLE_NEEDS, entries, readme_table
from pytest_llmeval.harness.options import options_table

from tools.docs_pages import current

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"


def block(page: str, name: str) -> list[str]:
    text = current(DOCS / page, name)
    assert text is not None, f"docs/{page} has no {name} block"
    return text.splitlines()


def test_the_docs_check_table_is_generated_from_the_classes():
    """Regenerate with: python tools/docs_pages.py --write"""
    assert block("checks/index.md", "catalog") == readme_table(Registry(entry_points=False))


def test_the_docs_options_table_is_generated_from_the_options():
    assert block("options.md", "options") == options_table()


def test_every_builtin_check_names_its_helper_and_the_helper_exists():
    import pytest_llmeval

    found = entries(Registry(entry_points=False))
    assert len(found) >= 59 and all(e.source == "built-in" and e.kind in ("rules", "model", "judge") for e in found)
    for entry in found:
        assert entry.description, entry.name
        if entry.helper:
            assert entry.helper in pytest_llmeval.__all__, (entry.name, entry.helper)
    helpers = {e.helper for e in found if e.helper}
    public = {
        name
        for name in pytest_llmeval.__all__
        if name.startswith("assert_") and name not in ("assert_check", "assert_metric")
    }
    assert public - helpers == set()  # every public helper is some check's declared helper


PLUGIN_CHECK = '''
from pytest_llmeval import Evaluator, MetricSpec, Score


class ShoutCheck(Evaluator):
    """Passes when the answer is written in capitals."""

    name = "shout"
    description = "The answer is written in capitals"
    metrics = (MetricSpec("shout", "share of upper-case letters", primary=True, threshold=0.9),)

    def score(self, case):
        letters = [c for c in case.actual if c.isalpha()]
        share = sum(c.isupper() for c in letters) / len(letters) if letters else 0.0
        return Score({"shout": share}, f"{share:.0%} capitals")


def pytest_llmeval_register_evaluators(registry):
    registry.register("shout", ShoutCheck)
'''


def test_a_check_added_by_a_subfolder_conftest_is_in_the_catalog_the_contract_and_the_report(pytester):
    """One class and a hook in sub/conftest.py, no other file: registered (historic hook) when pytest runs from the
    root."""
    sub = pytester.mkdir("sub")
    (sub / "conftest.py").write_text(PLUGIN_CHECK)
    (sub / "test_shout.py").write_text(
        "from pytest_llmeval import assert_check\n\n"
        "def test_loud():\n    assert_check('shout', actual='HELLO THERE')\n\n"
        "def test_quiet():\n    assert_check('shout', actual='hello there')\n"
    )
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=out.json")
    result.assert_outcomes(passed=1, failed=1)
    report = json.loads((pytester.path / "out.json").read_text())
    assert [(r["evaluator"], r["passed"]) for r in report["results"]] == [("shout", True), ("shout", False)]
    listing = pytester.runpytest("--llmeval-evaluators")
    assert listing.ret == 0
    listing.stdout.fnmatch_lines(
        [
            "*llmeval evaluators*",
            "shout: assert_check('shout', ...); shout >= 0.9; needs actual; rules, from conftest:ShoutCheck",
            "    The answer is written in capitals",
        ]
    )
    assert "passed" not in listing.stdout.lines[-1] or "deselected" in listing.stdout.lines[-1]  # nothing ran
    # the contract harness accepts it: the same checks every built-in passes
    from tests.core.test_contract import check_contract

    namespace: dict[str, object] = {}
    exec(PLUGIN_CHECK, namespace)  # noqa: S102 - the test's own source
    check_contract(namespace["ShoutCheck"])


def test_evaluators_option_lists_every_builtin_check(pytester):
    pytester.makepyfile("def test_x():\n    raise AssertionError('must not run')\n")
    result = pytester.runpytest("--llmeval-evaluators")
    assert result.ret == 0
    text = result.stdout.str()
    for entry in entries(Registry(entry_points=False)):
        assert f"\n{entry.name}: " in text
    assert "faithfulness: assert_faithful(...)" in text and "judge, extra judge" in text
    assert "must not run" not in text


@pytest.mark.parametrize("name", ["context_relevancy_judge", "hallucination_judge"])
def test_checks_that_had_no_helper_now_have_one(name):
    entry = next(e for e in entries(Registry(entry_points=False)) if e.name == name)
    assert entry.helper


RUN_EXAMPLES = """
import contextlib, io, json, sys, traceback
from pytest_llmeval import Registry
from pytest_llmeval.harness.catalog import example_code
outcome = {}
for name in json.loads(sys.argv[1]):
    cls = Registry(entry_points=False).resolve(name)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile(example_code(cls), f"<example {name}>", "exec"), {})
        outcome[name] = printed.getvalue().split(" ", 1)[0]
    except Exception as exc:
        outcome[name] = f"error: {type(exc).__name__}: {str(exc)[:300]}"
print("OUTCOME=" + json.dumps(outcome))
"""


@pytest.mark.subprocess
def test_every_offline_checks_documented_example_runs():
    """The example on each check's docs page, run as a script outside pytest (as a notebook would): it prints a
    verdict."""
    import subprocess
    import sys

    registry = Registry(entry_points=False)
    names = [
        e.name
        for e in entries(registry)
        if e.source == "built-in" and e.kind != "judge" and e.name not in EXAMPLE_NEEDS
    ]
    done = subprocess.run(
        [sys.executable, "-c", RUN_EXAMPLES, json.dumps(names)], capture_output=True, text=True, timeout=900
    )
    outcome = json.loads(done.stdout.rpartition("OUTCOME=")[2] or "{}")
    assert sorted(outcome) == sorted(names), done.stderr[-3000:]
    assert {name: verdict for name, verdict in outcome.items() if verdict not in ("pass", "fail", "unverified")} == {}


def test_every_judge_checks_documented_example_runs_against_a_judge(pytester, server):
    """A judge check's example, run inside a test against a real OpenAI-protocol server answering each schema."""
    from tests.core.test_contract import schema_instance

    server.responder = lambda body: {
        "text": json.dumps(schema_instance(body["response_format"]["json_schema"]["schema"]))
    }
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_api_key_env = JUDGE_KEY\nllmeval_judge_cache = off\n"
    )
    registry = Registry(entry_points=False)
    from pytest_llmeval.harness.catalog import example_code

    judged = [e.name for e in entries(registry) if e.source == "built-in" and e.kind == "judge"]
    lines = ["import pytest", ""]
    for name in judged:
        code = example_code(registry.resolve(name)).replace(
            "print(result.verdict, result.reason)", "assert result.verdict in ('pass', 'fail', 'unverified')"
        )
        lines += [f"def test_{name}():"] + [f"    {line}" for line in code.splitlines()] + [""]
    pytester.makepyfile(test_examples="\n".join(lines))
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=len(judged))
