"""How often the noise-aware regression gate fails a run, measured the way users run it.

Run by hand (a few minutes; nothing is written outside a temporary folder)::

    python benchmarks/bench_gate.py
    python benchmarks/bench_gate.py --pairs-unchanged 40 --runs-worse 20 --workers 4 --json out.json

The script writes a stochastic suite of 60 cases: case ``i`` is answered right
("Paris", checked with ``assert_exact_match``) with probability
``p_i = 0.55 + 0.4 * i / 59`` minus ``SHIFT`` (an environment variable), each call
drawn afresh from ``random.Random`` seeded with ``RUN_SEED`` (an environment
variable), the test's node id and its draw: reproducible, yet every run and draw
is an independent draw. A pair is two pytest runs in subprocesses, both with
``--llmeval-gate=aggregate``: a baseline run that writes ``--llmeval-report``,
then a candidate run (another seed) with ``--llmeval-baseline`` and
``--llmeval-fail-on-regression``. The gate failed when the candidate run exits 1.
Every figure comes through pytest's exit status and the JSON report; no internals
of the plugin are called.

Scenarios:

- A: nothing changed, one draw per case: a gate failure is a false alarm (target: at most 10%, 4 of 40).
- B: nothing changed, ``--llmeval-repeat=3`` on both runs (same target).
- C: every case 15 points worse (SHIFT=0.15), ``--llmeval-repeat=3``: a gate failure is a catch (target: at least 80%,
  16 of 20).
- D: 15 points worse with one draw per case (informational: how often it is caught, how often inconclusive).
- H, I, J: fixed 5 draws against ``--llmeval-repeat=auto:5`` (a case drawn again only while its majority-of-5
  verdict is undecided), 15 points worse and unchanged: catches, false alarms and draws per run.
- E: two models under test 20 points apart on the same 60 cases, ``--llmeval-repeat=3``, one run each: how often the
  summary names the better one the best model (target: at least 18 of 20); E1: the same with one draw per case
  (informational: with one draw a 20-point gap is about 2.3 standard errors, so a valid test separates it in only
  about two runs in three).
- F, F3: two equal models, one and three draws per case: how often the summary says "no clear best" (target: at
  least 19 of 20).
- G: the judge goes down in the new run: 12 answers the offline groundedness check cannot confirm go to a judge
  (tests/judge_server.py, answering "yes"), which decides them in the baseline run and is unreachable in the
  candidate run: how often the gate says *indeterminate* and the run exits 1 (target: every run).

The regression gate tests "worse" one-sided over every row (Holm), the tolerance deciding only *unchanged*.

Per scenario it prints the runs, the gate failures (count and share), the tally of
the baseline verdicts, and the median "detectable" difference of the compared rows.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

SUITE = """
import os
import random

import pytest
from pytest_llmeval import assert_exact_match

SHIFT = float(os.environ.get("SHIFT", "0"))
MODEL_SHIFT = float(os.environ.get("MODEL_SHIFT", "0"))


@pytest.mark.parametrize("i", range(60))
def test_answer(i, request):
    rng = random.Random(f"{os.environ['RUN_SEED']}/{request.node.nodeid}")  # the node id names the draw (-drawK)
    right = rng.random() < 0.55 + 0.4 * i / 59 - SHIFT
    assert_exact_match("Paris" if right else "Lyon", "Paris")


@pytest.mark.parametrize("i", range(60))
def test_model(i, request, llmeval_model):
    rng = random.Random(f"{os.environ['RUN_SEED']}/{request.node.nodeid}")
    worse = MODEL_SHIFT if llmeval_model == "worse" else 0.0
    right = rng.random() < 0.55 + 0.4 * i / 59 - worse
    assert_exact_match("Paris" if right else "Lyon", "Paris")
"""

JUDGED = """
import os

import pytest
from pytest_llmeval import assert_grounded

CONTEXT = ["The Harbour Museum opens at 9 a.m. and closes at 5 p.m. from Monday to Friday. "
           "Entry is free for children under 12. Guided tours start every hour."]
REWORDED = ["Kids below twelve get in without paying.", "Youngsters under twelve are admitted at no cost.",
            "The museum lets in children younger than twelve for free.", "Little ones under 12 pay nothing to enter.",
            "Tours with a guide begin each hour.", "Every hour a guided tour sets off."]


@pytest.mark.parametrize("i", range(12))
def test_reworded(i):
    assert_grounded(REWORDED[i % len(REWORDED)] + (" Really." if i >= 6 else ""), CONTEXT)
