"""Reproductions of defects found under bad input, faults and attack (issue 11), one test each."""

from __future__ import annotations

import pytest

from pytest_llmeval import Case, Registry
from pytest_llmeval.text.patterns import PII_DETECTORS, SECRET_DETECTORS

REGISTRY = Registry(entry_points=False)

# Fragments that make backtracking patterns explode when repeated: hex-and-colon runs, digit groups,
# separators, key-like runs, e-mail parts, dots, PEM dashes.
FRAGMENTS = [
    "1:",
    "a:",
    "ab:cd:",
    "1 ",
    "1-",
    "1.",
    "A1",
    "a",
    "x@",
    "a.",
    "-",
    "sk-a",
    "eyJ",
    "=",
    "AccountKey=",
    "+1 ",
]


@pytest.mark.parametrize(
    "detector", [*PII_DETECTORS, *SECRET_DETECTORS], ids=lambda d: f"{d.kind}-{d.description[:20]}"
)
def test_every_builtin_pattern_finishes_on_adversarial_input(detector):
    """Every pattern scans 16,000-character runs of backtracking bait to the end (an exponential one never
    returns); how the scan time grows with the input is measured by ``benchmarks/bench_core.py``."""
    for fragment in FRAGMENTS:
        for tail in ("g", "_final", "", "!"):
            large = fragment * 4000 + tail
            spans = [m.span() for m in detector.pattern.finditer(large)]
            assert all(0 <= start <= end <= len(large) for start, end in spans), (fragment, tail)


def test_the_ipv6_answer_that_hung_returns_at_once():
    answer = "Build ab:cd:3c7d5f8a9b1e2d4c6a8f0e1d3b5c7a9e2f4d6b8a_final"
    [result] = REGISTRY.create("pii_leakage").evaluate([Case(actual=answer)])
    assert result.passed
    for k in (24, 28, 5000):  # 28 took the old pattern about 10 s, 35 took 31 s: 5000 would never return
        [bait] = REGISTRY.create("pii_leakage").evaluate([Case(actual="1:1:" + "a" * k + "g")])
        assert bait.passed
    [leak] = REGISTRY.create("pii_leakage").evaluate(
        [Case(actual="The server is at 2001:db8:85a3::8a2e:370:7334 today.")]
    )
    assert not leak.passed


def test_a_catastrophic_user_regexp_stops_with_a_clear_error(monkeypatch):
    from pytest_llmeval.text import conditions

    monkeypatch.setattr(conditions, "REGEX_TIMEOUT", 0.2)
    matching = REGISTRY.create("text_matching")
    with pytest.raises(
        conditions.RegexTimeoutError,
        match=r"regexp\(\"\(x\+x\+\)\+y\"\) ran longer than 0.2 s on a text of 5,000 characters",
    ):
        matching.evaluate([Case(actual="x" * 5000, conditions='regexp("(x+x+)+y")')])
    # an ordinary pattern behaves as re.search
    [ok] = matching.evaluate([Case(actual="Revenue was 15,969 million", conditions='regexp("15,?969 [Mm]il")')])
    assert ok.passed


def test_a_catastrophic_schema_pattern_stops_with_a_clear_error(monkeypatch):
    from pytest_llmeval.text import conditions

    monkeypatch.setattr(conditions, "REGEX_TIMEOUT", 0.2)
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(x+x+)+y$"}}}
    evaluator = REGISTRY.create("json_schema", schema=schema)
    with pytest.raises(
        conditions.RegexTimeoutError, match="the schema pattern '\\^\\(x\\+x\\+\\)\\+y\\$' ran longer than 0.2 s"
    ):
        evaluator.evaluate([Case(actual='{"code": "' + "x" * 5000 + '"}')])
    [bad] = REGISTRY.create(
        "json_schema", schema={"properties": {"c": {"type": "string", "pattern": "^[A-Z]{3}$"}}}
    ).evaluate([Case(actual='{"c": "eur"}')])
    assert not bad.passed and "'eur' does not match '^[A-Z]{3}$'" in bad.reason


