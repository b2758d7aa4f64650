"""The plugin as users meet it: options, marker, assertion messages, summary, JUnit, reports, xdist."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval.harness.markers import MARKER_HELP
from pytest_llmeval.harness.options import OPTIONS

SUITE = """
import pytest
from pytest_llmeval import assert_matches, assert_rouge, assert_json, assert_no_pii

@pytest.mark.llmeval(model="big", case="q1")
def test_big_q1():
    assert_matches("Brazil revenue was 15,969 million", '"15,969" AND NOT "Real"')
    assert_rouge("the cat sat on the mat", "the cat sat on the mat")

@pytest.mark.llmeval(model="small", case="q1")
def test_small_q1():
    assert_matches("Revenue was 16 billion Real", '"15,969" AND NOT "Real"')

@pytest.mark.llmeval(model="big", case="q2")
def test_big_q2():
    assert_json('{"id": 1}', {"type": "object", "required": ["id"]})

@pytest.mark.llmeval(model="small", case="q2")
def test_small_q2():
    assert_json('{"id": "x"}', {"type": "object", "properties": {"id": {"type": "integer"}}})

@pytest.mark.llmeval(model="small", case="q3")
def test_small_q3():
    assert_no_pii("write to jane.doe@example.com")

@pytest.mark.llmeval(model="big", case="q3")
def test_big_q3():
    assert_no_pii("no personal data here")
"""


def test_help_lists_options(pytester):
    result = pytester.runpytest("--help")
    result.stdout.fnmatch_lines(
        [
            "*LLM evaluation (pytest-llm-verdict); every setting is also a [[]tool.llmeval[]] key*",
            "*--llmeval-report=PATH*",
            "*--llmeval-threshold=EVALUATOR.METRIC=NUMBER*",
            "*llmeval_report (linelist)*",
            "*llmeval_thresholds (linelist)*",
        ]
    )
    text = " ".join(result.stdout.str().split())
    for option in OPTIONS:  # every setting has its ini key with its help; those the command line takes, their option
        assert option.ini in text and (option.option in text) == option.cli, option.key
        assert " ".join(option.help.split())[:40] in text, option.key
    assert "--llmeval-evaluators" in text


def test_marker_is_registered(pytester):
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.llmeval(model=None, case=None, **tags)*"])
    assert MARKER_HELP.startswith("llmeval(model=None, case=None, repeat=None, min_pass=None, defer=None, **tags)")
    pytester.makepyfile("import pytest\n@pytest.mark.llmeval(model='m')\ndef test_x():\n    pass\n")
    assert pytester.runpytest("--strict-markers").ret == 0


def test_passing_and_failing_assertions_and_messages(pytester):
    pytester.makepyfile(SUITE)
    result = pytester.runpytest()
    result.assert_outcomes(passed=3, failed=3)
    out = result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*LLMEvalAssertionError: llmeval text_matching failed: pass 0.000 < threshold 0.500",
            '*why: condition "15,969" AND NOT "Real" fails; answer: missing "15,969"; found forbidden "Real" at 23*',
            "*model: small  case: q1",
            "*signature: text_matching|v1|python|evaluate_context=true|thresholds=pass:0.5",
        ]
    )
    result.stdout.fnmatch_lines(["*schema violation at $.id: 'x' is not of type 'integer'*"])
    result.stdout.fnmatch_lines(["*PII found: email 'j***@example.com' in answer*"])
    # the address is masked in the evidence and in the answer shown
    result.stdout.fnmatch_lines(["*answer: 'write to [[]email: j***@example.com]'"])
    assert not [line for line in result.stdout.lines if line.startswith("E") and "jane.doe@example.com" in line]
    # helper frames are hidden: the traceback ends in the test, not in pytest_llmeval
    assert "pytest_llmeval/assertions" not in out


def test_summary_leaderboard_best_model_and_hardest_case(pytester):
    pytester.makepyfile(SUITE)
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(
        [
            "*= llmeval summary =*",
            "7 checks on 2 models: 4 passed (57%)",
            "check*model*mean*pass*n",
            "text_matching pass*big*1.000*100%*1",
            "*small*0.000*0%*1",
            "rouge rougeL*big*1.000*100%*1",
            "json_schema valid*big*1.000*100%*1",
            "*small*0.000*0%*1",
            "pii_leakage pass*big*1.000*100%*1",
            "*small*0.000*0%*1",
            # 4 of 4 against 0 of 3 on 3 shared cases: too few to call a best model
            "no clear best: big and small are within noise (1.00 vs 0.00 on 3 cases, p *)",
            "most difficult case: q1 (failed by 1/2 models)",
            "  failed by: small",
        ]
    )
    lines = result.stdout.lines
    section = lines[lines.index(next(x for x in lines if "llmeval summary" in x)) + 1 :]
    for line in section[: section.index(next(x for x in section if "short test summary" in x))]:
        assert len(line) <= 80, line


def test_summary_is_quiet_without_checks(pytester):
    pytester.makepyfile("def test_plain():\n    assert 1\n")
    result = pytester.runpytest()
    assert "llmeval summary" not in result.stdout.str()
    assert "llmeval report" not in result.stdout.str()


def test_no_summary_option_hides_leaderboard(pytester):
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("--override-ini=llmeval_summary=false")
    assert "llmeval summary" not in result.stdout.str()


def test_junit_properties(pytester, junit_properties):
    pytester.makepyfile(SUITE)
    pytester.runpytest("--junitxml=out.xml")
    cases, suite = junit_properties(pytester.path / "out.xml")
    big = dict(cases["test_big_q1"])
    assert big["llmeval.text_matching.pass"] == "1.0"
    assert big["llmeval.rouge.rougeL"] == "1.0"
    assert big["llmeval.rouge.passed"] == "True"
    records = [json.loads(v) for k, v in cases["test_big_q1"] if k == "llmeval"]
    assert [r["evaluator"] for r in records] == ["text_matching", "rouge"]
    assert records[0]["model"] == "big" and records[0]["case_id"] == "q1"
    small = dict(cases["test_small_q1"])
    assert small["llmeval.text_matching.pass"] == "0.0"
    assert small["llmeval.text_matching.generation_failure"] == "1.0"
    assert suite["llmeval.checks"] == "7"
    assert "llmeval.best_model" not in suite  # no model is significantly best on 3 shared cases
    assert suite["llmeval.small.text_matching.pass.pass_rate"] == "0.0"
    assert suite["llmeval.big.rouge.rougeL.mean"] == "1.0"


@pytest.mark.parametrize("family", ["xunit1", "xunit2"])
def test_junit_families_both_carry_properties(pytester, junit_properties, family):
    pytester.makeini(f"[pytest]\njunit_family = {family}\n")
    pytester.makepyfile(SUITE)
    pytester.runpytest("--junitxml=out.xml")
    cases, suite = junit_properties(pytester.path / "out.xml")
    assert "llmeval.text_matching.pass" in dict(cases["test_big_q1"])
    assert suite["llmeval.checks"] == "7"


def test_json_report_round_trip(pytester, read_json):
    from pytest_llmeval import Result
    from pytest_llmeval.report import jsonfile

    pytester.makepyfile(
        SUITE
        + """
