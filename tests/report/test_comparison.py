"""Model comparison and perturbation flips as users meet them: pytester runs, serial and under xdist."""

from __future__ import annotations

import json
import re

import pytest

from pytest_llmeval import perturb

CONFTEST = """
import pytest

def steady(prompt):
    p = prompt.lower()
    return {"france": "Paris", "peru": "Lima", "japan": "Tokyo"}.get(next((k for k in ("france", "peru", "japan") if k \
in p), ""), "?")

def brittle(prompt):
    # Only understands the country as typed, capitalised; and gets Japan wrong.
    return {"France": "Paris", "Peru": "Lima", "Japan": "Kyoto"}.get(next((k for k in ("France", "Peru", "Japan") if k \
in prompt), ""), "?")

@pytest.fixture(scope="session")
def llmeval_model_table():
    return {"steady": steady, "brittle": brittle}
"""

SUITE = """
import pytest
from pytest_llmeval import assert_exact_match

QUESTIONS = {"france": ("What is the capital of France?", "Paris"), "peru": ("What is the capital of Peru?", "Lima"),
             "japan": ("What is the capital of Japan?", "Tokyo")}

@pytest.mark.llmeval_perturb("typos", "uppercase", seed=1729)
@pytest.mark.parametrize("country", sorted(QUESTIONS))
def test_capital(country, llmeval_model, llmeval_generate, llmeval_perturb):
    question, expected = QUESTIONS[country]
    assert_exact_match(llmeval_generate(llmeval_perturb(question)), expected, case=country)
"""

QUESTIONS = {
    "france": ("What is the capital of France?", "Paris"),
    "peru": ("What is the capital of Peru?", "Lima"),
    "japan": ("What is the capital of Japan?", "Tokyo"),
}


def steady(prompt):
    p = prompt.lower()
    return {"france": "Paris", "peru": "Lima", "japan": "Tokyo"}.get(
        next((k for k in ("france", "peru", "japan") if k in p), ""), "?"
    )


def brittle(prompt):
    return {"France": "Paris", "Peru": "Lima", "Japan": "Kyoto"}.get(
        next((k for k in ("France", "Peru", "Japan") if k in prompt), ""), "?"
    )


def expected_flips():
    """What the flips must be, worked out here with the same perturbators and seed."""
    flips = set()
    for model, answer in (("steady", steady), ("brittle", brittle)):
        for country, (question, truth) in QUESTIONS.items():
            before = answer(question) == truth
            for name in ("typos", "uppercase"):
                after = answer(perturb(question, name, seed=1729)) == truth
                if before != after:
                    flips.add((country, model, name, "broke" if before else "fixed"))
    return flips


@pytest.fixture
def suite(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_capitals=SUITE)
    pytester.makeini("[pytest]\nllmeval_models = steady, brittle\n")
    return pytester