SURROGATE_SUITE = """
import pytest
from pytest_llmeval import assert_matches, assert_no_pii, assert_rouge, assert_json

@pytest.mark.llmeval(model="m\\ud800", case="c\\udfff")
def test_surrogates():
    assert_matches("answer \\ud800 here \\x00", '"answer"')
    assert_no_pii("call me \\udc80")
    assert_rouge("a \\ud800 b", "a b", threshold=0.1)

def test_bad_json():
    assert_json("{\\ud800")
"""


def test_lone_surrogates_reach_every_report_intact(pytester):
    import json

    pytester.makepyfile(SURROGATE_SUITE)
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=out", "--junitxml=junit.xml")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == 1  # the failed test, not a lost report
    report = json.loads((pytester.path / "out" / "report.json").read_text(encoding="utf-8"))
    excerpts = {r["excerpt"] for r in report["results"]}
    assert "answer \ud800 here \x00" in excerpts and "call me \udc80" in excerpts
    assert {r["model"] for r in report["results"] if r["model"]} == {"m\ud800"}
    for name in ("report.md", "report.html"):
        (pytester.path / "out" / name).read_text(encoding="utf-8")  # valid UTF-8
    assert "llmeval" in (pytester.path / "junit.xml").read_text(encoding="utf-8")


def test_a_report_that_cannot_be_written_fails_the_run_and_the_others_are_written(pytester):
    pytester.makepyfile("from pytest_llmeval import assert_matches\ndef test_ok():\n    assert_matches('a', '\"a\"')\n")
    (pytester.path / "blocked").write_text("a file, not a folder")
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=blocked/r.json", "--llmeval-report=good.json")
    result.assert_outcomes(passed=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*llmeval report: FAILED blocked/r.json*", "*llmeval report: good.json*"])
    assert (pytester.path / "good.json").exists()


def test_verdict_cache_takes_any_str(tmp_path):
    from pytest_llmeval.judges.cache import VerdictCache

    cache = VerdictCache(str(tmp_path), "record")
    request = {"messages": [{"role": "user", "content": "is \ud800 ok?"}]}
    cache.put(request, {"text": "yes \udfff"})
    assert cache.get(request, what="test") == {"text": "yes \udfff"}
    other = {"messages": [{"role": "user", "content": "is \ud801 ok?"}]}
    assert cache.get(other, what="test") is None


def test_what_we_write_fits_the_shipped_report_schema(pytester):
    import json

    from pytest_llmeval.report.jsonfile import validate

    pytester.makepyfile(SURROGATE_SUITE)
    pytester.runpytest("-p", "no:randomly", "--llmeval-report=r.json")
    report = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))
    assert validate(report) is None
    assert len(report["results"]) == 4


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        (lambda r: r["results"][0].pop("primary"), "results[0]: 'primary' is a required property"),
        (lambda r: r["results"][1].__setitem__("metrics", None), "results[1].metrics: None is not of type 'object'"),
        (lambda r: r["results"][0].__setitem__("signature", "x"), "results[0].signature: 'x' is not of type 'object'"),
        (lambda r: r.__setitem__("results", None), "results: None is not of type 'array'"),
        (
            lambda r: r["results"][0].__setitem__("primary", "nope"),
            "results[0]: primary metric 'nope' is not among its metrics",
        ),
    ],
)
def test_a_malformed_baseline_stops_the_run_at_start_naming_the_record(pytester, damage, named):
    import json

    pytester.makepyfile(
        "from pytest_llmeval import assert_matches\ndef test_ok():\n    assert_matches('a', '\"a\"')\n\n"
        "def test_two():\n    assert_matches('b', '\"b\"')\n"
    )
    pytester.runpytest("-p", "no:randomly", "--llmeval-report=base.json")
    report = json.loads((pytester.path / "base.json").read_text())
    damage(report)
    (pytester.path / "base.json").write_text(json.dumps(report))
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-baseline=base.json", "--junitxml=j.xml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    error = result.stderr.str()
    assert (
        "--llmeval-baseline / llmeval_baseline: the baseline " in error
        and "base.json' is not a usable report: " + named in error
    )