"""

# name, label, the second model's shift, repeats, what counts as met (None: informational)
MODEL_SCENARIOS = (
    ("E", "two models 20 points apart, repeat 3", 0.20, 3, ("best model named", 0.90)),
    ("E1", "two models 20 points apart, repeat 1", 0.20, 1, None),
    ("F", "two equal models, repeat 1", 0.0, 1, ("no clear best", 0.95)),
    ("F3", "two equal models, repeat 3", 0.0, 3, ("no clear best", 0.95)),
)

VERDICTS = ("regressed", "inconclusive", "unchanged", "improved")

# name, label, shift, repeat, target: ("at most" | "at least", share of runs whose gate failed) or None
SCENARIOS = (
    ("A", "unchanged, repeat 1", 0.0, 1, ("at most", 0.10)),
    ("B", "unchanged, repeat 3", 0.0, 3, ("at most", 0.10)),
    ("C", "15 points worse, repeat 3", 0.15, 3, ("at least", 0.80)),
    ("D", "15 points worse, repeat 1", 0.15, 1, None),
    ("H", "15 points worse, repeat 5", 0.15, 5, ("at least", 0.80)),
    ("I", "15 points worse, repeat auto:5", 0.15, "auto:5", ("at least", 0.80)),
    ("J", "unchanged, repeat auto:5", 0.0, "auto:5", ("at most", 0.10)),
)


class BenchError(RuntimeError):
    """A pytest run ended in a way the benchmark cannot count."""


def pytest_run(folder: str, seed: str, shift: float, repeat: int, *options: str) -> tuple[int, str]:
    """Run the suite once; (exit status, output)."""
    # The subprocesses may write bytecode (PYTHONDONTWRITEBYTECODE would make every run compile the plugin again).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(RUN_SEED=seed, SHIFT=str(shift))
    command = [
        sys.executable,
        "-m",
        "pytest",
        os.path.join(folder, "test_app.py") + "::test_answer",
        "-q",
        "--tb=no",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        f"--rootdir={folder}",
        "--llmeval-gate=aggregate",
        f"--llmeval-repeat={repeat}",
        *options,
    ]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    return done.returncode, done.stdout[-3000:] + done.stderr[-3000:]


def run_pair(folder: str, name: str, index: int, shift: float, repeat: int, seed: str) -> dict[str, Any]:
    """One baseline run (SHIFT 0) and one candidate run against it: the candidate's exit status, verdict and rows."""
    base, now = (os.path.join(folder, f"{name}{index}-{part}.json") for part in ("base", "now"))
    code, output = pytest_run(folder, f"{seed}/{name}{index}/base", 0.0, repeat, f"--llmeval-report={base}")
    if code != 0:
        raise BenchError(f"scenario {name} pair {index}: the baseline run exited {code}:\n{output}")
    code, output = pytest_run(
        folder,
        f"{seed}/{name}{index}/now",
        shift,
        repeat,
        f"--llmeval-report={now}",
        f"--llmeval-baseline={base}",
        "--llmeval-fail-on-regression",
    )
    if code not in (0, 1) or not os.path.exists(now):
        raise BenchError(f"scenario {name} pair {index}: the candidate run exited {code}:\n{output}")
    with open(now, encoding="utf-8") as handle:
        report = json.load(handle)
    comparison = report.get("baseline")
    if not comparison:
        raise BenchError(f"scenario {name} pair {index}: the report has no baseline comparison")
    return {"exit": code, "verdict": comparison["verdict"], "rows": comparison["rows"], "draws": len(report["results"])}


