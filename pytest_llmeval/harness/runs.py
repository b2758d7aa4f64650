"""Saved runs: each run's JSON report kept under ``.llmeval/runs/`` (``save = true``), and a saved run as the
baseline (``--llmeval-baseline=last``, a run's id, or a branch name).

A saved run is the run's JSON report with ``run.saved``: its ``id`` (the first 8 hex digits of a hash of the report),
``time`` (UTC), the ``commit`` and ``branch`` it ran on (git, or GitHub Actions' variables), and the ``signatures``
of its leaderboard rows, so a later comparison can say what it compares. The file is named
``<time>-<number>-<id>.json`` (the number counts the runs saved in the folder), so the folder lists oldest first.

The folder is kept bounded: the last `KEEP_LAST` runs, and of older ones the last run of each day for
`KEEP_DAYS` days, at most ``KEEP_LAST + KEEP_DAYS`` files. The recent runs are what a comparison with ``last`` and a
look at the last few pull requests need; one run a day is enough to see a trend over two months, and a busy day of
fifty runs then costs one file, not fifty.

>>> names = [f"2026-12-{day:02d}T10{minute:02d}00Z-{day:02d}{minute:02d}abcd.json" for day in range(1, 4)
...          for minute in range(3)]
>>> kept(names, last=2, days=60, today="2026-12-03")
['2026-12-01T100200Z-0102abcd.json', '2026-12-02T100200Z-0202abcd.json', '2026-12-03T100100Z-0301abcd.json', \
'2026-12-03T100200Z-0302abcd.json']
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import pathlib
import subprocess
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "RUNS_DIR",
    "KEEP_LAST",
    "KEEP_DAYS",
    "save_run",
    "kept",
    "resolve_saved",
    "baseline_path",
    "saved_runs",
    "next_number",
    "history_section",
]

#: Where saved runs go, under the run's root folder.
RUNS_DIR = os.path.join(".llmeval", "runs")

#: Saved runs always kept: the most recent ones.
KEEP_LAST = 20

#: Days back for which the last run of each day is kept as well.
KEEP_DAYS = 60


def _git(root: pathlib.Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return (done.stdout.strip() or None) if done.returncode == 0 else None


def _where(root: pathlib.Path) -> tuple[str | None, str | None]:
    """The commit and branch the run is on: GitHub Actions' variables, else git, else unknown."""
    commit = os.environ.get("GITHUB_SHA") or _git(root, "rev-parse", "HEAD")
    branch = os.environ.get("GITHUB_HEAD_REF") or os.environ.get("GITHUB_REF_NAME")
    branch = branch or _git(root, "rev-parse", "--abbrev-ref", "HEAD")
    return commit, None if branch == "HEAD" else branch


def kept(names: Sequence[str], *, last: int = KEEP_LAST, days: int = KEEP_DAYS, today: str | None = None) -> list[str]:
    """Which saved-run file names to keep (oldest first): the last ``last``, and the last of each of the ``days`` days
    before ``today`` (``YYYY-MM-DD``, UTC)."""
    ordered = sorted(names)
    keep = set(ordered[-last:]) if last > 0 else set()
    today = today or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    since = (datetime.date.fromisoformat(today) - datetime.timedelta(days=days)).isoformat()
    by_day: dict[str, str] = {}
    for name in ordered:
        day = name[:10]
        if day > since:
            by_day[day] = name  # the last of its day, as the names sort by time
    return sorted(keep | set(by_day.values()))


def save_run(report: Mapping[str, Any], root: pathlib.Path) -> pathlib.Path:
    """Write ``report`` as a saved run under ``root``'s `RUNS_DIR`, prune the folder, return the file written."""
    from ..report import atomic_write
    from ..report.jsonfile import dumps

    folder = root / RUNS_DIR
    now = datetime.datetime.now(datetime.timezone.utc)
    commit, branch = _where(root)
    signatures = sorted(
        {json.dumps(r.get("signature"), sort_keys=True) for r in report.get("results", []) if isinstance(r, Mapping)}
    )
    digest = hashlib.sha256(f"{now.isoformat()}{commit}{len(report.get('results', []))}".encode()).hexdigest()[:8]
    saved = {
        "id": digest,
        "number": next_number(folder),
        "time": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit,
        "branch": branch,
        "signatures": [json.loads(s) for s in signatures],
    }
    run = dict(report.get("run") or {})
    run["saved"] = saved
    path = folder / f"{now.strftime('%Y-%m-%dT%H%M%S')}Z-{saved['number']:06d}-{digest}.json"
    kept_report = {key: value for key, value in report.items() if key != "history"}  # the history is of the runs
    atomic_write(str(path), dumps({**kept_report, "run": run}))
    names = [p.name for p in folder.glob("*.json")]
    for name in set(names) - set(kept(names, today=now.strftime("%Y-%m-%d"))):
        try:
            (folder / name).unlink()
        except OSError:
            pass
    return path


