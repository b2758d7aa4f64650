"""How many groundedness verdicts are what a new user expects, on a suite written the way a user writes one.

Run by hand::

    python benchmarks/bench_user_suite.py                      # benchmarks/data/user_suite.jsonl
    python benchmarks/bench_user_suite.py --workers 2 --json out.json
    python benchmarks/bench_user_suite.py --results benchmarks/results   # writes user_suite.json, for docs

The suite (``benchmarks/data/user_suite.jsonl``, ours) holds 45 cases written
before reading the plugin's tests: realistic RAG answers over prose passages and
JSON records (opening hours, prices), 28 hallucinated (a wrong place, date or
number, a person's given name changed, an invented person or organisation, a
compound name whose differing word is the fact, a swapped role, a negation, an
invented clause joined to a supported one, a record field contradicted) and 17
faithful (paraphrases, synonyms, reordered sentences, numbers written otherwise,
records described in prose, passives, short answers to a question). Each row:
``id``, ``kind``, ``context`` (a list of strings), optional ``question``,
``answer`` and ``expected`` (``fail``: a hallucination; ``pass``: faithful).

Each case becomes one parametrized pytest test that calls
``assert_grounded(answer, context, question=question, case=id)`` with the defaults
(no ``fail_on``, no judge), the way a user's first test does. The script runs
pytest on them with ``--llmeval-report`` and reads every case's verdict back from
the JSON report (``verdict_of``, matched by case id). A hallucination is as a
user expects when its verdict is *fail*; a faithful answer when it is not *fail*
(*pass*, confirmed, or *unverified*, left open: counted apart). It prints a row per
case (id, kind, expected, verdict, as a user expects, the reason's first line),
then the totals and a row per kind. It measures: the exit status is 0 whatever the
verdicts.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from pytest_llmeval.core.result import verdict_of

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.join(HERE, "data", "user_suite.jsonl")

TEST_MODULE = """
import json
import pytest
from pytest_llmeval import assert_grounded

with open({path!r}, encoding="utf-8") as handle:
    ROWS = [json.loads(line) for line in handle if line.strip()]


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_user_case(row):
    assert_grounded(row["answer"], row["context"], question=row.get("question"), case=row["id"])
"""

EXPECTED = ("pass", "fail")

#: How long a reason may be in the printed table (the JSON keeps the whole first line).
REASON_WIDTH = 140


# -- the suite -------------------------------------------------------------------------------


def load(path: str) -> list[dict[str, Any]]:
    """The suite's rows, checked: a unique ``id``, ``expected`` pass or fail, a non-empty list of strings as context."""
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            row = json.loads(line)
            problems = [
                field for field in ("id", "kind", "answer") if not isinstance(row.get(field), str) or not row[field]
            ]
            if row.get("expected") not in EXPECTED:
                problems.append("expected")
            context = row.get("context")
            if not isinstance(context, list) or not context or not all(isinstance(c, str) and c for c in context):
                problems.append("context")
            if "question" in row and not (row["question"] is None or isinstance(row["question"], str)):
                problems.append("question")
            if problems:
                raise ValueError(f"{path}:{number}: bad or missing {', '.join(problems)}")
            if row["id"] in seen:
                raise ValueError(f"{path}:{number}: id {row['id']!r} twice")
            seen.add(row["id"])
            rows.append(row)
    return rows


# -- running and reading ---------------------------------------------------------------------


def run(rows: list[dict[str, Any]], workers: int) -> dict[str, Any]:
    """Run the rows as a user's pytest suite and return its JSON report (bench_verdicts.py's runner)."""
    sys.path.insert(0, HERE)
    from bench_verdicts import run_suite

    return run_suite(rows, TEST_MODULE, "test_user_suite.py", workers)


def first_line(text: Any) -> str:
    lines = str(text or "").strip().splitlines()
    return lines[0].strip() if lines else ""