@pytest.mark.parametrize(
    "content", ["[]", "null", '"a string"', "42", "{}", "EXTRA", "FORMAT2", '{"key": 1, "request": [], "reply": 2}']
)
def test_a_verdict_file_of_the_wrong_shape_is_untrusted_asked_again_and_rewritten(tmp_path, content):
    import json

    from pytest_llmeval.judges.cache import VerdictCache, verdict_key

    cache = VerdictCache(str(tmp_path), "record")
    request = {"messages": [{"role": "user", "content": "ok?"}]}
    cache.put(request, {"text": "yes"})
    path = cache._path(verdict_key(request))
    good = json.loads(open(path, encoding="utf-8").read())
    if content == "EXTRA":
        content = json.dumps({**good, "confidence": 0.9})
    elif content == "FORMAT2":
        content = json.dumps({**good, "format": 2})
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(content)
    assert cache.get(request, what="test") is None  # asked again, not trusted
    assert len(cache.corrupt) == 1 and path in cache.corrupt[0]
    cache.put(request, {"text": "yes"})  # the answer is recorded over the damaged file
    assert cache.get(request, what="test") == {"text": "yes"}


def _judge(server, retries=1):
    from pytest_llmeval.judges.openai_judge import OpenAIJudge

    return OpenAIJudge(
        "scripted-judge",
        base_url=server.base_url,
        api_key_env="LLMEVAL_TEST_KEY",
        timeout=2.0,
        max_retries=retries,
        json_mode="none",
    )


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (
            '{"id": "x", "object": "chat.completion", "created": 0, "model": "m", "choices": []}',
            "the reply has no choice with a message",
        ),
        ('{"id": "x", "choices": [{"index": 0, "message": {"role": "assistant", "content": "yes"', "could not be read"),
        ("[" * 100_000, "could not be read"),
    ],
    ids=["empty-choices", "truncated", "deeply-nested"],
)
def test_judge_protocol_faults_become_judge_errors(server, monkeypatch, body, named):
    pytest.importorskip("openai")
    from pytest_llmeval.judges.base import JudgeError

    monkeypatch.setenv("LLMEVAL_TEST_KEY", "sk-test-secret-key-0123456789")
    for _ in range(3):
        server.script.append({"body": body})
    with pytest.raises(JudgeError, match=named):
        _judge(server, retries=1).complete([{"role": "user", "content": "ok?"}])
    if named == "could not be read":
        assert len(server.requests) == 2  # asked again once (max_retries=1), then given up


def test_an_echoed_api_key_never_reaches_the_error(server, monkeypatch):
    pytest.importorskip("openai")
    from pytest_llmeval.judges.base import JudgeError

    key = "sk-proj-EchoedBackByTheServer0123456789"
    monkeypatch.setenv("LLMEVAL_TEST_KEY", key)
    server.script.append(
        {"status": 401, "message": f"Incorrect API key provided: {key}. Also try sk-other-123456789abc."}
    )
    with pytest.raises(JudgeError) as info:
        _judge(server, retries=0).complete([{"role": "user", "content": "ok?"}])
    text = str(info.value)
    assert key not in text and "sk-other" not in text and "[redacted]" in text and "401" in text


