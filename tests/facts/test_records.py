"""Light records: one compact copy of each result on the controller, what repeats shared, nothing kept per test."""

from __future__ import annotations

import gc
import json
import math

import pytest

from pytest_llmeval.run.recording import RecordStore
from pytest_llmeval.core.result import RECORD_VERSION, Result, Signature, freeze
from pytest_llmeval.harness.session import session_key

SUITE = """
import gc
import weakref

import pytest
from pytest_llmeval import assert_exact_match, assert_matches

REFS = []

@pytest.mark.parametrize("i", range(6))
def test_check(i):
    REFS.append(weakref.ref(assert_exact_match(f"answer {i}", f"answer {i}")))
    REFS.append(weakref.ref(assert_matches(f"answer {i}", '"answer"')))

def test_z_results_are_gone(request):
    gc.collect()  # no Result outlives its test (under xdist, in this worker)
    assert all(ref() is None for ref in REFS)
    assert len(REFS) == 12 or hasattr(request.config, "workerinput")
"""


class Capture:
    """Keeps what the controller's session held at the end, and the report it wrote."""

    def __init__(self) -> None:
        self.records: list[dict] = []
        self.report: dict | None = None
        self.properties: list[list] = []

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session):
        self.records = list(session.config.stash[session_key].records)

    def pytest_llmeval_update_report(self, config, report):
        self.report = report

    def pytest_runtest_logreport(self, report):
        # what travels from a worker: pytest's report with its user_properties, as JSON
        if report.when == "teardown":
            self.properties.append(json.loads(json.dumps(report.user_properties)))


def run(pytester, *args):
    pytester.makepyfile(SUITE)
    capture = Capture()
    result = pytester.inline_run(
        "-p", "no:randomly", "-p", "no:cacheprovider", "--llmeval-report=r.json", *args, plugins=[capture]
    )
    result.assertoutcome(passed=7)
    assert gc.isenabled()  # paused from the end of the run to pytest_unconfigure only
    return capture


def check_shared(records):
    assert len(records) == 12
    by_check = {}
    for record in records:
        by_check.setdefault(record["evaluator"], []).append(record)
    for group in by_check.values():
        first = group[0]
        for record in group[1:]:  # one object per distinct signature (and thresholds, directions), held once
            assert record["signature"] is first["signature"]
            assert (
                record["thresholds"] is first["thresholds"] and record["higher_is_better"] is first["higher_is_better"]
            )
            assert record["metrics"] is first["metrics"]  # all passed: the same metrics
    assert by_check["exact_match"][0]["signature"] is not by_check["text_matching"][0]["signature"]


def test_one_shared_copy_per_record_and_no_result_kept(pytester):
    capture = run(pytester)
    check_shared(capture.records)
    # the report's results are the session's records themselves (with each test's outcome), not copies
    assert capture.report is not None
    assert all(any(r is s for s in capture.records) for r in capture.report["results"])
    written = json.loads((pytester.path / "r.json").read_text())["results"]
    assert [r["outcome"] for r in written] == ["passed"] * 12
    assert list(written[0]) == [*sorted(set(written[0]) - {"nodeid", "outcome"}), "nodeid", "outcome"]


def test_records_travel_as_json_under_xdist_and_are_shared_on_the_controller(pytester):
    pytest.importorskip("xdist")
    serial = run(pytester)
    written = (pytester.path / "r.json").read_text()
    parallel = run(pytester, "-n", "2")
    check_shared(parallel.records)
    records = [json.loads(v) for props in parallel.properties for k, v in props if k == "llmeval"]
    assert len(records) == 12 and all(r["record"] == RECORD_VERSION for r in records)
    # the same records and aggregates as one process (only the run's own facts differ)
    one, two = json.loads(written), json.loads((pytester.path / "r.json").read_text())
    assert one["results"] == two["results"] and one["summary"] == two["summary"]
    assert len(serial.properties) == len(parallel.properties)


def test_the_store_shares_equal_values_and_changes_none():
    store = RecordStore()
    sig = {"evaluator": "e", "version": "1", "params": {"x": [1, 2]}, "thresholds": {"m": 0.5}}
    texts = [
        json.dumps(
            {
                "evaluator": "e",
                "primary": "m",
                "metrics": {"m": v},
                "signature": sig,
                "details": {},
                "reason": "r",
                "case_id": f"t::{i}",
            }
        )
        for i, v in enumerate([1.0, 1.0, 1, True, -0.0, 0.0])
    ]
    records = [store.add(json.loads(text), nodeid=f"t::{i}") for i, text in enumerate(texts)]
    for text, record in zip(texts, records):  # the same JSON, field for field, with the nodeid last
        assert json.dumps({**json.loads(text), "nodeid": record["nodeid"]}) == json.dumps(record)
        assert record["case_id"] is record["nodeid"]
    assert all(r["signature"] is records[0]["signature"] and r["details"] is records[0]["details"] for r in records)
    assert records[1]["metrics"] is records[0]["metrics"]
    # 1, true and -0.0 are other values than 1.0 and 0.0: never merged
    assert len({id(r["metrics"]) for r in records}) == 5
    assert json.dumps(records[4]["metrics"]) == '{"m": -0.0}'


