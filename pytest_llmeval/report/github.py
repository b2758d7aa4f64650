"""GitHub: the job's step summary, and the pull-request comment as one bounded Markdown file.

Under GitHub Actions (``GITHUB_ACTIONS=true``) a run appends its Markdown summary to the file that
``$GITHUB_STEP_SUMMARY`` names, with no flag (``-o llmeval_step_summary=off`` turns it off). A report directory
also receives ``comment.md``: the body of the pull-request comment, at most `COMMENT_LIMIT` characters
(GitHub refuses a comment over 65,536) whatever the run's size, the things that decide a review first: the
verdict against the baseline, the regressed rows, the failed checks; then the other compared rows and the
leaderboard, as far as they fit, each cut saying how many rows the report artifact holds besides.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .markdown import cell, judge_parts, model_of, opening
from .rows import Limits, ReportView

__all__ = [
    "COMMENT_LIMIT",
    "STEP_SUMMARY_LIMIT",
    "MARKER",
    "render_comment",
    "step_summary_path",
    "append_step_summary",
]

#: Characters of ``comment.md`` at most: under GitHub's 65,536 with room for the sticky comment's own marker.
COMMENT_LIMIT = 60_000

#: Bytes one step may add to the step summary (GitHub's limit is 1 MiB per step).
STEP_SUMMARY_LIMIT = 1_000_000

#: The first line of every comment: a hidden marker, so a comment can be found and updated.
MARKER = "<!-- pytest-llm-verdict -->"

#: Rows the comment takes from each long table before the size limit is even considered.
COMMENT_ROWS = Limits(flips=0, changes=1000, failures=200, results=0)

Section = tuple[list[str], list[str], str, int]  # (heading and table head, rows, what the rows are, how many there are)


def _headline(v: Any) -> list[str]:
    *first, headline = opening(v)  # where a verdict would stand, the comment says why there is none
    missing = (
        ["No baseline to compare with (no report of the base branch was found).", ""] if v.baseline is None else []
    )
    lines = [MARKER, "## LLM evaluation", "", *first, *missing, headline]
    if v.outcomes_line is not None:
        lines.append(f"Tests: {v.outcomes_line}.")
    return [*lines, ""]


def _sections(v: Any) -> list[Section]:
    sections: list[Section] = []
    base = v.baseline
    if base is not None and base.rows.total:
        head = "| check | measure | model | before | after | difference | interval | p (Holm) | cases |"
        rule = "|---|---|---|---:|---:|---:|---:|---:|---:|"

        def row(r: Any) -> str:
            return (
                f"| {cell(r.check)} | {cell(r.metric)} | {cell(r.model)} | {r.before} | {r.after} | {r.difference} "
                f"| {r.interval} | {r.p_value} | {r.cases} |"
            )

        regressed = [row(r) for r in base.rows.rows if r.verdict == "regressed"]
        if regressed:
            sections.append(
                (["### Regressed against the baseline", "", head, rule], regressed, "regressed rows", len(regressed))
            )
    notable = v.history.notable if v.history is not None else ()
    if notable:
        rows = [
            f"| {cell(h.check)} | {cell(h.metric)} | {cell(h.model)} | {h.trend} | {h.pass_rate} | "
            f"{cell(h.what, 300)} |"
            for h in notable
        ]
        sections.append(
            (
                [
                    "### Over the saved runs",
                    "",
                    "| check | metric | model | pass rate by run | last | what |",
                    "|---|---|---|---|---:|---|",
                ],
                rows,
                "rows drifting or falling",
                len(rows),
            )
        )
    if v.failures.total:
        rows = [
            f"| {cell(r.test, 80)} | {cell(r.model)} | {cell(r.check)} | {r.score} | {r.threshold} | "
            f"{'**new** ' if r.new else ''}{cell((f'({r.decided_by}) ' if r.decided_by else '') + r.reason, 160)} |"
            for r in v.failures.rows
        ]
        sections.append(
            (
                [
                    "### Failed checks",
                    "",
                    "| test | model | check | score | threshold | why |",
                    "|---|---|---|---:|---:|---|",
                ],
                rows,
                "failed checks",
                v.failures.total,
            )
        )
    if base is not None and base.rows.total:
        others = [
            f"| {r.verdict} | {cell(r.check)} | {cell(r.metric)} | {cell(r.model)} | {r.before} | {r.after} | "
            f"{r.difference} | {cell(r.note, 160)} |"
            for r in base.rows.rows
            if r.verdict != "regressed"
        ]
        if others:
            sections.append(
                (
                    [
                        "### Other rows against the baseline",
                        "",
                        "| verdict | check | measure | model | before | after | difference | note |",
                        "|---|---|---|---|---:|---:|---:|---|",
                    ],
                    others,
                    "compared rows",
                    len(others),
                )
            )
    said, table, spent = judge_parts(v)
    if spent:
        sections.append((["### Judge spend", "", *said, *table], spent, "checks that asked a judge", len(spent)))
    if v.leaderboard:
        rows = [
            f"| {cell(board.check)} | {cell(board.metric)} | {cell(r.model)} | {r.mean} | {r.ci} | {r.pass_rate} | "
            f"{r.count} |"
            for board in v.leaderboard
            for r in board.rows
        ]
        sections.append(
            (
                [
                    "### Leaderboard",
                    "",
                    "| check | metric | model | mean | CI | pass rate | n |",
                    "|---|---|---|---:|---:|---:|---:|",
                ],
                rows,
                "leaderboard rows",
                len(rows),
            )
        )
    return sections


def render_comment(
    report: ReportView | Mapping[str, Any],
    *,
    limit: int = COMMENT_LIMIT,
    artifact: str = "llmeval-report",
    environ: Mapping[str, str] | None = None,
) -> str:
    """The pull-request comment for ``report``: at most ``limit`` characters, the verdict and regressions first.

    Under GitHub Actions (``GITHUB_ACTIONS=true`` in ``environ``, by default the process's) it points to the
    ``artifact`` of the workflow run for the whole report; elsewhere to the reports written beside it."""
    v = model_of(report).limited(COMMENT_ROWS)
    if (os.environ if environ is None else environ).get("GITHUB_ACTIONS") == "true":
        footer = [
            f"<sub>The whole run (JSON, Markdown, HTML reports): the `{cell(artifact)}` artifact of this workflow "
            "run.</sub>"
        ]
        where = "the report artifact"
    else:
        footer = ["<sub>The whole run: the JSON, Markdown and HTML reports written beside this comment.</sub>"]
        where = "the full report"
    lines = _headline(v)
    used = sum(len(line) + 1 for line in lines + footer)
    if used > limit:  # only a pathological interruption line could do this: keep the marker and say so
        return f"{MARKER}\n## LLM evaluation\n\nThe summary does not fit a comment; see {where}.\n"
    budget = limit - used  # what the sections may take, every line counted with its newline

    def size(new: list[str]) -> int:
        return sum(len(line) + 1 for line in new)

    for head, rows, what, total in _sections(v):
        cut = [f"_{total} more {what} (of {total}) are in {where}._", ""]  # the longest the cut line gets
        if not rows or size(head) + size(rows[:1]) + size([""]) + size(cut) > budget:
            skipped = [f"_{head[0].lstrip('# ')}: {total} {what} left out for length; see {where}._", ""]
            if size(skipped) <= budget:
                lines += skipped
                budget -= size(skipped)
            continue
        lines += head
        budget -= size(head)
        shown = 0
        for row in rows:
            if size([row]) + size([""]) + size(cut) > budget:
                break
            lines.append(row)
            budget -= size([row])
            shown += 1
        lines.append("")
        budget -= 1
        if total > shown:
            note = [f"_{total - shown} more {what} (of {total}) are in {where}._", ""]
            lines += note
            budget -= size(note)
    return "\n".join(lines + footer) + "\n"


def step_summary_path(setting: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The file to append the step summary to, or ``None``: ``auto`` writes under GitHub Actions only."""
    env = os.environ if environ is None else environ
    if setting == "off":
        return None
    path = env.get("GITHUB_STEP_SUMMARY", "")
    if setting == "auto" and env.get("GITHUB_ACTIONS") != "true":
        return None
    return path or None


def append_step_summary(report: ReportView | Mapping[str, Any], path: str) -> None:
    """Append the run's Markdown summary to ``path``; the comment's bounded form when the full one is too large."""
    from ..text.basics import replace_surrogates
    from .markdown import render

    model = model_of(report)
    text = replace_surrogates(render(model))
    if len(text.encode("utf-8")) > STEP_SUMMARY_LIMIT:
        text = replace_surrogates(render_comment(model, limit=STEP_SUMMARY_LIMIT // 4))
    with open(path, "a", encoding="utf-8", newline="\n") as stream:
        stream.write(text if text.endswith("\n") else text + "\n")