def test_a_remote_schema_ref_is_never_fetched():
    import sys

    connections = []

    def audit(event, args):
        if event in ("socket.connect", "socket.getaddrinfo", "urllib.Request"):
            connections.append((event, args))

    sys.addaudithook(audit)
    schema = {"type": "object", "properties": {"a": {"$ref": "https://json-schema.example/remote.json"}}}
    evaluator = REGISTRY.create("json_schema", schema=schema)
    with pytest.raises(
        ValueError,
        match="\\$ref 'https://json-schema.example/remote.json' cannot be resolved inside the schema; "
        "remote references are not fetched",
    ):
        evaluator.evaluate([Case(actual='{"a": 1}')])
    assert connections == []
    local = {"$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}}
    [ok] = REGISTRY.create("json_schema", schema=local).evaluate([Case(actual='{"a": 1}')])
    assert ok.passed
    with pytest.raises(TypeError, match="parameter 'allow_remote_refs' must be True or False"):
        REGISTRY.create("json_schema", allow_remote_refs="yes")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: __import__("pytest_llmeval").assert_no_pii("x", kinds=42),
            "parameter 'kinds' must be a kind name or a list of them",
        ),
        (
            lambda: __import__("pytest_llmeval").assert_check(["a"], actual="x"),
            "the evaluator name must be a str such as 'groundedness'; got list",
        ),
        (
            lambda: __import__("pytest_llmeval").assert_self_consistent(b"abc"),
            "argument 'answers' must be a non-empty list of str; got bytes",
        ),
        (
            lambda: __import__("pytest_llmeval").assert_self_consistent(["a", 3]),
            "argument 'answers' must hold str; answers\\[1\\] is int",
        ),
    ],
)
def test_bad_arguments_are_named(call, message):
    with pytest.raises(TypeError, match=message):
        call()


def test_a_500_that_names_the_response_format_downgrades_once(server, monkeypatch):
    """llama.cpp's server answers HTTP 500 to a json_schema response_format and accepts json_object."""
    pytest.importorskip("openai")
    from pytest_llmeval.judges.openai_judge import OpenAIJudge

    server.reject_formats = {"json_schema"}
    server.reject_status = 500
    judge = OpenAIJudge(
        "scripted-judge", base_url=server.base_url, api_key_env="LLMEVAL_TEST_KEY", timeout=2.0, max_retries=0
    )
    schema = {"type": "object", "properties": {"verdict": {"type": "string"}}, "required": ["verdict"]}
    first = judge.complete([{"role": "user", "content": "ok?"}], schema=schema)
    second = judge.complete([{"role": "user", "content": "ok?"}], schema=schema)
    assert first.text == second.text == '{"verdict": "yes"}'
    kinds = [(r.get("response_format") or {}).get("type") for r in server.requests]
    assert kinds == ["json_schema", "json_object", "json_object"]  # remembered for this endpoint
    assert len(judge.downgrades) == 1 and "schema -> object" in judge.downgrades[0]
    # a 500 that does not name the format is a plain failure, not a downgrade
    server.reject_formats = set()
    server.script.append({"status": 500, "message": "out of memory"})
    from pytest_llmeval.judges.base import JudgeError

    with pytest.raises(JudgeError, match="out of memory"):
        OpenAIJudge(
            "scripted-judge", base_url=server.base_url, api_key_env="LLMEVAL_TEST_KEY", timeout=2.0, max_retries=0
        ).complete([{"role": "user", "content": "ok?"}], schema=schema)


def test_cases_and_load_cases_find_a_file_beside_the_test(pytester):
    sub = pytester.mkdir("suite")
    (sub / "qa.jsonl").write_text(
        '{"id": "q1", "input": {"question": "Capital?"}, "expected_output": {"answer": "Paris"}, "actual_output": '
        '"Paris"}\n'
    )
    (sub / "test_qa.py").write_text(
        "import pytest\nfrom pytest_llmeval import cases, load_cases, assert_exact_match\n\n"
        "assert len(load_cases('qa.jsonl')) == 1\n\n"
        "@pytest.mark.parametrize('case', cases('qa.jsonl'))\n"
        "def test_answer(case):\n    assert_exact_match(case.actual, case.expected)\n"
    )
    result = pytester.runpytest("-p", "no:randomly", "suite")  # started from the parent folder
    result.assert_outcomes(passed=1)


