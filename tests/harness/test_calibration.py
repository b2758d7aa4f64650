"""Calibration: a check's verdicts against a team's own labels (--llmeval-calibrate), the record it writes, and
calibration.required = true keeping an unmeasured check from gating. The judge is a real OpenAI-protocol server
(tests/judge_server.py) scripted to agree with the labels on a known share of rows."""

from __future__ import annotations

import json
import random
import re

import pytest
from hypothesis import given, settings, strategies as st

from pytest_llmeval.report.calibration import Floors, calibrate, status
from pytest_llmeval.stats.agreement import agreement, brute_force_threshold, suggest_threshold

CONTEXT = "The Harbour Museum opens at 9 a.m. and closes at 5 p.m. Entry is free for children under 12."


def kappa_of(table):
    """Cohen's kappa from a 2x2 table {(label, verdict): count}, written out independently of the package."""
    n = sum(table.values())
    p_o = (table[("good", "pass")] + table[("bad", "fail")]) / n
    bad = (table[("bad", "pass")] + table[("bad", "fail")]) / n
    fail = (table[("good", "fail")] + table[("bad", "fail")]) / n
    p_e = bad * fail + (1 - bad) * (1 - fail)
    return (p_o - p_e) / (1 - p_e)


def write_labels(path, rows, check=None):
    lines = []
    for i, (label, flipped) in enumerate(rows):
        row = {
            "id": f"r{i}",
            "actual_output": f"Row {i}: the museum answer {'(flip)' if flipped else ''}".strip(),
            "retrieved_context": [CONTEXT],
            "label": label,
        }
        if check:
            row["check"] = check
        lines.append(json.dumps(row))
    path.write_text("\n".join(lines) + "\n")


def scripted(rows):
    """A judge that says 'contradicts' (the check fails) for bad rows and not for good ones, except flipped rows."""

    def reply(body):
        text = body["messages"][-1]["content"]
        index = int(re.search(r"Row (\d+):", text).group(1))
        label, flipped = rows[index]
        contradicts = (label == "bad") != flipped
        return {"text": json.dumps({"verdict": "yes" if contradicts else "no", "reason": "scripted"})}

    return reply


def judge_ini(pytester, server):
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_api_key_env = JUDGE_KEY\nllmeval_judge_cache = off\n"
    )


# -- the statistics --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "table",
    [
        {("good", "pass"): 20, ("good", "fail"): 4, ("bad", "pass"): 4, ("bad", "fail"): 12},
        {("good", "pass"): 10, ("good", "fail"): 10, ("bad", "pass"): 10, ("bad", "fail"): 10},
        {("good", "pass"): 3, ("good", "fail"): 9, ("bad", "pass"): 8, ("bad", "fail"): 1},
    ],
)
def test_kappa_matches_the_formula_and_unverified_rows_stay_out_of_it(table):
    pairs = [key for key, count in table.items() for _ in range(count)] + [("good", "unverified")] * 5
    found = agreement(pairs)
    assert found.kappa == pytest.approx(kappa_of(table))
    assert found.kappa_low <= found.kappa <= found.kappa_high
    assert (found.rows, found.unverified, found.decided) == (sum(table.values()) + 5, 5, sum(table.values()))
    assert found.precision == pytest.approx(table[("bad", "fail")] / (table[("bad", "fail")] + table[("good", "fail")]))


def test_bad_labels_and_verdicts_are_named():
    with pytest.raises(ValueError, match="a label must be one of good, bad; got 'ok'"):
        agreement([("ok", "pass")])
    with pytest.raises(ValueError, match="a verdict must be pass, fail or unverified"):
        agreement([("good", "maybe")])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 1.0]) | st.floats(0, 1), st.booleans()), max_size=40
    ),
    st.booleans(),
    st.sampled_from([0.5, 0.75, 0.9, 1.0]),
)
def test_threshold_suggestion_matches_a_brute_force_search(scored, higher_is_better, target):
    found = suggest_threshold(scored, metric="m", higher_is_better=higher_is_better, target=target, resamples=0)
    expected = brute_force_threshold(scored, higher_is_better, target)
    assert (None if found.threshold is None else (found.threshold, found.bad_caught, found.good_failed)) == expected
    if found.threshold is not None:  # the threshold applied by the checks' rule fails exactly what it says
        failing = [
            bad
            for value, bad in scored
            if not (value >= found.threshold if higher_is_better else value <= found.threshold)
        ]
        assert (sum(failing), len(failing) - sum(failing)) == (found.bad_caught, found.good_failed)
        assert found.precision >= target