def next_number(folder: pathlib.Path) -> int:
    """The number the next saved run gets: one more than the highest in the folder's file names.

    Numbers keep counting when old runs are pruned (the drift test's level is spent by them,
    `pytest_llmeval.report.history.look_level`), and they order two runs saved within one second."""
    numbers = []
    for path in folder.glob("*.json"):
        _, number, _ = ("", *path.stem.rsplit("-", 2))[-3:]
        if number.isdigit():
            numbers.append(int(number))
    return max(numbers, default=0) + 1


def saved_runs(root: pathlib.Path) -> tuple[list[dict[str, Any]], list[str]]:
    """Every saved run under ``root`` as its JSON report, oldest first, and a line for each file that could not be
    read (it is left out, not fatal)."""
    from ..report.jsonfile import load

    reports, problems = [], []
    for path in sorted((root / RUNS_DIR).glob("*.json")):
        try:
            reports.append(load(path))
        except (OSError, ValueError) as exc:
            problems.append(f"{path.name}: {exc}")
    return reports, problems


def history_section(report: Mapping[str, Any], root: pathlib.Path, alpha: float = 0.05) -> dict[str, Any]:
    """The JSON report's ``history``: the saved runs under ``root`` and this run (``report``, not saved yet) over time
    (`pytest_llmeval.report.history`); ``unreadable`` names each saved file left out."""
    from ..report.history import history

    reports, problems = saved_runs(root)
    commit, branch = _where(root)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    saved = {"id": "", "time": now, "commit": commit, "branch": branch, "number": next_number(root / RUNS_DIR)}
    current = {**report, "run": {**dict(report.get("run") or {}), "saved": saved}}
    return {**history([*reports, current], alpha=alpha).to_dict(), "unreadable": problems}


def _saved(path: pathlib.Path) -> Mapping[str, Any] | None:
    """``run.saved`` of the saved run at ``path`` (``None`` when it cannot be read)."""
    try:
        with open(path, encoding="utf-8") as stream:
            saved = (json.load(stream).get("run") or {}).get("saved")
    except (OSError, ValueError, AttributeError):
        return None
    return saved if isinstance(saved, Mapping) else None


def resolve_saved(ref: str, root: pathlib.Path) -> pathlib.Path | None:
    """The saved run ``ref`` names: ``last`` (the newest), a run id (or its first characters), or a branch (its newest
    run); ``None`` when ``ref`` names none (it may be a report's path). ``ValueError`` when it names a saved run that
    is not there, listing what is. The time and id are in each file's name: only a branch needs the files read, newest
    first, until one is on it."""
    paths = sorted((root / RUNS_DIR).glob("*.json"))
    if ref == "last":
        if not paths:
            raise ValueError(f"'last' names the newest saved run, and {RUNS_DIR} under {root} holds none (save = true)")
        return paths[-1]
    by_id = [path for path in paths if path.stem.rpartition("-")[2].startswith(ref)] if len(ref) >= 4 else []
    if len(by_id) == 1:
        return by_id[0]
    for path in reversed(paths):
        saved = _saved(path)
        if saved is not None and saved.get("branch") == ref:
            return path
    if by_id:
        raise ValueError(f"{ref!r} starts the ids of {len(by_id)} saved runs; give more of it")
    return None


def baseline_path(ref: str, root: pathlib.Path) -> pathlib.Path:
    """The report ``--llmeval-baseline`` names: a file (relative to ``root``; any name ending ``.json`` or with a
    folder in it is one), else a saved run (`resolve_saved`); ``ValueError`` saying which it is not."""
    path = root / ref
    if path.exists() or ref.endswith(".json") or os.sep in ref or "/" in ref:  # a file: reading it says what is wrong
        return path
    found = resolve_saved(ref, root)
    if found is None:
        raise ValueError(
            f"{ref!r} is neither a report file nor a saved run (last, a saved run's id or a branch; "
            f"{len(list((root / RUNS_DIR).glob('*.json')))} saved under {root / RUNS_DIR})"
        )
    return found