def test_a_model_that_cannot_load_fails_in_one_line(pytester):
    pytester.makepyfile("from pytest_llmeval import assert_similar\ndef test_s():\n    assert_similar('a', 'b')\n")
    result = pytester.runpytest(
        "-p", "no:randomly", "--override-ini=llmeval_embedding_model=/no/such/model", "--llmeval-cache-dir=off"
    )
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*llmeval: could not find or load the embedding model '/no/such/model'*"])
    result.stdout.no_fnmatch_line("*During handling*")
    result.stdout.no_fnmatch_line("*Traceback*")
    result.stdout.no_fnmatch_line("*raise *")


def test_altered_or_wrong_dimension_embedding_shards_are_rebuilt(tmp_path):
    import numpy as np

    from pytest_llmeval.models.stores import EmbeddingStore

    store = EmbeddingStore(str(tmp_path), "model|fp32|normalized")
    vector = np.ones(4, dtype=np.float32) / 2.0  # unit length
    path = store.save({"k1": vector, "k2": vector})
    assert set(store.load()) == {"k1", "k2"}

    def rewrite(**changes):
        with np.load(path, allow_pickle=False) as shard:
            parts = {name: shard[name] for name in shard.files}
        parts.update(changes)
        with open(path, "wb") as handle:
            np.savez(handle, **parts)

    altered = np.stack([vector, np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)])
    rewrite(vectors=altered)  # valid-looking, unit length, but not what was written
    fresh = EmbeddingStore(str(tmp_path), "model|fp32|normalized")
    assert fresh.load() == {} and fresh.rejected == 1
    path = store.save({"k1": vector})
    other = store.save({"k3": np.ones(8, dtype=np.float32) / np.sqrt(8)})  # another dimension beside it
    loaded = EmbeddingStore(str(tmp_path), "model|fp32|normalized")
    vectors = loaded.load()
    assert {v.shape[0] for v in vectors.values()} == {4} and loaded.rejected == 1
    assert path and other


@pytest.mark.parametrize("text", ["{ " * 500_000, "[" * 100_000, '{"a": ' * 50_000, "x" * 1_000_000])
def test_extract_json_is_bounded_on_hostile_replies(text, monkeypatch):
    """At most MAX_JSON_STARTS openings are decoded: each failed one costs time in the length of the reply."""
    import json

    from pytest_llmeval.judges.base import MAX_JSON_STARTS, JudgeParseError, extract_json

    starts = []

    class Decoder(json.JSONDecoder):
        def raw_decode(self, s, idx=0):
            starts.append(idx)
            return super().raw_decode(s, idx)

    monkeypatch.setattr(json, "JSONDecoder", Decoder)
    with pytest.raises(JudgeParseError):
        extract_json(text)
    assert len(starts) <= MAX_JSON_STARTS


def test_long_answers_get_a_bounded_vader_score(monkeypatch):
    """VADER's time grows with the square of its input: a 100 KB answer reaches it in pieces of at most VADER_CHUNK."""
    pytest.importorskip("vaderSentiment")
    from pytest_llmeval.checks.classification.sentiment import VADER_CHUNK

    evaluator = REGISTRY.create("sentiment")
    analyzer, scored = evaluator._vader(), []
    monkeypatch.setattr(evaluator, "_vader", lambda: analyzer)
    monkeypatch.setattr(
        analyzer, "polarity_scores", lambda text, real=analyzer.polarity_scores: scored.append(len(text)) or real(text)
    )
    text = "This is good. I love it. " * 4000
    [result] = evaluator.evaluate([Case(actual=text)])
    assert (
        max(scored) <= VADER_CHUNK
        and len(scored) == result.details["chunks"] > 1
        and sum(scored) >= len(text.strip()) - len(scored)
    )
    assert result.score > 0.9 and "chunks of sentences" in result.reason
    [short] = evaluator.evaluate([Case(actual="This is good.")])
    assert "chunks" not in short.details