def run(pytester, *args):
    result = pytester.runpytest("--llmeval-report=report.json", "--junitxml=junit.xml", "-p", "no:randomly", *args)
    report = json.loads((pytester.path / "report.json").read_text())
    return result, report


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_two_models_two_perturbations(suite, workers, junit_properties):
    result, report = run(suite, *workers)
    outcomes = result.parseoutcomes()
    assert outcomes["passed"] + outcomes["failed"] == 2 * 3 * 3  # models x countries x (original + 2 perturbations)
    summary = report["summary"]
    # The leaderboard ranks the models on the original questions: steady 3/3, brittle 2/3 (Kyoto).
    rows = [(r["rank"], r["model"], r["passed"], r["count"]) for r in summary["leaderboard"]]
    assert rows == [(1, "steady", 3, 3), (2, "brittle", 2, 3)]
    assert summary["best_model"] is None  # 3 of 3 against 2 of 3: within noise on 3 cases
    assert summary["no_clear_best"].startswith("no clear best: steady and brittle are within noise")
    assert summary["hardest_case"]["case_id"] == "japan" and summary["hardest_case"]["failed_models"] == ["brittle"]
    assert summary["perturbed_checks"] == 12
    found = {(f["case_id"], f["model"], f["perturbation"], f["kind"]) for f in summary["flips"]}
    assert found == expected_flips() and ("france", "brittle", "uppercase", "broke") in found
    for record in report["results"]:
        assert record["model"] in ("steady", "brittle") and record["tags"]["perturbation"] in (
            "original",
            "typos",
            "uppercase",
        )
    result.stdout.fnmatch_lines(
        [
            f"perturbation flips: {len(found)} (*) in 12 perturbed checks",
            "case*model*check*perturbation*before*after*flip",
            "france*brittle*exact_match*uppercase*1.000*0.000*broke",
        ]
    )
    cases, suite_props = junit_properties(suite.path / "junit.xml")
    # flips are suite properties (pytest's file is never rewritten): one per flip, naming the perturbed test
    flipped = {
        value.split(": ")[0].split("::")[-1] for name, value in suite_props.items() if name.startswith("llmeval.flip.")
    }
    assert "test_capital[france-brittle-uppercase]" in flipped and len(flipped) == len(found)
    assert not any(k.startswith("llmeval.flip") for props in cases.values() for k, _ in props)
    assert suite_props["llmeval.flips"] == str(len(found)) and suite_props["llmeval.perturbed_checks"] == "12"


def test_serial_and_xdist_agree_and_ids_are_stable(suite):
    _, serial = run(suite)
    _, parallel = run(suite, "-n", "2")
    for key in ("leaderboard", "flips", "hardest_case", "best_model", "insights"):
        assert serial["summary"][key] == parallel["summary"][key], key
    ids = suite.runpytest("--collect-only", "-q").stdout.lines
    assert suite.runpytest("--collect-only", "-q").stdout.lines[:18] == ids[:18]
    assert "test_capitals.py::test_capital[france-steady-original]" in ids
    assert "test_capitals.py::test_capital[peru-brittle-typos]" in ids


def test_models_option_wins_and_missing_models_or_callables_are_clear(suite):
    result = suite.runpytest("--llmeval-models=steady", "--collect-only", "-q")
    assert sum("test_capital[" in line for line in result.stdout.lines) == 9
    suite.makeini("[pytest]\n")
    result = suite.runpytest("-q", "-k", "france and original")
    result.stdout.fnmatch_lines(["*the llmeval_model fixture needs models under test: pass --llmeval-models=a,b*"])
    result = suite.runpytest("--llmeval-models=steady,nobody", "-q", "-k", "nobody and france and original")
    result.stdout.fnmatch_lines(
        ["*no callable for model 'nobody' in the llmeval_model_table fixture (models there: brittle, steady)*"]
    )


def test_bad_perturbation_markers_are_usage_errors(pytester):
    pytester.makepyfile("""
        import pytest

        @pytest.mark.llmeval_perturb("typo")
        def test_x(llmeval_perturb):
            pass
    """)
    result = pytester.runpytest()
    assert result.ret != 0
    assert (
        "test_x: @pytest.mark.llmeval_perturb: unknown perturbation 'typo'; known perturbations:"
        in result.stdout.str() + result.stderr.str()
    )
    pytester.makepyfile("""
        import pytest

        @pytest.mark.llmeval_perturb("typos")
        def test_x():
            pass
    """)
    result = pytester.runpytest()
    assert (
        result.ret != 0
        and "the test must use the llmeval_perturb fixture to perturb its input"
        in result.stdout.str() + result.stderr.str()
    )


DEFAULT_CASE_SUITE = """
import pytest
from pytest_llmeval import assert_exact_match

@pytest.mark.llmeval_perturb("uppercase", "copy")
@pytest.mark.llmeval(model="echo")
def test_echo(llmeval_perturb):
    assert_exact_match(llmeval_perturb("hello"), "hello")
"""