def test_threshold_suggestion_has_a_bootstrap_interval_and_says_it_is_not_applied():
    rng = random.Random(3)
    scored = [(rng.betavariate(2, 5), True) for _ in range(40)] + [(rng.betavariate(5, 2), False) for _ in range(60)]
    found = suggest_threshold(scored, metric="faithfulness", target=0.9)
    assert found.low is not None and found.low <= found.threshold <= found.high
    assert "not applied" in found.describe() and "faithfulness threshold" in found.describe()
    none = suggest_threshold([(0.5, True), (0.5, False)], metric="m", target=0.9)
    assert none.threshold is None and "no threshold reaches failure precision 0.90" in none.describe()


def test_status_names_the_floor_that_was_missed():
    entry = {"kappa": 0.42, "rows": 80, "precision": 0.7}
    assert status(entry, Floors()) == (False, "not calibrated: kappa 0.42 on 80 rows, needs 0.6")
    assert (
        status({**entry, "rows": 10}, Floors(min_kappa=0.1))[1]
        == "not calibrated: kappa 0.42 on 10 rows, needs 50 rows"
    )
    assert (
        status(entry, Floors(min_kappa=0.4, min_precision=0.8))[1]
        == "not calibrated: failure precision 0.70 on 80 rows, needs 0.8"
    )
    assert status(entry, Floors(min_kappa=0.4)) == (True, "calibrated: kappa 0.42 on 80 rows")
    assert "another signature" in status(None, Floors(), other=["x"])[1]
    assert (
        status({**entry, "decided": 30}, Floors(min_kappa=0.4))[1]
        == "not calibrated: kappa 0.42 on 30 decided of 80 rows, needs 50 rows"
    )
    from pytest_llmeval.harness.options import describe

    parse = describe()["calibration_floors"].parse
    assert parse("min_rows=80, min_precision=0.9") == (("min_rows", 80.0), ("min_precision", 0.9))
    with pytest.raises(ValueError, match="min_rows must be an integer; got 'many'"):
        parse("min_rows=many")
    with pytest.raises(ValueError, match="expected NAME=VALUE"):
        parse("kappa=0.5")


def test_calibrate_groups_by_signature_and_by_tier():
    def rec(label, verdict, by, threshold):
        return {
            "evaluator": "g",
            "primary": "m",
            "metrics": {"m": 0.0},
            "passed": verdict != "fail",
            "verdict": verdict,
            "decided_by": by,
            "signature": {"evaluator": "g", "version": "1", "thresholds": {"m": threshold}},
            "tags": {"label": label},
        }

    records = [
        rec("good", "pass", "rules", 0.5),
        rec("bad", "fail", "judge", 0.5),
        rec("bad", "unverified", "rules", 0.5),
        rec("good", "pass", "rules", 0.7),
    ]
    entries = calibrate(records)
    assert len(entries) == 2  # another threshold is another signature
    [first] = [e for e in entries.values() if e["rows"] == 3]
    assert set(first["tiers"]) == {"rules", "judge"} and first["tiers"]["judge"]["bad_caught"] == 1
    assert first["unverified"] == 1
    broken = {
        **rec("bad", "fail", "judge", 0.5),
        "metrics": {"m": None, "parse_failure": 1.0},
    }  # the judge's reply was unusable
    [entry] = calibrate([rec("good", "pass", "judge", 0.5), rec("bad", "fail", "judge", 0.5), broken]).values()
    # no call on the answer, not a catch
    assert (entry["errors"], entry["unverified"], entry["bad_caught"]) == (1, 1, 1)


# -- through pytest ----------------------------------------------------------------------------------------------------