def test_a_case_parametrized_over_models_is_one_case(pytester):
    import json

    pytester.makepyfile(
        """
import pytest
from pytest_llmeval import assert_matches

ANSWERS = {("q1", "alpha"): "Canberra", ("q1", "beta"): "Sydney", ("q2", "alpha"): "Paris", ("q2", "beta"): "Paris"}

@pytest.mark.parametrize("question", ["q1", "q2"])
@pytest.mark.parametrize("model", [pytest.param(m, marks=pytest.mark.llmeval(model=m)) for m in ("alpha", "beta")])
def test_capital(question, model):
    assert_matches(ANSWERS[question, model], '"Canberra" OR "Paris"')

def test_with_fixture(llmeval_model):
    assert_matches("Canberra" if llmeval_model == "alpha" else "Sydney", '"Canberra"')
"""
    )
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-models=alpha,beta", "--llmeval-report=r.json")
    result.assert_outcomes(passed=4, failed=2)
    report = json.loads((pytester.path / "r.json").read_text())
    cases = {(r["model"], r["case_id"].split("::")[-1]) for r in report["results"]}
    assert ("beta", "test_capital[q1]") in cases and ("alpha", "test_capital[q1]") in cases
    assert ("beta", "test_with_fixture") in cases
    summary = json.dumps(report["summary"])
    assert "test_capital[q1]" in summary and "beta-q1" not in summary and "q1-beta" not in summary
    result.stdout.fnmatch_lines(["most difficult case: *", "  failed by: beta"])


# -- fuzz: every deterministic check, arbitrary text (lone surrogates, NUL, astral characters) ---------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

CODE_POINT_TEXT = st.lists(st.integers(0, 0x10FFFF), max_size=80).map(lambda cps: "".join(map(chr, cps)))
ANY_TEXT = st.one_of(
    CODE_POINT_TEXT, st.text(max_size=80), st.sampled_from(["\ud800", "\x00", "a\udfffb 1,234 Paris", ""])
)
DETERMINISTIC = [
    n for n in REGISTRY.names() if not REGISTRY.resolve(n).uses_models and not REGISTRY.resolve(n).needs_judge
]
FIELDS = {
    "expected": "The capital is Paris.",
    "question": "What is the capital?",
    "context": ["Paris is the capital."],
    "conditions": '"Paris" OR regexp("[0-9]+")',
}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(answer=ANY_TEXT, other=ANY_TEXT)
def test_deterministic_checks_and_the_report_take_any_text(answer, other):
    import json

    from pytest_llmeval.facts.collect import extract_facts
    from pytest_llmeval.facts.extract import FactIndex
    from pytest_llmeval.report.jsonfile import dumps

    records = []
    for name in DETERMINISTIC:
        cls = REGISTRY.resolve(name)
        fields = {k: v for k, v in FIELDS.items() if k in cls.requires + cls.uses}
        if "expected" in fields:
            fields["expected"] = other or "x"
        if name == "self_consistency":
            continue  # takes a group (tests/checks/embedding/test_step_groups.py)
        if name == "agent_sanity":
            fields["metadata"] = {"artifacts": [__file__]}  # what the agent wrote: files, not text
        [result] = REGISTRY.create(name).evaluate([Case(actual=answer, **fields)])
        records.append(result.to_dict())
    text = dumps({"results": records})
    text.encode("utf-8")  # valid UTF-8 whatever the answers held
    assert [r["excerpt"] for r in json.loads(text)["results"]] == [r["excerpt"] for r in records]
    FactIndex(other).supports  # noqa: B018 - builds on any text
    extract_facts(answer)


