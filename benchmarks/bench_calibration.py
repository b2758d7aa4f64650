"""Calibration on the public labeled sets, run the way a team runs it: ``pytest --llmeval-calibrate``.

Run by hand (reads ../shared/data by path; writes nothing outside a temporary folder unless --json)::

    python benchmarks/bench_calibration.py --workers 2 --cache-dir /tmp/llmcache

For each labeled set (HaluEval QA, summarization and dialogue, QAGS, ExpertQA and Factcheck-GPT; the conventions of
benchmarks/bench_verdicts.py and ../shared/data/README.md) it writes a label file in the dataset format (``id``,
``input``, ``actual_output``, ``retrieved_context``, ``label``) and runs one pytest process::

    pytest --llmeval-calibrate=labels.jsonl --override-ini=llmeval_calibrate_check=CHECK -n WORKERS
    --llmeval-report=report.json

for ``groundedness`` with the defaults (offline evidence) and ``semantic_similarity`` against the context (the
embedded embedding model; a score). It prints each calibration entry as the run wrote it (rows, kappa and its
interval, agreement, good failed, bad caught, failure precision, unverified share) and checks the threshold
suggestion against a brute-force search over every threshold, from the scores and labels in the run's JSON report
(`pytest_llmeval.stats.agreement.brute_force_threshold`): a mismatch exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_verdicts import (  # noqa: E402
    DEFAULT_DATA,
    REAL_SETS,
    SET_NAMES,
    dialogue,
    halueval,
    qags,
    real_answers,
    summaries,
)

from pytest_llmeval.stats.agreement import brute_force_threshold  # noqa: E402

#: (check, what the check reads as its reference)
CHECKS = (("groundedness", "context"), ("semantic_similarity", "expected"))


def label_rows(
    rows: Iterator[tuple[str, bool, dict[str, Any]]], check: str, reference: str
) -> Iterator[dict[str, Any]]:
    for case_id, good, fields in rows:
        row = {"id": case_id, "actual_output": fields["actual"], "label": "good" if good else "bad", "check": check}
        if reference == "context":
            row["retrieved_context"] = fields["context"]
            if fields.get("question"):
                row["input"] = fields["question"]
        else:
            row["expected_output"] = "\n".join(fields["context"])
        yield row


def sets(data: str) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = [
        ("HaluEval QA", halueval),
        ("QAGS CNN/DM", qags),
        ("HaluEval summarization", summaries),
        ("HaluEval dialogue", dialogue),
    ]
    for name, prefix in REAL_SETS:
        out.append((SET_NAMES[prefix], lambda d, name=name, prefix=prefix: real_answers(d, name, prefix)))
    return out


def calibrate_set(
    folder: str, rows: list[dict[str, Any]], workers: int, cache_dir: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    labels, report, record = (os.path.join(folder, name) for name in ("labels.jsonl", "report.json", "cal.json"))
    with open(labels, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "--tb=line",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        f"--rootdir={folder}",
        f"--llmeval-calibrate={labels}",
        f"--override-ini=llmeval_calibration_file={record}",
        f"--llmeval-report={report}",
        "-W",
        "ignore::UserWarning",
    ]
    if workers > 1:
        command += ["-n", str(workers)]
    if cache_dir:
        command.append(f"--llmeval-cache-dir={cache_dir}")
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True)
    if done.returncode != 0 or not os.path.exists(record):
        sys.exit(f"the calibration run exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    with open(record, encoding="utf-8") as handle:
        [entry] = json.load(handle)["checks"].values()
    with open(report, encoding="utf-8") as handle:
        return entry, json.load(handle)


def brute_force_agrees(entry: dict[str, Any], report: dict[str, Any]) -> bool | None:
    """Whether the run's threshold suggestion is the brute-force search's choice (None: the check gave no score)."""
    suggestion = entry.get("threshold")
    if not suggestion:
        return None
    metric = suggestion["metric"]
    scored = [
        (r["metrics"][metric], r["tags"]["label"] == "bad")
        for r in report["results"]
        if isinstance(r["metrics"].get(metric), (int, float))
    ]
    expected = brute_force_threshold(scored, suggestion["higher_is_better"], suggestion["target"])
    found = (
        None
        if suggestion["threshold"] is None
        else (suggestion["threshold"], suggestion["bad_caught"], suggestion["good_failed"])
    )
    if expected is None or found is None:
        return expected == found
    return abs(expected[0] - found[0]) <= 1e-5 * max(1.0, abs(expected[0])) and expected[1:] == found[1:]


def number(value: Any) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--data", default=DEFAULT_DATA, help="folder of the public labeled data (default: ../shared/data)"
    )
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers per run")
    parser.add_argument("--cache-dir", default=None, help="embedding cache folder (shared between runs)")
    parser.add_argument("--json", default=None, help="also write the table as JSON here")
    args = parser.parse_args(argv)
    if not os.path.exists(os.path.join(args.data, "qags_cnndm.jsonl")):
        print(f"no labeled data in {args.data}", file=sys.stderr)
        return 2
    table = []
    print(
        "| check | set | rows | kappa (95% interval) | agreement | good failed | bad caught | failure precision | "
        "unverified | suggested threshold (precision 0.9) | brute force agrees |"
    )
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---|---|")
    mismatches = 0
    for check, reference in CHECKS:
        for name, rows in sets(args.data):
            with tempfile.TemporaryDirectory() as folder:
                entry, report = calibrate_set(
                    folder, list(label_rows(rows(args.data), check, reference)), args.workers, args.cache_dir
                )
            agrees = brute_force_agrees(entry, report)
            mismatches += agrees is False
            suggestion = entry.get("threshold") or {}
            shown = (
                "-"
                if not suggestion
                else (
                    "none reaches 0.9"
                    if suggestion["threshold"] is None
                    else f"{suggestion['threshold']:.3g} ({suggestion['bad_caught']}/{suggestion['bad']} bad, "
                    f"{suggestion['good_failed']}/{suggestion['good']} good)"
                )
            )
            interval = f"{number(entry['kappa'])} ({number(entry['kappa_low'])} to {number(entry['kappa_high'])})"
            print(
                f"| {check} | {name} | {entry['rows']} | {interval} | {number(entry['agreement'])} | "
                f"{entry['good_failed']}/{entry['good']} | {entry['bad_caught']}/{entry['bad']} | "
                f"{number(entry['precision'])} | "
                f"{number(entry['unverified_share'])} | {shown} | "
                f"{'-' if agrees is None else 'yes' if agrees else 'NO'} |",
                flush=True,
            )
            table.append({"check": check, "set": name, "entry": entry, "brute_force_agrees": agrees})
    print(
        f"\nthrough pytest --llmeval-calibrate, -n {args.workers}; kappa on the rows each check decided (unverified "
        "rows are left out of it)"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(table, handle, indent=2)
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