def test_calibration_run_reports_the_scripted_agreement_and_writes_the_record(pytester, server):
    rows = [("good", i < 4) for i in range(20)] + [("bad", i < 4) for i in range(20)]  # 8 of 40 flipped
    server.responder = scripted(rows)
    judge_ini(pytester, server)
    write_labels(pytester.path / "labels.jsonl", rows)
    pytester.makepyfile(
        test_app="def test_not_run():\n    raise AssertionError('a calibration run runs the labeled rows')\n"
    )
    result = pytester.runpytest(
        "-p",
        "no:randomly",
        "--llmeval-calibrate=labels.jsonl",
        "--override-ini=llmeval_calibrate_check=hallucination_judge",
        "--llmeval-report=out.json",
    )
    result.assert_outcomes(passed=40, deselected=1)
    expected = kappa_of({("good", "pass"): 16, ("good", "fail"): 4, ("bad", "pass"): 4, ("bad", "fail"): 16})
    result.stdout.fnmatch_lines(
        [
            f"llmeval calibration: hallucination_judge (*): 40 rows; over the decided rows kappa {expected:.2f} "
            "*agreement 0.80; good failed 4/20, bad caught 16/20, failure precision 0.80*judge calls 40*",
            "  decided by judge: 40 rows*",
            "llmeval calibration record: *llmeval-calibration.json",
        ]
    )
    record = json.loads((pytester.path / "llmeval-calibration.json").read_text())
    [entry] = record["checks"].values()
    assert entry["kappa"] == pytest.approx(expected) and entry["agreement"] == pytest.approx(0.8)
    assert entry["labels"]["rows"] == 40 and len(entry["labels"]["sha256"]) == 64
    assert entry["signature"]["model"] and entry["cost"]["judge_calls"] == 40
    report = json.loads((pytester.path / "out.json").read_text())
    assert report["calibration"]["entries"] and report["calibration"]["lines"][0].startswith("hallucination_judge")
    [written] = report["calibration"][
        "entries"
    ].values()  # 40 decided rows: under the 50 needed, and how many more it says
    assert written["may_gate"] is False and written["more_rows"] >= 10
    assert f"about {written['more_rows']} more labeled rows would decide it" in report["calibration"]["lines"][-1]


def test_a_judge_at_random_has_kappa_near_zero_and_cannot_fail_tests_when_calibration_is_required(
    pytester, server, junit_properties
):
    def coin(body):  # a fair coin per answer (its text seeds it), whatever order the requests come in
        verdict = random.Random(body["messages"][-1]["content"]).choice(["yes", "no"])
        return {"text": json.dumps({"verdict": verdict, "reason": "coin"})}

    server.responder = coin
    judge_ini(pytester, server)
    rows = [("good", False)] * 100 + [("bad", False)] * 100
    write_labels(pytester.path / "labels.jsonl", rows, check="hallucination_judge")
    pytester.runpytest("-p", "no:randomly", "-n", "2", "--llmeval-calibrate=labels.jsonl").assert_outcomes(passed=200)
    [entry] = json.loads((pytester.path / "llmeval-calibration.json").read_text())["checks"].values()
    assert abs(entry["kappa"]) < 0.15 and entry["kappa_low"] < 0 < entry["kappa_high"]
    server.responder = lambda body: {"text": json.dumps({"verdict": "yes", "reason": "it contradicts"})}
    pytester.makepyfile(
        test_app=f"from pytest_llmeval import assert_no_hallucination_judged\n\n"
        f"def test_answer():\n    assert_no_hallucination_judged('Adults pay nothing.', [{CONTEXT!r}])\n"
    )
    result = pytester.runpytest(
        "-p",
        "no:randomly",
        "--override-ini=llmeval_require_calibration=true",
        "--llmeval-report=out.json",
        "--llmeval-report=out.md",
        "--junitxml=junit.xml",
    )
    result.assert_outcomes(passed=1)
    # on 200 rows
    result.stdout.fnmatch_lines(
        [
            "llmeval calibration: hallucination_judge (*): diagnostic, not calibrated: kappa * on 200 rows, "
            "needs 0.6 (0 pass, 1 fail, 0 unverified)"
        ]
    )
    report = json.loads((pytester.path / "out.json").read_text())
    [record] = report["results"]
    assert (
        record["verdict"] == "fail"
        and record["passed"] is True
        and record["details"]["calibration"]["status"] == "diagnostic"
    )
    assert report["summary"]["leaderboard"] == [] and report["calibration"]["checks"][0]["fail"] == 1
    assert "diagnostic, not calibrated" in (pytester.path / "out.md").read_text()
    cases, _ = junit_properties(pytester.path / "junit.xml")
    assert ("llmeval.hallucination_judge.calibration", "diagnostic") in cases["test_answer"]
    # Without the requirement the same judge fails the test.
    pytester.runpytest("-p", "no:randomly").assert_outcomes(failed=1)