def verdicts(report: dict[str, Any], rows: Sequence[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """Each case's (verdict, the reason's first line) from the report; a case with no record is absent."""
    ids = {row["id"] for row in rows}
    out: dict[str, tuple[str, str]] = {}
    for record in report.get("results", []):
        case = record.get("case_id")
        if case in ids:
            out[case] = (verdict_of(record), first_line(record.get("reason")))
    return out


# -- scoring ---------------------------------------------------------------------------------


def as_expected(expected: str, verdict: str) -> bool:
    """A hallucination is caught when it fails; a faithful answer is right when it does not (pass or unverified)."""
    if verdict not in ("pass", "fail", "unverified"):
        return False  # no verdict (the test errored before its check recorded one)
    return verdict == "fail" if expected == "fail" else verdict != "fail"


def outcome(expected: str, verdict: str) -> str:
    """What the verdict means to the user, in words."""
    if verdict not in ("pass", "fail", "unverified"):
        return "no (no verdict)"
    if expected == "fail":
        return "yes (caught)" if verdict == "fail" else f"no (missed: {verdict})"
    return {"pass": "yes (confirmed)", "unverified": "yes (unverified)"}.get(verdict, "no (failed)")


def score(rows: Sequence[dict[str, Any]], found: dict[str, tuple[str, str]]) -> list[dict[str, Any]]:
    """A row per case: id, kind, expected, verdict, as_expected, outcome and reason."""
    cases = []
    for row in rows:
        verdict, reason = found.get(row["id"], ("missing", ""))
        cases.append(
            {
                "id": row["id"],
                "kind": row["kind"],
                "expected": row["expected"],
                "verdict": verdict,
                "as_expected": as_expected(row["expected"], verdict),
                "outcome": outcome(row["expected"], verdict),
                "reason": reason,
            }
        )
    return cases


def _counts(cases: Sequence[dict[str, Any]]) -> dict[str, int]:
    bad = [c for c in cases if c["expected"] == "fail"]
    good = [c for c in cases if c["expected"] == "pass"]
    return {
        "cases": len(cases),
        "as_expected": sum(c["as_expected"] for c in cases),
        "hallucinations": len(bad),
        "caught": sum(c["verdict"] == "fail" for c in bad),
        "missed_unverified": sum(c["verdict"] == "unverified" for c in bad),
        "missed_pass": sum(c["verdict"] == "pass" for c in bad),
        "faithful": len(good),
        "faithful_failed": sum(c["verdict"] == "fail" for c in good),
        "faithful_confirmed": sum(c["verdict"] == "pass" for c in good),
        "faithful_unverified": sum(c["verdict"] == "unverified" for c in good),
        "unverified": sum(c["verdict"] == "unverified" for c in cases),
        "no_verdict": sum(c["verdict"] not in ("pass", "fail", "unverified") for c in cases),
    }


def totals(cases: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The counts over the suite and per kind (kinds in the suite's order)."""
    kinds: list[str] = []
    for case in cases:
        if case["kind"] not in kinds:
            kinds.append(case["kind"])
    return {**_counts(cases), "kinds": {kind: _counts([c for c in cases if c["kind"] == kind]) for kind in kinds}}


# -- rendering -------------------------------------------------------------------------------


def _cell(text: str, width: int = 0) -> str:
    text = text.replace("|", "\\|")
    return text[: width - 1] + "…" if width and len(text) > width else text


def render(cases: Sequence[dict[str, Any]], summary: dict[str, Any]) -> str:
    """The per-case table, the totals and the per-kind table, as Markdown."""
    lines = ["| id | kind | expected | verdict | as a user expects | reason |", "|---|---|---|---|---|---|"]
    for c in cases:
        lines.append(
            f"| {c['id']} | {c['kind']} | {c['expected']} | {c['verdict']} | {c['outcome']} | "
            f"{_cell(c['reason'], REASON_WIDTH)} |"
        )
    s = summary
    lines += [
        "",
        f"As a user expects: {s['as_expected']}/{s['cases']}",
        f"Hallucinations caught (fail): {s['caught']}/{s['hallucinations']} "
        f"(missed: {s['missed_unverified']} unverified, {s['missed_pass']} pass)",
        f"Faithful answers failed: {s['faithful_failed']}/{s['faithful']}",
        f"Faithful answers confirmed (pass): {s['faithful_confirmed']}/{s['faithful']}",
        f"Faithful answers unverified: {s['faithful_unverified']}/{s['faithful']}",
        f"Unverified, all cases: {s['unverified']}/{s['cases']}",
    ]
    if s["no_verdict"]:
        lines.append(f"No verdict recorded: {s['no_verdict']}/{s['cases']}")
    lines += [
        "",
        "| kind | cases | as a user expects | caught | failed (faithful) | confirmed | unverified |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind, k in s["kinds"].items():
        caught = f"{k['caught']}/{k['hallucinations']}" if k["hallucinations"] else "-"
        failed = f"{k['faithful_failed']}/{k['faithful']}" if k["faithful"] else "-"
        confirmed = f"{k['faithful_confirmed']}/{k['faithful']}" if k["faithful"] else "-"
        lines.append(
            f"| {kind} | {k['cases']} | {k['as_expected']}/{k['cases']} | {caught} | {failed} | {confirmed} | "
            f"{k['unverified']}/{k['cases']} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", default=DEFAULT_DATA, help="the suite, JSON lines (default: benchmarks/data/user_suite.jsonl)"
    )
    parser.add_argument("--workers", type=int, default=1, help="pytest-xdist workers (1: none)")
    parser.add_argument("--json", default=None, help="also write the totals and per-case rows as JSON here")
    parser.add_argument(
        "--results", default=None, help="write user_suite.json here (totals and per-case rows, for docs)"
    )
    args = parser.parse_args(argv)

    rows = load(args.data)
    report = run(rows, args.workers)
    cases = score(rows, verdicts(report, rows))
    summary = totals(cases)
    print(render(cases, summary))
    duration = report.get("run", {}).get("duration_s")
    footer = (
        f"{len(rows)} cases from {os.path.basename(args.data)}, assert_grounded with the defaults (no fail_on, no "
        "judge)"
        + (f", {duration:.0f} s through pytest" if isinstance(duration, (int, float)) else "")
        + f" ({args.workers} worker(s))."
    )
    print("\n" + footer)
    out = {"totals": summary, "cases": cases, "footer": footer}
    if args.results:
        os.makedirs(args.results, exist_ok=True)
        with open(os.path.join(args.results, "user_suite.json"), "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=1, sort_keys=True, ensure_ascii=False)
            handle.write("\n")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(out, handle, indent=2, ensure_ascii=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