def test_collect_results(llmeval):
    r = llmeval.evaluate("exact_match", actual="Paris", expected="paris", params={"ignore_case": True})
    import json, pathlib
    pathlib.Path("direct.json").write_text(json.dumps(r.to_dict()))
"""
    )
    result = pytester.runpytest("--llmeval-report=out/report.json")
    result.stdout.fnmatch_lines(["llmeval report: out/report.json"])
    report = jsonfile.load(pytester.path / "out" / "report.json")
    assert report["summary"]["checks"] == 8
    assert (
        report["tests"][
            "test_plugin_and_more.py::test_small_q1"
            if False
            else next(k for k in report["tests"] if k.endswith("test_small_q1"))
        ]
        == "failed"
    )
    results = jsonfile.results(report)
    direct = Result.from_dict(json.loads((pytester.path / "direct.json").read_text()))
    stored = [r for r in results if r.evaluator == "exact_match"]
    assert stored == [direct]
    for record, res in zip(report["results"], results):
        assert Result.from_dict(res.to_dict()) == res
        assert record["outcome"] in {"passed", "failed"}
    assert report["run"]["plugin"]
    # checks of tests without a model have no model: null in rows, absent from the models and their totals
    assert {row["model"] for row in report["summary"]["leaderboard"]} == {"big", "small", None}
    assert report["summary"]["models"] == ["big", "small"] and set(report["summary"]["model_totals"]) == {
        "big",
        "small",
    }
    assert "(unnamed)" not in json.dumps(report)


def test_report_directory_writes_all_formats(pytester):
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("--llmeval-report=rep")
    for name in ("report.json", "report.md", "report.html"):
        assert (pytester.path / "rep" / name).is_file()
        result.stdout.fnmatch_lines([f"llmeval report: rep/{name}"])
    markdown = (pytester.path / "rep" / "report.md").read_text()
    assert "| rank | model | mean | 95% CI | sd | pass rate | 95% CI | passed | n |" in markdown
    assert "No clear best: big and small are within noise" in markdown
    assert "## Failed checks" in markdown


def test_html_report_is_self_contained_and_escaped(pytester):
    pytester.makepyfile(
        """