def test_default_case_id_groups_the_siblings_and_delta_flips(pytester):
    pytester.makepyfile(test_echo=DEFAULT_CASE_SUITE)
    result, report = run(pytester)
    result.assert_outcomes(passed=2, failed=1)
    assert {r["case_id"] for r in report["results"]} == {"test_echo.py::test_echo"}
    [flip] = report["summary"]["flips"]
    assert (flip["perturbation"], flip["kind"], flip["nodeid"]) == (
        "uppercase",
        "broke",
        "test_echo.py::test_echo[uppercase]",
    )
    pytester.makepyfile(
        test_echo=DEFAULT_CASE_SUITE.replace(
            'assert_exact_match(llmeval_perturb("hello"), "hello")',
            'llmeval.check("edit_distance", actual=llmeval_perturb("hello"), expected="hello", threshold=0.0)',
        ).replace("def test_echo(llmeval_perturb)", "def test_echo(llmeval_perturb, llmeval)")
    )
    result, report = run(pytester, "--override-ini=llmeval_flip_delta=0.5")
    result.assert_outcomes(passed=3)
    assert [f["kind"] for f in report["summary"]["flips"]] == ["moved"]
    result, report = run(pytester, "--override-ini=llmeval_flip_delta=1")
    assert report["summary"]["flips"] == []


DATASET_SUITE = """
import pytest
from pathlib import Path
from pytest_llmeval import assert_matches, cases

@pytest.mark.parametrize("case", cases(Path(__file__).with_name("rows.jsonl")))
def test_rows(case):
    assert_matches(case.actual, '"Paris"')
"""


def test_flips_on_recorded_outputs_from_a_dataset(pytester):
    rows = [
        {"id": "q1", "input": {"question": "Capital of France?"}, "model": "m", "actual_output": "Paris"},
        {
            "input": {"question": "CAPITAL OF FRANCE?"},
            "model": "m",
            "actual_output": "PARIS",
            "perturbation_of": "q1",
            "perturbation": "uppercase",
        },
    ]
    (pytester.path / "rows.jsonl").write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    pytester.makepyfile(test_rows=DATASET_SUITE)
    result, report = run(pytester, "-v")
    result.stdout.fnmatch_lines(
        ["*test_rows.py::test_rows[[]m-q1[]] PASSED*", "*test_rows.py::test_rows[[]m-q1-uppercase[]] FAILED*"]
    )
    [flip] = report["summary"]["flips"]
    assert (flip["case_id"], flip["model"], flip["perturbation"], flip["kind"]) == ("q1", "m", "uppercase", "broke")
    markdown = pytester.path / "report.md"
    run(pytester, "--llmeval-report=report.md")
    assert (
        "## Perturbation flips" in markdown.read_text()
        and "| q1 | m | text\\_matching pass | uppercase |" in markdown.read_text()
    )


def test_paraphrase_without_a_judge_skips(pytester):
    pytester.makepyfile("""
        import pytest

        @pytest.mark.llmeval_perturb("paraphrase")
        def test_x(llmeval_perturb):
            llmeval_perturb("hello there")
    """)
    result = pytester.runpytest("-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        ["*llmeval judge unavailable: no judge configured*paraphrase perturbation needs a verdict*"]
    )
    assert re.search(r"1 skipped", result.stdout.str())


def test_the_example_shows_model_comparison_and_flips(pytester):
    from pathlib import Path

    examples = Path(__file__).parents[2] / "examples"
    for name in ("test_model_comparison.py", "recorded_perturbations.jsonl"):
        (pytester.path / name).write_text((examples / name).read_text(encoding="utf-8"), encoding="utf-8")
    result, report = run(pytester)
    assert result.ret == 0  # the known-weak model's known failures are strict xfails
    result.assert_outcomes(passed=32, xfailed=4)  # no xpassed: every expected failure is one
    summary = report["summary"]
    # Its known failures are expected: counted apart, not the most difficult case.
    assert summary["best_model"] is None and summary["no_clear_best"].startswith("no clear best: acme-large and ")
    assert summary["hardest_case"] is None and summary["expected_failures"] == 4
    assert [(f["case_id"], f["perturbation"], f["kind"]) for f in summary["flips"]] == [
        ("capital-au", "typos", "broke"),
        ("capital-au", "uppercase", "broke"),
        ("refund-window", "uppercase", "fixed"),
    ]
    result.stdout.fnmatch_lines(["perturbation flips: 3 (2 broke, 1 fixed) in 24 perturbed checks"])