def test_a_crashed_worker_test_is_in_every_report(pytester):
    """xdist: a test whose worker dies (os._exit, SIGKILL) is reported as crashed, never dropped."""
    pytest.importorskip("xdist")
    import json

    pytester.makepyfile(
        """
import os, signal
import pytest
from pytest_llmeval import assert_matches

@pytest.mark.parametrize("i", range(6))
def test_fine(i):
    assert_matches("Paris", '"Paris"')

def test_exit():
    assert_matches("Paris", '"Paris"')
    os._exit(1)

def test_kill():
    os.kill(os.getpid(), signal.SIGKILL)
"""
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "-n", "2", "--llmeval-report=out", "-p", "no:cacheprovider"
    )
    assert result.ret == 1
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    tests = report["tests"]
    assert len(tests) == 8
    assert {nodeid.split("::")[-1]: outcome for nodeid, outcome in tests.items() if "fine" not in nodeid} == {
        "test_exit": "crashed",
        "test_kill": "crashed",
    }
    assert sum(outcome == "passed" for outcome in tests.values()) == 6
    for name in ("report.md", "report.html"):
        assert "8 tests: 6 passed, 2 crashed" in (pytester.path / "out" / name).read_text()
    result.stdout.fnmatch_lines(["llmeval tests: 8 tests: 6 passed, 2 crashed"])


def test_a_check_whose_judge_failed_for_good_leaves_a_record(pytester, server):
    """Fault injection through a session: every fault mode ends as a counted record and the reports are written."""
    pytest.importorskip("openai")
    import json

    # No retries and a 2 s timeout: under load a 0.5 s timeout also timed out replies that were on their way, and three
    # timeouts in a row stop the judge for the run (its later checks skipped, not failed); only the "timeout" fault
    # (3 s late) times out here, once.
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_api_key_env = JUDGE_KEY\nllmeval_judge_timeout = 2\nllmeval_judge_retries = 0\n"
    )
    faults = {
        "status500": {"status": 500, "message": "boom"},
        "status503": {"status": 503, "message": "busy"},
        "refused": {"status": 400, "message": "bad request"},
        "malformed": {"malformed": True},
        "empty_choices": {"body": '{"id": "x", "choices": []}'},
        "deep": {"body": "[" * 50_000},
        "timeout": {"delay": 3.0, "text": '{"verdict": "yes"}'},
    }
    server.responder = lambda body: faults[next(k for k in faults if k in json.dumps(body))]
    pytester.makepyfile(
        "import pytest\nfrom pytest_llmeval import assert_no_contact_info\n\n"
        f"@pytest.mark.parametrize('fault', {sorted(faults)!r})\n"
        "def test_fault(fault):\n    assert_no_contact_info(f'Answer for {fault}.')\n"
    )
    # In a process of its own: the deeply nested reply is parsed in the judge's thread, and CPython 3.11's AST converter
    # keeps its recursion depth per interpreter, so formatting a failure in the same process could meet it.
    result = pytester.runpytest_subprocess(
        "-p", "no:randomly", "-rf", "--llmeval-report=out", "--override-ini=llmeval_judge_cache=off"
    )
    result.assert_outcomes(failed=len(faults))
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    assert len(report["results"]) == len(faults)
    assert all(not r["passed"] and r["reason"].startswith("judge error: ") for r in report["results"])
    assert report["summary"]["checks"] == len(faults) and report["summary"]["passed"] == 0
    raised = [line for line in result.stdout.lines if line.startswith("E ") and "Error" in line]
    # each a judge error (JudgeTimeout is one)
    assert raised and all("JudgeError" in line or "JudgeTimeout" in line for line in raised)
    assert (pytester.path / "out" / "report.html").exists() and (pytester.path / "out" / "report.md").exists()


def test_an_unloadable_cross_encoder_is_a_model_load_error(monkeypatch):
    pytest.importorskip("sentence_transformers")
    from pytest_llmeval.models.cache import ModelCache, ModelLoadError

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    evaluator = REGISTRY.create(
        "semantic_similarity", method="cross-encoder", cross_encoder="no-such-org/no-such-cross-encoder"
    )
    evaluator.bind(ModelCache(device="cpu", cache_dir=None, announce=lambda line: None))
    with pytest.raises(
        ModelLoadError,
        match=(
            "(?s)could not load the cross-encoder "
            "'no-such-org/no-such-cross-encoder'.*Pass cross_encoder= a local folder"
        ),
    ):
        evaluator.evaluate([Case(actual="a", expected="b")])