import pytest
from pytest_llmeval import assert_matches, evaluate

@pytest.mark.llmeval(model="<b>evil</b>")
def test_escaped():
    evaluate("text_matching", actual="<script>alert(1)</script> & more", conditions='"x"')
"""
    )
    pytester.runpytest("--llmeval-report=r.html")
    page = (pytester.path / "r.html").read_text()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in page
    assert "&lt;b&gt;evil&lt;/b&gt;" in page
    lowered = page.lower()
    for external in ("http://", "https://", "<link", "@import", "src=", "url("):
        assert external not in lowered, external
    # the filters' own inline script, nothing else
    assert lowered.count("<script") == 1 and "<script>\n(function () {" in page
    assert "default-src 'none'" in page  # and a Content-Security-Policy: the page fetches nothing
    assert "hsl(" in page  # heatmap colours


def test_report_from_ini(pytester):
    pytester.makeini("[pytest]\nllmeval_report = from-ini.md\n")
    pytester.makepyfile(SUITE)
    pytester.runpytest()
    assert (pytester.path / "from-ini.md").is_file()


def test_unwritable_report_does_not_lose_the_run(pytester):
    pytester.makepyfile(SUITE)
    (pytester.path / "blocker").write_text("a file, not a directory")
    result = pytester.runpytest("--llmeval-report=blocker/sub/report.json", "--llmeval-report=ok.json")
    result.assert_outcomes(passed=3, failed=3)
    result.stdout.fnmatch_lines(["llmeval report: FAILED blocker/sub/report.json*", "llmeval report: ok.json"])
    assert (pytester.path / "ok.json").is_file()


def test_bad_report_extension_is_reported(pytester):
    pytester.makepyfile(SUITE)
    result = pytester.runpytest("--llmeval-report=out.txt")
    result.stdout.fnmatch_lines(["*FAILED out.txt: unknown report extension '.txt'*"])


def test_thresholds_precedence_call_cli_ini(pytester):
    pytester.makeini("[pytest]\nllmeval_thresholds =\n    rouge.rougeL=0.9\n    rouge.rouge1=0.1\n")
    pytester.makepyfile(
        """
from pytest_llmeval import assert_rouge

def test_ini_and_cli():
    r = assert_rouge("the cat sat on the mat", "the cat sat on a mat")  # rougeL 0.833
    assert r.thresholds == {"rougeL": 0.5, "rouge1": 0.1}

def test_call_wins():
    r = assert_rouge("the cat sat on the mat", "the cat sat on a mat", threshold=0.2)
    assert r.thresholds["rougeL"] == 0.2
"""
    )
    pytester.runpytest("--llmeval-threshold=rouge.rougeL=0.5").assert_outcomes(passed=2)
    # ini alone: 0.9 beats the 0.833 score
    pytester.runpytest().assert_outcomes(passed=1, failed=1)


@pytest.mark.parametrize(
    "option, message",
    [
        ("--llmeval-threshold=rougeL", "*invalid threshold 'rougeL': expected EVALUATOR.METRIC=NUMBER*"),
        ("--llmeval-threshold=rouge.rougeL=high", "*invalid threshold 'rouge.rougeL=high'*"),
        ("--llmeval-threshold=nope.x=0.1", "*no evaluator named 'nope' (`pytest --llmeval-evaluators` lists all *)*"),
        (
            "--llmeval-threshold=rouge.rouge9=0.1",
            "*rouge has no metric 'rouge9'; its metrics: rouge1, rouge2, rougeL, rougeLsum*",
        ),
    ],
)
def test_bad_threshold_option(pytester, option, message):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest(option)
    assert result.ret != 0
    (result.stderr if "invalid" in message else result.stderr).fnmatch_lines([message])


def test_bad_threshold_ini_names_the_source(pytester):
    pytester.makeini("[pytest]\nllmeval_thresholds = rouge\n")
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*llmeval_thresholds in the ini file (or -o): invalid threshold 'rouge'*"])


def test_fixture_sets_model_and_case(pytester):
    pytester.makepyfile(
        """
from pytest_llmeval import assert_exact_match