def model_run(folder: str, name: str, index: int, shift: float, repeat: int, seed: str) -> dict[str, Any]:
    """One run of two models (``better`` and ``worse``, the second ``shift`` lower): the summary's best model."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(RUN_SEED=f"{seed}/{name}{index}", MODEL_SHIFT=str(shift))
    report = os.path.join(folder, f"{name}{index}.json")
    command = [
        sys.executable,
        "-m",
        "pytest",
        os.path.join(folder, "test_app.py") + "::test_model",
        "-q",
        "--tb=no",
        "-p",
        "no:randomly",
        "-p",
        "no:cacheprovider",
        f"--rootdir={folder}",
        "--llmeval-gate=aggregate",
        "--llmeval-models=better,worse",
        f"--llmeval-repeat={repeat}",
        f"--llmeval-report={report}",
    ]
    done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
    if done.returncode != 0 or not os.path.exists(report):
        raise BenchError(
            f"scenario {name} run {index} exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}"
        )
    with open(report, encoding="utf-8") as handle:
        summary = json.load(handle)["summary"]
    return {"best": summary.get("best_model"), "no_clear_best": bool(summary.get("no_clear_best"))}


def judge_down_pair(folder: str, index: int, judge_url: str, seed: str) -> dict[str, Any]:
    """A baseline run whose judge decides the escalated answers, then a run whose judge is unreachable."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(RUN_SEED=f"{seed}/G{index}", JUDGE_KEY="x")
    base, now = (os.path.join(folder, f"G{index}-{part}.json") for part in ("base", "now"))

    def run(url: str, *options: str) -> int:
        command = [
            sys.executable,
            "-m",
            "pytest",
            os.path.join(folder, "test_judged.py"),
            "-q",
            "--tb=no",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            f"--rootdir={folder}",
            "--llmeval-gate=aggregate",
            "--llmeval-judge-model=scripted",
            f"--override-ini=llmeval_judge_base_url={url}",
            "--override-ini=llmeval_judge_api_key_env=JUDGE_KEY",
            "--override-ini=llmeval_judge_cache=off",
            "--override-ini=llmeval_judge_retries=0",
            "--override-ini=llmeval_judge_timeout=2",
            f"--llmeval-cache-dir={folder}/cache",
            *options,
        ]
        return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True).returncode

    if run(judge_url, f"--llmeval-report={base}") != 0:
        raise BenchError(f"scenario G pair {index}: the baseline run (judge up) did not pass")
    code = run(
        "http://127.0.0.1:9/v1", f"--llmeval-report={now}", f"--llmeval-baseline={base}", "--llmeval-fail-on-regression"
    )
    with open(now, encoding="utf-8") as handle:
        report = json.load(handle)
    return {
        "exit": code,
        "gate": report.get("gate", {}).get("verdict"),
        "verdict": (report.get("baseline") or {}).get("verdict"),
    }