def test_a_calibrated_check_gates_and_another_signature_does_not(pytester):
    rows = [
        {
            "id": f"q{i}",
            "actual_output": "Paris" if i % 2 else "Lyon",
            "expected_output": "Paris",
            "label": "good" if i % 2 else "bad",
        }
        for i in range(60)
    ]
    (pytester.path / "labels.jsonl").write_text("\n".join(map(json.dumps, rows)) + "\n")
    pytester.makepyfile(
        test_app="from pytest_llmeval import assert_exact_match\n\n"
        "def test_wrong():\n    assert_exact_match('Lyon', 'Paris')\n"
    )
    done = pytester.runpytest(
        "-p",
        "no:randomly",
        "-n",
        "2",
        "--llmeval-calibrate=labels.jsonl",
        "--override-ini=llmeval_calibrate_check=exact_match",
        "--override-ini=llmeval_calibration_file=cal.json",
    )
    done.assert_outcomes(passed=60)
    done.stdout.fnmatch_lines(["llmeval calibration: exact_match (*): 60 rows; over the decided rows kappa 1.00 *"])
    result = pytester.runpytest(
        "-p",
        "no:randomly",
        "--override-ini=llmeval_require_calibration=true",
        "--override-ini=llmeval_calibration_file=cal.json",
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["llmeval calibration: exact_match (*): calibrated: kappa 1.00 on 60 rows*"])
    other = pytester.runpytest(
        "-p",
        "no:randomly",
        "--override-ini=llmeval_require_calibration=true",
        "--override-ini=llmeval_calibration_file=cal.json",
        "--llmeval-threshold=exact_match.exact_match=0.9",
    )
    other.assert_outcomes(passed=1)
    other.stdout.fnmatch_lines(
        ["*diagnostic, not calibrated: the calibration record has 1 entry(ies) for this check under another signature*"]
    )


def test_calibration_from_the_ini_file_and_the_python_api(pytester):
    from pytest_llmeval import calibrate as calibrate_rows

    rows = [
        {"id": "a", "actual_output": "Paris", "expected_output": "Paris", "label": "good", "check": "exact_match"},
        {"id": "b", "actual_output": "Lyon", "expected_output": "Paris", "label": "bad", "check": "exact_match"},
    ]
    (pytester.path / "labels.jsonl").write_text("\n".join(map(json.dumps, rows)) + "\n")
    pytester.makeini("[pytest]\nllmeval_calibrate = labels.jsonl\nllmeval_calibration_file = out/cal.json\n")
    (pytester.path / "out").mkdir()
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=2)
    [entry] = json.loads((pytester.path / "out" / "cal.json").read_text())["checks"].values()
    [same] = calibrate_rows(pytester.path / "labels.jsonl").values()
    assert (
        (entry["rows"], entry["kappa"], entry["bad_caught"])
        == (same["rows"], same["kappa"], same["bad_caught"])
        == (2, 1.0, 1)
    )


@pytest.mark.parametrize(
    "row, message",
    [
        (
            {"id": "a", "actual_output": "x", "label": "fine"},
            "*labels.jsonl:1: 'label' must be good or bad; got 'fine'*",
        ),
        (
            {"id": "a", "actual_output": "x", "label": "good"},
            "*labels.jsonl:1: no check to calibrate: give the row a 'check'*",
        ),
        (
            {"id": "a", "respuesta": "x", "label": "good", "check": "exact_match"},
            "*labels.jsonl:1: not a valid case: unknown key 'respuesta'*",
        ),
    ],
)
def test_a_bad_label_file_is_a_usage_error_naming_the_row(pytester, row, message):
    (pytester.path / "labels.jsonl").write_text(json.dumps(row) + "\n")
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-calibrate=labels.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--llmeval-calibrate: {message}"])