def test_the_store_stays_bounded():
    store = RecordStore()
    store.MAX_VALUES = 3
    records = [store.add({"evaluator": "e", "metrics": {"m": i / 7}}) for i in range(10)]
    assert len(store._values["metrics"]) == 3  # the rest kept as they are
    assert [r["metrics"]["m"] for r in records] == [i / 7 for i in range(10)]
    long = {"evaluator": "e", "metrics": {}, "details": {"text": "x" * 1000}}
    assert store.add(long)["details"] is long["details"] and not store._values["details"]
    odd = {"evaluator": "e", "metrics": {}, "tags": {"when": object()}}  # not JSON: kept, never shared
    assert store.add(odd)["tags"] is odd["tags"]


def test_results_share_thresholds_and_directions_and_stay_immutable():
    sig = Signature("e", "1", params={"b": [1, 2], "a": {"x": 1}}, thresholds={"m": 0.5})
    assert list(sig.params) == ["a", "b"] and sig.params["b"] == (1, 2)

    def result(value: float, **extra: object) -> Result:
        return Result(
            "e",
            {"m": value, "n": float("nan")},
            primary="m",
            passed=True,
            thresholds={"m": 0.5},
            higher_is_better={"m": True, "n": False},
            signature=sig,
            **extra,
        )  # type: ignore[arg-type]

    one, two = result(1.0), result(0.25, details={"k": [1, {"z": 2}]})
    assert one.thresholds is sig.thresholds and two.thresholds is sig.thresholds
    assert one.higher_is_better is two.higher_is_better and dict(one.higher_is_better) == {"m": True, "n": False}
    assert one.metrics["n"] is None and two.details["k"][1]["z"] == 2
    other = Result(
        "e", {"m": 1.0}, primary="m", passed=True, thresholds={"m": 0.75}, higher_is_better={"m": 1}, signature=sig
    )
    assert (
        other.thresholds == {"m": 0.75}
        and other.thresholds is not sig.thresholds
        and other.higher_is_better == {"m": True}
    )
    for frozen in (one.metrics, one.thresholds, one.higher_is_better, one.details, two.details, two.details["k"][1]):
        with pytest.raises(TypeError):
            frozen["m"] = 2.0  # type: ignore[index]
    assert Result.from_dict(json.loads(json.dumps(two.to_dict()))) == two
    assert Result.from_dict(one.to_dict()).higher_is_better == one.higher_is_better


def test_freeze_keeps_what_is_immutable():
    atoms = ("a", 1, 2.5, None, True)
    assert freeze(atoms) is atoms
    assert freeze([1, [2]]) == (1, (2,)) and freeze({"x": (1, [2])})["x"] == (1, (2,))
    assert math.isnan(freeze(float("nan")))


def test_properties_that_are_not_records_are_counted_and_the_rest_read(pytester):
    pytester.makepyfile("""
from pytest_llmeval import assert_exact_match

def test_odd(record_property):
    record_property("llmeval", "not json")
    record_property("llmeval", '{"evaluator": 1}')
    record_property("llmeval", "[" * 100_000)
    assert_exact_match("a", "a")
""")
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=r.json")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*3 llmeval record(s) in user_properties could not be read*"])
    assert [r["evaluator"] for r in json.loads((pytester.path / "r.json").read_text())["results"]] == ["exact_match"]


def _json_values():
    from hypothesis import strategies as st

    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=8,
    )


def test_the_json_report_is_written_as_json_dumps_writes_it():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from pytest_llmeval.report.jsonfile import OPTIONS, dumps
    from pytest_llmeval.text.basics import escape_surrogates

    shared = {"evaluator": "e", "params": {"x": [1, {"y": None}]}, "thresholds": {}}

    @settings(max_examples=200, deadline=None)
    @given(
        st.lists(st.dictionaries(st.text(max_size=8), _json_values(), max_size=6) | _json_values(), max_size=6),
        st.dictionaries(st.sampled_from(["run", "tests", "zz"]), _json_values(), max_size=3),
    )
    def check(results, extra):
        records = [r if not isinstance(r, dict) else {**r, "signature": shared, "tags": {}} for r in results]
        report = {"format": "f", "summary": {"checks": len(records)}, "results": records, **extra}
        assert dumps(report) == escape_surrogates(json.dumps(report, **OPTIONS)) + "\n"

    check()
    odd = {
        "results": [
            {1: "int key"},
            {"t": (1, 2), "b": True, "n": 10**30, "s": "\ud800\n\u2028", "o": object},
            {},
            [],
            "x",
        ]
    }
    assert dumps(odd) == escape_surrogates(json.dumps(odd, **OPTIONS)) + "\n"
    with pytest.raises(ValueError, match="Out of range float"):
        dumps({"results": [{"m": float("inf")}]})


def test_each_result_is_built_once(monkeypatch):
    from pytest_llmeval import Case
    from pytest_llmeval.checks.lexical.exact_match import ExactMatch
    from pytest_llmeval.core.result import Result

    built = []
    original = Result.__post_init__
    monkeypatch.setattr(Result, "__post_init__", lambda self: (built.append(1), original(self))[1])
    results = ExactMatch().evaluate([Case(actual="a", expected="a"), Case(actual="a", expected="b")])
    assert [r.passed for r in results] == [True, False] and len(built) == 2