def test_a_session_against_a_server_that_rejects_json_schema_with_500_says_so_once(pytester, server):
    """Every judge check works on a llama.cpp-like server, and the terminal names the downgrade once."""
    pytest.importorskip("openai")
    import json

    server.reject_formats = {"json_schema"}
    server.reject_status = 500
    server.default = {"text": '{"verdict": "absent"}'}
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_api_key_env = JUDGE_KEY\n"
    )
    pytester.makepyfile(
        "import pytest\nfrom pytest_llmeval import assert_no_contact_info\n\n"
        "@pytest.mark.parametrize('n', range(3))\n"
        "def test_contact(n):\n    assert_no_contact_info(f'Answer {n}.')\n"
    )
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-report=out", "--override-ini=llmeval_judge_cache=off")
    result.assert_outcomes(passed=3)
    downgrades = [line for line in result.stdout.lines if "structured output downgraded" in line]
    assert len(downgrades) == 1 and "schema -> object" in downgrades[0]
    kinds = [(r.get("response_format") or {}).get("type") for r in server.requests]
    assert kinds.count("json_schema") == 1 and kinds.count("json_object") == 3
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    assert len(report["judge"]["json_mode_downgrades"]) == 1


def test_a_verdict_missing_in_replay_fails_in_one_line_and_leaves_a_record(pytester, server):
    """Replay-only and never recorded (an unparseable reply is not recorded): a counted failure, no traceback."""
    pytest.importorskip("openai")
    import json

    server.default = {"text": '{"verdict": "absent"}'}
    pytester.makeini(
        f"[pytest]\nllmeval_judge_model = scripted\nllmeval_judge_base_url = {server.base_url}\n"
        "llmeval_judge_api_key_env = JUDGE_KEY\n"
    )
    pytester.makepyfile(
        "from pytest_llmeval import assert_no_contact_info\n\n"
        "def test_recorded():\n    assert_no_contact_info('Recorded answer.')\n\n"
        "def test_new():\n    assert_no_contact_info('An answer no run has recorded.')\n"
    )
    pytester.runpytest("-p", "no:randomly", "-k", "recorded").assert_outcomes(passed=1, deselected=1)
    calls = len(server.requests)
    result = pytester.runpytest(
        "-p", "no:randomly", "-rf", "--llmeval-report=out", "--override-ini=llmeval_judge_cache=replay"
    )
    result.assert_outcomes(passed=1, failed=1)
    assert len(server.requests) == calls
    result.stdout.fnmatch_lines(["*_ test_new _*", "llmeval: contact_information answer: no recorded judge verdict*"])
    assert "cache.py" not in result.stdout.str()  # no traceback through the cache
    report = json.loads((pytester.path / "out" / "report.json").read_text())
    reasons = {r["nodeid"].split("::")[-1]: (r["passed"], r["reason"]) for r in report["results"]}
    assert reasons["test_recorded"][0] is True
    assert reasons["test_new"][0] is False and reasons["test_new"][1].startswith("judge verdict missing: ")


def test_a_timeout_on_the_first_structured_request_is_retried(server):
    """The structured-output probe went out once without retries: a slow first reply failed the check for good."""
    pytest.importorskip("openai")
    from pytest_llmeval.judges.openai_judge import OpenAIJudge

    server.script.append({"delay": 1.0, "text": '{"verdict": "yes"}'})
    judge = OpenAIJudge(
        "scripted-judge", base_url=server.base_url, api_key_env="LLMEVAL_TEST_KEY", timeout=0.3, max_retries=2
    )
    reply = judge.complete([{"role": "user", "content": "ok?"}], schema={"type": "object"})
    assert reply.text == '{"verdict": "yes"}' and len(server.requests) >= 2
    assert not judge.downgrades  # a timeout says nothing about the response format
