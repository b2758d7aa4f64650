"""Where the answers under test came from: replayed from cassettes, live (made and recorded in the run), or mixed.

A test in a cassette (`pytest_llmeval.harness.cassettes`) tags its records with ``answers`` and ``answer_models``.
`answer_counts()` counts the run's tests by source (the report's ``run.answers``); `answer_lines()` says it on the
terminal, names each leaderboard row that mixes live and replayed answers of one model, and marks a baseline whose
answers were replayed.

>>> records = [{"nodeid": "t1", "evaluator": "rouge", "model": "m", "tags": {"answers": "replayed"}},
...            {"nodeid": "t2", "evaluator": "rouge", "model": "m", "tags": {"answers": "live"}}]
>>> answer_counts(records)
{'live': 1, 'replayed': 1}
>>> answer_lines(records)[1]
'llmeval answers: rouge m mixes 1 live and 1 replayed answer(s) in one leaderboard row'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["SOURCES", "answer_counts", "answer_lines", "fixed"]

#: The sources an answer can have, as records tag them.
SOURCES = ("live", "mixed", "replayed")


def _source(record: Mapping[str, Any]) -> str | None:
    tags = record.get("tags")
    found = tags.get("answers") if isinstance(tags, Mapping) else None
    return found if found in SOURCES else None


def answer_counts(records: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Tests by where their answers came from (a test's last tagged record says), only the sources seen."""
    by_test: dict[str, str] = {}
    for record in records:
        source = _source(record)
        if source is not None:
            by_test[str(record.get("nodeid", ""))] = source
    counts = {source: sum(1 for found in by_test.values() if found == source) for source in SOURCES}
    return {source: count for source, count in counts.items() if count}


def answer_lines(records: Iterable[Mapping[str, Any]], baseline: Mapping[str, Any] | None = None) -> list[str]:
    """The terminal's lines: the counts, each row that mixes sources, a baseline built on replayed answers."""
    records = list(records)
    counts = answer_counts(records)
    lines = []
    if counts:
        mixed = f", {counts['mixed']} mixed" if counts.get("mixed") else ""
        lines.append(
            f"llmeval answers: {counts.get('replayed', 0)} test(s) replayed from cassettes, {counts.get('live', 0)} "
            f"live{mixed}"
        )
    rows: dict[tuple[str, str], dict[str, int]] = {}
    for record in records:
        source = _source(record)
        if source is not None:
            row = rows.setdefault((str(record.get("evaluator")), str(record.get("model") or "-")), {})
            row[source] = row.get(source, 0) + 1
    for (check, model), found in sorted(rows.items()):
        if len(found) > 1 or "mixed" in found:
            parts = " and ".join(f"{found[source]} {source}" for source in SOURCES if source in found)
            lines.append(f"llmeval answers: {check} {model} mixes {parts} answer(s) in one leaderboard row")
    before = ((baseline or {}).get("run") or {}).get("answers") if isinstance(baseline, Mapping) else None
    if isinstance(before, Mapping) and before.get("replayed"):
        lines.append(
            f"llmeval answers: the baseline's answers were replayed from cassettes ({before['replayed']} test(s)): it "
            "measured the recorded answers, not the model as it answers now"
        )
    return lines


def fixed(record: Mapping[str, Any]) -> bool:
    """Whether ``record``'s verdict is fixed by its input: every model call of its test was replayed from a cassette
    and its check asked no judge anything new (a rule, a local model, or judge verdicts replayed from the cache).
    The same input then gives the same verdict, so a case that flips is a change, not noise.

    >>> fixed({"tags": {"answers": "replayed"}, "details": {"judge": {"calls": 0, "replayed": 2}}})
    True
    >>> fixed({"tags": {"answers": "replayed"}, "details": {"judge": {"calls": 1}}}), fixed({"tags": {}})
    (False, False)
    """
    if _source(record) != "replayed":
        return False
    details = record.get("details")
    usage = details.get("judge") if isinstance(details, Mapping) else None
    calls = usage.get("calls", 0) if isinstance(usage, Mapping) else 0
    return not (isinstance(calls, (int, float)) and calls > 0)