def test_paraphrase_is_written_by_the_judge_and_replayed(pytester, server):
    pytest.importorskip("openai")
    server.default = {"text": json.dumps({"paraphrase": "Which city is the capital of France?"})}
    pytester.makeini(f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n")
    pytester.makepyfile("""
        import pytest

        @pytest.mark.llmeval_perturb("paraphrase", seed=7)
        def test_x(llmeval_perturb):
            text = llmeval_perturb("What is the capital of France?")
            assert text in ("What is the capital of France?", "Which city is the capital of France?")
    """)
    pytester.runpytest().assert_outcomes(passed=2)
    assert len(server.requests) == 1 and "Paraphrase the text below" in server.requests[0]["messages"][0]["content"]
    pytester.runpytest("--override-ini=llmeval_judge_cache=replay").assert_outcomes(passed=2)
    assert len(server.requests) == 1  # replayed


# -- edge cases found in review -------------------------------------------------------------

EDGE_SUITE = """
import pytest
from pytest_llmeval import assert_exact_match, perturbation

@pytest.mark.llmeval_perturb(perturbation("uppercase", label="heavy-upper"), perturbation("lowercase", \
label="minúsculas"))
@pytest.mark.parametrize("word", ["a-b", "Hello"])
def test_one(word, llmeval_perturb):
    assert_exact_match(llmeval_perturb(word), word, case=None)

@pytest.mark.llmeval_perturb("uppercase")
@pytest.mark.parametrize("word", ["hello"])
def test_other(word, llmeval_perturb):
    assert_exact_match(llmeval_perturb(word), "never")
"""


def test_sibling_ids_with_dashes_and_unicode_and_no_cross_test_pairs(pytester):
    pytester.makepyfile(test_edge=EDGE_SUITE)
    result, report = run(pytester, "--junitprefix=pre")
    flips = {(f["nodeid"].split("::")[1], f["kind"]) for f in report["summary"]["flips"]}
    # a-b: upper breaks it, lower keeps it; Hello: both break it; test_other fails everywhere: no flip
    assert flips == {
        ("test_one[a-b-heavy-upper]", "broke"),
        ("test_one[Hello-heavy-upper]", "broke"),
        ("test_one[Hello-min\\xfasculas]", "broke"),
    }
    from xml.etree import ElementTree

    flagged = [
        p.get("value").split(": ")[0].split("::")[-1]
        for p in ElementTree.parse(pytester.path / "junit.xml").iter("property")
        if p.get("name").startswith("llmeval.flip.")
    ]
    assert sorted(flagged) == sorted(name for name, _ in flips)


def test_perturbation_parameters_fail_at_collection(pytester):
    pytester.makepyfile("""
        import pytest
        from pytest_llmeval import perturbation

        @pytest.mark.llmeval_perturb(perturbation("typos", rate=5))
        def test_x(llmeval_perturb):
            pass
    """)
    result = pytester.runpytest()
    assert (
        result.ret != 0
        and "'rate' must be a number between 0 and 1; got 5" in result.stdout.str() + result.stderr.str()
    )


def test_equal_means_share_a_rank():
    from pytest_llmeval.report.aggregate import summarize

    def record(model, value):
        return {
            "evaluator": "e",
            "metrics": {"m": value},
            "primary": "m",
            "passed": True,
            "higher_is_better": {"m": True},
            "model": model,
            "case_id": "c",
            "signature": {"evaluator": "e"},
        }

    records = [record("a", v) for v in (0.1, 0.2, 0.3)] + [record("b", v) for v in (0.3, 0.2, 0.1)]
    assert [row.rank for row in summarize(records).rows] == [1, 1]