def test_a_missing_label_file_and_a_bad_floor_are_named(pytester):
    result = pytester.runpytest("--llmeval-calibrate=nope.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--llmeval-calibrate: no such file: *nope.jsonl"])
    result = pytester.runpytest(
        "--override-ini=llmeval_require_calibration=true", "--override-ini=llmeval_calibration_floors=min_kappa=2"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*min_kappa out of range: '2'*"])


def test_a_judge_asked_three_times_that_splits_leaves_the_answer_unverified_and_calibration_says_so(pytester, server):
    calls = {}

    def flicker(body):  # yes, no, yes for each answer: two of three repeats agree
        text = body["messages"][-1]["content"]
        calls[text] = calls.get(text, 0) + 1
        return {"text": json.dumps({"verdict": "yes" if calls[text] % 2 else "no", "reason": "flicker"})}

    server.responder = flicker
    judge_ini(pytester, server)
    write_labels(pytester.path / "labels.jsonl", [("good", False), ("bad", False)], check="hallucination_judge")
    result = pytester.runpytest(
        "-p",
        "no:randomly",
        "--llmeval-calibrate=labels.jsonl",
        "--override-ini=llmeval_judge_repeats=3",
        "--override-ini=llmeval_judge_temperature=0.7",
        "--llmeval-report=out.json",
    )
    result.assert_outcomes()
    assert result.parseoutcomes()["unverified"] == 2  # passed, with a status of their own
    result.stdout.fnmatch_lines(
        ["  judge asked repeatedly: agrees with itself 0.67 over 2 rows, split (left unverified) on 2"]
    )
    report = json.loads((pytester.path / "out.json").read_text())
    for record in report["results"]:
        assert record["verdict"] == "unverified" and record["reason"].startswith(
            "the judge split: its 3 repeats (1, 0, 1)"
        )
        assert record["details"]["repeats"]["agreement"] == pytest.approx(2 / 3)
        assert record["details"]["split"].startswith("the judge split")  # the split is data, not only words
    assert len(server.requests) == 6


def test_calibration_replays_recorded_judge_verdicts(pytester, server):
    rows = [("good", False), ("bad", False), ("good", True), ("bad", False)]
    server.responder = scripted(rows)
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_api_key_env = JUDGE_KEY\n"
    )
    write_labels(pytester.path / "labels.jsonl", rows, check="hallucination_judge")
    pytester.runpytest("-p", "no:randomly", "--llmeval-calibrate=labels.jsonl").assert_outcomes(passed=4)
    first = json.loads((pytester.path / "llmeval-calibration.json").read_text())
    calls = len(server.requests)
    pytester.runpytest(
        "-p", "no:randomly", "--llmeval-calibrate=labels.jsonl", "--override-ini=llmeval_judge_cache=replay"
    ).assert_outcomes(passed=4)
    again = json.loads((pytester.path / "llmeval-calibration.json").read_text())
    assert len(server.requests) == calls  # every verdict replayed
    [before], [after] = first["checks"].values(), again["checks"].values()
    assert (before["kappa"], before["bad_caught"], before["good_failed"]) == (
        after["kappa"],
        after["bad_caught"],
        after["good_failed"],
    )
    assert after["cost"]["judge_calls"] == 0


def test_the_calibration_line_says_what_each_figure_is_over_and_how_many_labels_would_decide_it():
    """1 of 10 bad answers caught, 1 of the 3 it decided; kappa rests on 10 decided rows of 20, under the 50 a check
    needs
    to gate, and the line says about how many more labeled rows would let it (the JSON entry says the same)."""
    from pytest_llmeval.report.calibration import Floors, calibration_lines, more_rows
    from pytest_llmeval.stats.agreement import agreement

    pairs = (
        [("good", "pass")] * 6
        + [("good", "fail")]
        + [("good", "unverified")] * 3
        + [("bad", "fail")]
        + [("bad", "pass")] * 2
        + [("bad", "unverified")] * 7
    )
    found = agreement(pairs).to_dict()
    entry = {"check": "groundedness", "signature": {"evaluator": "groundedness", "version": "5"}, **found, "cost": {}}
    lines = calibration_lines({"groundedness|v5|x": entry}, Floors(min_kappa=0.1, min_rows=50))
    assert lines[0].startswith("groundedness (v5, ") and "20 rows, 10 decided; over the decided rows kappa " in lines[0]
    assert "good failed 1/10 (1/7 decided), bad caught 1/10 (1/3 decided)" in lines[0]
    assert (found["bad_caught"], found["bad"], found["bad_caught_share"]) == (1, 10, pytest.approx(1 / 3))
    more = more_rows(entry, Floors(min_kappa=0.1, min_rows=50))
    assert more is not None and more >= 80  # 50 decided rows at half the rows decided: at least 100 labeled, 80 more
    assert lines[-1] == (
        f"  may not gate yet (kappa {found['kappa']:.2f} on 10 decided of 20 rows, needs 50 rows): about {more} "
        "more labeled rows would decide it at this agreement"
    )
    # the kappa itself is below: labels will not help
    assert more_rows(entry, Floors(min_kappa=0.9, min_rows=50)) is None
    # no floors, no verdict on them
    assert calibration_lines({"groundedness|v5|x": entry})[-1].startswith("groundedness")