def test_fixture(llmeval):
    llmeval.model = "m1"
    llmeval.case = "c1"
    r = assert_exact_match("4", ["4", "four"])
    assert (r.model, r.case_id) == ("m1", "c1")
    r2 = llmeval.check("exact_match", actual="four", expected="4", case="c2", thresholds={"exact_match": 0.0})
    assert r2.case_id == "c2" and not r2.metrics["exact_match"]
    assert len(llmeval.results) == 2

def test_default_case_is_nodeid(llmeval):
    r = assert_exact_match("a", "a")
    assert r.case_id.endswith("::test_default_case_is_nodeid") and r.model is None
"""
    )
    pytester.runpytest().assert_outcomes(passed=2)


def test_marker_tags_and_argument_checks(pytester):
    pytester.makepyfile(
        """
import pytest
from pytest_llmeval import assert_exact_match

pytestmark = pytest.mark.llmeval(model="module-model", perturbation="none")

@pytest.mark.llmeval(case="k", perturbation="typos")
def test_tags():
    r = assert_exact_match("a", "a")
    assert (r.model, r.case_id) == ("module-model", "k")

@pytest.mark.llmeval("positional")
def test_positional():
    pass
"""
    )
    result = pytester.runpytest("--llmeval-report=r.json")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*takes keyword arguments only*"])
    record = json.loads((pytester.path / "r.json").read_text())["results"][0]
    assert record["tags"] == {"perturbation": "typos"}


def test_registry_hook_and_custom_evaluator(pytester):
    pytester.makeconftest(
        """
from pytest_llmeval import Evaluator, MetricSpec, Score

class Shouting(Evaluator):
    name = "shouting"
    metrics = (MetricSpec("upper_ratio", "share of upper-case letters", higher_is_better=False,
                          threshold=0.3, primary=True),)

    def score(self, case):
        letters = [c for c in case.actual if c.isalpha()] or ["a"]
        return Score({"upper_ratio": sum(c.isupper() for c in letters) / len(letters)}, "counted")

def pytest_llmeval_register_evaluators(registry):
    registry.register("shouting", Shouting)

def pytest_llmeval_update_report(config, report):
    report["run"]["commit"] = "abc123"
"""
    )
    pytester.makepyfile(
        """
from pytest_llmeval import assert_check

def test_calm():
    assert_check("shouting", actual="hello there")

def test_loud():
    assert_check("shouting", actual="HELLO THERE")
"""
    )
    result = pytester.runpytest("--llmeval-report=r.json", "--llmeval-threshold=shouting.upper_ratio=0.5")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*llmeval shouting failed: upper_ratio 1.000 > threshold 0.500*"])
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["run"]["commit"] == "abc123"


def test_broken_record_does_not_break_the_run(pytester):
    pytester.makepyfile(
        """
from pytest_llmeval import assert_exact_match

def test_bad(record_property):
    record_property("llmeval", "{not json")

def test_good():
    assert_exact_match("a", "a")
"""
    )
    result = pytester.runpytest("--llmeval-report=r.json")
    result.assert_outcomes(passed=2)
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["summary"]["checks"] == 1


def test_xdist_gives_the_same_leaderboard(pytester):
    pytest.importorskip("xdist")
    pytester.makepyfile(SUITE)
    single = pytester.runpytest("--llmeval-report=single.json")
    parallel = pytester.runpytest("-n", "2", "--llmeval-report=parallel.json")
    parallel.assert_outcomes(passed=3, failed=3)
    parallel.stdout.fnmatch_lines(
        ["*= llmeval summary =*", "7 checks on 2 models: 4 passed (57%)", "no clear best: big and small*"]
    )
    one = json.loads((pytester.path / "single.json").read_text())
    two = json.loads((pytester.path / "parallel.json").read_text())
    assert one["summary"] == two["summary"]

    def key(r: dict) -> tuple:
        return (r["nodeid"], r["evaluator"])

    assert sorted(one["results"], key=key) == sorted(two["results"], key=key)
    assert single.ret == parallel.ret == 1


def test_bad_inputs_never_crash_the_session(pytester):
    pytester.makepyfile(
        """
import pytest
from pytest_llmeval import (assert_matches, assert_json, assert_rouge, assert_no_pii, assert_not_looping,
                            ConditionSyntaxError, MissingInputError)

def test_none_answer():
    with pytest.raises(MissingInputError, match="text_matching requires 'actual'"):
        assert_matches(None, '"x"')

def test_non_string():
    with pytest.raises(TypeError, match="argument 'actual' must be a str or None, got int"):
        assert_no_pii(42)