def tally(outcomes: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Runs, gate failures (exit status 1), verdict counts and the median detectable difference of the rows."""
    outcomes = list(outcomes)
    for outcome in outcomes:
        if outcome["exit"] not in (0, 1):
            raise BenchError(f"exit status {outcome['exit']} is neither a pass (0) nor a gate failure (1)")
    failed = sum(outcome["exit"] == 1 for outcome in outcomes)
    verdicts = dict.fromkeys(VERDICTS, 0)
    for outcome in outcomes:
        verdicts[outcome["verdict"]] = verdicts.get(outcome["verdict"], 0) + 1
    detectable = [
        row["detectable"] for outcome in outcomes for row in outcome["rows"] if row.get("detectable") is not None
    ]
    draws = [outcome["draws"] for outcome in outcomes if "draws" in outcome]
    return {
        "runs": len(outcomes),
        "gate_failed": failed,
        "share": failed / len(outcomes) if outcomes else float("nan"),
        "verdicts": verdicts,
        "median_detectable": statistics.median(detectable) if detectable else None,
        "mean_draws": statistics.fmean(draws) if draws else None,
    }


def target_met(figures: dict[str, Any], target: tuple[str, float] | None) -> bool | None:
    """Whether the share of failed gates meets the target (None: no target)."""
    if target is None:
        return None
    kind, share = target
    return bool(figures["share"] <= share) if kind == "at most" else bool(figures["share"] >= share)


def render(table: Sequence[dict[str, Any]]) -> str:
    """The table as Markdown."""
    head = (
        "| scenario | runs | gate failed | "
        + " | ".join(VERDICTS)
        + " | median detectable | draws per run | target | met |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for row in table:
        detectable = "-" if row["median_detectable"] is None else f"{row['median_detectable']:.3f}"
        target = "-" if row["target"] is None else f"{row['target'][0]} {row['target'][1]:.0%}"
        met = {None: "-", True: "met", False: "NOT met"}[row["met"]]
        lines.append(
            f"| {row['scenario']}: {row['label']} | {row['runs']} | {row['gate_failed']} ({row['share']:.0%}) | "
            + " | ".join(str(row["verdicts"].get(v, 0)) for v in VERDICTS)
            + (
                f" | {detectable} | "
                f"{'-' if row.get('mean_draws') is None else round(row['mean_draws'])} | {target} | {met} |"
            )
        )
    return "\n".join(lines)


def table_judge_down(args: argparse.Namespace) -> dict[str, Any] | None:
    """Scenario G: a judge that decides the escalated answers in the baseline run, unreachable in the next."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from tests.judge_server import ScriptedJudgeServer

    def reply(body: dict[str, Any]) -> dict[str, Any]:
        prompt = body["messages"][-1]["content"]
        return {
            "text": json.dumps(
                {"claims": ["the answer"]} if '"claims"' in prompt else {"verdict": "yes", "reason": "scripted"}
            )
        }

    server = ScriptedJudgeServer(keep_alive=True)
    server.responder = reply
    server.start()
    try:
        with tempfile.TemporaryDirectory() as folder, ThreadPoolExecutor(max(1, args.workers)) as pool:
            with open(os.path.join(folder, "test_judged.py"), "w", encoding="utf-8") as handle:
                handle.write(JUDGED)
            runs = list(
                pool.map(
                    partial(judge_down_pair, folder, judge_url=server.base_url, seed=args.seed), range(args.runs_worse)
                )
            )
    except BenchError as error:
        print(f"benchmark error: {error}", file=sys.stderr)
        return None
    finally:
        server.stop()
    hits = sum(r["exit"] == 1 and r["gate"] == "indeterminate" for r in runs)
    print(f"G: {len(runs)} pair(s) done", file=sys.stderr)
    return {
        "scenario": "G",
        "label": "the judge goes down in the new run",
        "runs": len(runs),
        "indeterminate_and_failed": hits,
        "baseline_verdicts": sorted({str(r["verdict"]) for r in runs}),
        "met": hits == len(runs),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--pairs-unchanged", type=int, default=40, help="pairs of runs in scenarios A and B")
    parser.add_argument("--runs-worse", type=int, default=20, help="pairs of runs in scenarios C and D")
    parser.add_argument("--workers", type=int, default=4, help="pairs run at once")
    parser.add_argument("--seed", default="bench", help="seeds every RUN_SEED (another one draws other runs)")
    parser.add_argument("--json", default=None, help="also write the table as JSON here")
    parser.add_argument("--only", default="", help="comma-separated scenario letters to run (default: all)")
    args = parser.parse_args(argv)
    only = {name.strip() for name in args.only.split(",") if name.strip()}

    table = []
    with tempfile.TemporaryDirectory() as folder, ThreadPoolExecutor(max(1, args.workers)) as pool:
        with open(os.path.join(folder, "test_app.py"), "w", encoding="utf-8") as handle:
            handle.write(SUITE)
        for name, label, shift, repeat, target in SCENARIOS:
            if only and name not in only:
                continue
            count = args.pairs_unchanged if shift == 0 else args.runs_worse
            try:
                outcomes = list(
                    pool.map(partial(run_pair, folder, name, shift=shift, repeat=repeat, seed=args.seed), range(count))
                )
                figures = tally(outcomes)
            except BenchError as error:
                print(f"benchmark error: {error}", file=sys.stderr)
                return 2
            table.append(
                {
                    "scenario": name,
                    "label": label,
                    "shift": shift,
                    "repeat": repeat,
                    **figures,
                    "target": target,
                    "met": target_met(figures, target),
                }
            )
            print(f"{name}: {count} pair(s) done", file=sys.stderr)
        models = []
        for name, label, shift, repeat, target in MODEL_SCENARIOS:
            if only and name not in only:
                continue
            try:
                runs = list(
                    pool.map(
                        partial(model_run, folder, name, shift=shift, repeat=repeat, seed=args.seed),
                        range(args.runs_worse),
                    )
                )
            except BenchError as error:
                print(f"benchmark error: {error}", file=sys.stderr)
                return 2
            named = sum(r["best"] == "better" for r in runs)
            wrong = sum(r["best"] == "worse" for r in runs)
            unclear = sum(r["no_clear_best"] for r in runs)
            what, share = target or ("", 0.0)
            hits = named if what == "best model named" else unclear
            models.append(
                {
                    "scenario": name,
                    "label": label,
                    "runs": len(runs),
                    "best_named": named,
                    "wrong_best": wrong,
                    "no_clear_best": unclear,
                    "target": f"{what} in at least {share:.0%}" if target else "-",
                    "met": None if target is None else hits >= share * len(runs),
                }
            )
            print(f"{name}: {len(runs)} run(s) done", file=sys.stderr)
    print(render(table))
    print("\n| scenario | runs | best model named (the better one) | wrong best | no clear best | target | met |")
    print("|---|---:|---:|---:|---:|---|---|")
    for row in models:
        print(
            f"| {row['scenario']}: {row['label']} | {row['runs']} | {row['best_named']} | {row['wrong_best']} | "
            f"{row['no_clear_best']} | {row['target']} | {({None: '-', True: 'met', False: 'NOT met'})[row['met']]} |"
        )
    table += models
    judged = table_judge_down(args) if not only or "G" in only else {"scenario": "G", "skipped": True}
    if judged is None:
        return 2
    if judged.get("skipped"):
        judged = None
    if judged is not None:
        print(
            f"\n| G: the judge goes down in the new run | {judged['runs']} runs | gate indeterminate and exit 1 in "
            f"{judged['indeterminate_and_failed']} | target: every run | {'met' if judged['met'] else 'NOT met'} |"
        )
        table.append(judged)
    print(
        f"\n60 cases; pairs through pytest in subprocesses ({args.workers} at once); seed {args.seed!r}; "
        "gate failed = the candidate run exited 1 (--llmeval-gate=aggregate --llmeval-fail-on-regression)"
    )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(table, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
