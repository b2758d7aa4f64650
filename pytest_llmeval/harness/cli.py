"""The ``llmeval`` console script (also ``python -m pytest_llmeval``): ``llmeval history`` prints each check and
model over the runs saved under ``.llmeval/runs/`` (``save = true``), as ``pytest-benchmark compare`` prints its
saved benchmarks, and flags the rows that drifted (`pytest_llmeval.report.history`).

Exit status: 0; 1 with ``--fail-on-drift`` when a row drifted; 2 on a usage error or with no saved run to read.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from collections.abc import Sequence

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="llmeval", description="pytest-llm-verdict's saved runs.")
    commands = parser.add_subparsers(dest="command", required=True)
    history = commands.add_parser(
        "history", help="each check and model over the saved runs: pass rate, mean, their intervals, drift"
    )
    history.add_argument("--root", default=".", help="the folder the runs were saved under (default: .)")
    history.add_argument(
        "--window", type=int, default=None, help="runs in each of the two windows a drift compares (default: 5)"
    )
    history.add_argument(
        "--alpha", type=float, default=0.05, help="the chance of any false drift over every run (default: 0.05)"
    )
    history.add_argument("--json", action="store_true", help="print the history as JSON")
    history.add_argument("--fail-on-drift", action="store_true", help="exit 1 when a row drifted")
    return parser


def _table(found: dict[str, object]) -> list[str]:
    from ..report.cells import names_within
    from ..report.view import history_view

    shown = history_view(found)
    if shown is None or not shown.rows:
        return ["no check has results in the saved runs"]
    rows = shown.rows
    label = min(max(len(f"{h.check} {h.metric}") for h in rows), 40)
    model_width = min(max([len(h.model) for h in rows] + [5]), 24)
    models = names_within([h.model for h in rows], model_width)
    trend = max(len(h.trend) for h in rows)
    lines = [
        f"{'check':<{label}}  {'model':<{model_width}}  {'runs':>4}  {'pass rate by run':<{max(trend, 16)}}  "
        f"{'last':>4}  {'CI':>8}  {'mean':>6}"
    ]
    lines.append("-" * len(lines[0]))
    for h in rows:
        name = f"{h.check} {h.metric}"
        name = name if len(name) <= label else name[: label - 1] + "…"
        lines.append(
            f"{name:<{label}}  {models[h.model]:<{model_width}}  {h.runs:>4}  {h.trend:<{max(trend, 16)}}  "
            f"{h.pass_rate:>4}  {h.pass_ci:>8}  {h.mean:>6}"
        )
    lines += [f"{h.check} {h.metric} on {h.model}: {h.what}" for h in shown.notable]
    return [shown.sentence.replace(", this one included", ""), *lines]


def main(argv: Sequence[str] | None = None) -> int:
    from ..report.history import WINDOW, history
    from .runs import RUNS_DIR, saved_runs

    args = _parser().parse_args(argv)
    if args.window is not None and args.window < 2:
        print("llmeval history: --window must be 2 or more", file=sys.stderr)
        return 2
    if not 0.0 < args.alpha < 1.0:
        print("llmeval history: --alpha must be between 0 and 1", file=sys.stderr)
        return 2
    root = pathlib.Path(args.root)
    reports, problems = saved_runs(root)
    for problem in problems:
        print(f"llmeval history: left out {problem}", file=sys.stderr)
    if not reports:
        print(f"llmeval history: no saved run under {root / RUNS_DIR} (save = true saves each run)", file=sys.stderr)
        return 2
    found = history(reports, window=args.window or WINDOW, alpha=args.alpha).to_dict()
    if args.json:
        print(json.dumps(found, indent=1))
    else:
        for line in _table(found):
            print(line)
    drifted = any(row.get("drift") for row in found["rows"])
    return 1 if drifted and args.fail_on_drift else 0


if __name__ == "__main__":  # pragma: no cover - the console script calls main()
    raise SystemExit(main())