def test_bad_regex():
    with pytest.raises(ConditionSyntaxError, match="invalid regular expression"):
        assert_matches("text", 'regexp("[unclosed")')

def test_bad_schema():
    with pytest.raises(ValueError, match="parameter 'schema' is not a valid JSON Schema"):
        assert_json("{}", {"type": "no-such-type"})

def test_empty_answer_is_a_score():
    r = assert_not_looping("")
    assert r.metrics["unique_sentences"] == 1.0

def test_uncaught_error_only_fails_this_test():
    assert_rouge(None, "x")

def test_big_answer():
    assert_no_pii("word " * 200_000)

def test_after():
    assert_matches("still running", '"running"')
"""
    )
    result = pytester.runpytest("--llmeval-report=r.json")
    result.assert_outcomes(passed=7, failed=1)
    result.stdout.fnmatch_lines(["*MissingInputError: rouge requires 'actual'*"])
    report = json.loads((pytester.path / "r.json").read_text())
    assert report["summary"]["checks"] == 3


def test_settings_come_from_the_environment_between_the_ini_file_and_the_command_line(pytester, monkeypatch):
    pytester.makeini(
        "[pytest]\nllmeval_thresholds =\n    edit_distance.similarity=0.99\nllmeval_report = from-ini.json\n"
    )
    pytester.makepyfile(
        "from pytest_llmeval import assert_edit_distance\n\n"
        "def test_x():\n    assert_edit_distance('colour', 'color')\n"
    )
    monkeypatch.setenv("LLMEVAL_REPORT", "from-env.json")
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=1)  # the ini's threshold (0.99) is in force
    assert (pytester.path / "from-env.json").exists() and not (pytester.path / "from-ini.json").exists()
    result = pytester.runpytest(
        "-p", "no:randomly", "--llmeval-report=from-cli.json", "--llmeval-threshold=edit_distance.similarity=0.5"
    )
    result.assert_outcomes(passed=1)  # the command line wins
    assert (pytester.path / "from-cli.json").exists()
    monkeypatch.setenv("LLMEVAL_JUDGE_BUDGET", "lots")
    bad = pytester.runpytest()
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*LLMEVAL_JUDGE_BUDGET in the environment: *'lots'*"])
    # a setting that is no CI override is a table key, not a variable: one line says which key to use
    monkeypatch.delenv("LLMEVAL_JUDGE_BUDGET")
    monkeypatch.setenv("LLMEVAL_JUDGE_TIMEOUT", "30")
    stray = pytester.runpytest()
    assert stray.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "llmeval: LLMEVAL_JUDGE_TIMEOUT is set in the environment, but only secrets' settings and CI overrides are "
        "read from it; set timeout under [tool.llmeval.judge] in pyproject.toml (or -o llmeval_judge_timeout=... for "
        "one run)"
    ) in stray.stderr.str()


def test_load_settings_reports_where_each_value_came_from(pytester, monkeypatch):
    from pytest_llmeval.harness.options import Settings

    pytester.makeini("[pytest]\nllmeval_device = cpu\n")
    monkeypatch.setenv("LLMEVAL_JUDGE_MODEL", "env-judge")
    config = pytester.parseconfigure("--llmeval-unverified=skip", "--override-ini=llmeval_flip_delta=0.2")
    from pytest_llmeval.harness.session import session_key

    settings: Settings = config.stash[session_key].settings
    assert (settings.device, settings.judge_model, settings.flip_delta, settings.precision) == (
        "cpu",
        "env-judge",
        0.2,
        "auto",
    )
    assert settings.sources["device"] == "config file" and settings.sources["judge_model"] == "environment"
    assert settings.sources["unverified"] == "command line" and settings.sources["precision"] == "default"
    assert settings.sources["flip_delta"] == "config file"  # -o overrides the ini file's key


def test_an_override_that_parses_to_none_still_wins(pytester):
    """-o llmeval_judge_seed=none and an empty -o llmeval_flip_delta= beat the ini file's values (they were ignored)."""
    from pytest_llmeval.harness.session import session_key

    pytester.makeini("[pytest]\nllmeval_judge_seed = 7\nllmeval_flip_delta = 0.2\n")
    config = pytester.parseconfigure("-o", "llmeval_judge_seed=none", "-o", "llmeval_flip_delta=")
    settings = config.stash[session_key].settings
    assert (settings.judge_seed, settings.flip_delta) == (None, None)
    assert pytester.parseconfigure().stash[session_key].settings.judge_seed == 7
