"""The example suite a newcomer runs first (README's main command) ends clean: no xpassed test, every expected failure
strict and explained, and the leaderboard shows those failures as expected."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
README = Path(__file__).resolve().parents[1] / "README.md"
INDEX = Path(__file__).resolve().parents[1] / "docs" / "index.md"


def readme_sample(page: Path = README) -> list[str]:
    """The summary README.md (or another ``page``) shows for the example suite, as fnmatch patterns: its lines but the
    "..." that stands for
    rows left out, the counts of the model and parse caches (they depend on what the disk cache holds) and a check's
    parameter digest masked, and the report directory README's command names replaced by this test's."""
    text = page.read_text(encoding="utf-8")
    block = text[text.rindex("\n", 0, text.index("= llmeval summary =")) + 1 :]
    block = block[: block.index("```")]
    lines = []
    for line in block.splitlines():
        if not line.strip() or line.strip() == "...":
            continue
        pattern = re.sub(r"([][?*])", r"[\1]", line).replace("llmeval-report/", "out/")
        if line.startswith(("llmeval models:", "llmeval parses:")):
            pattern = re.sub(r"\d+", "*", pattern)
        pattern = re.sub(r"#[0-9a-f]{6}\b", "#*", pattern)  # a check's parameters, digested
        lines.append(pattern)
    return lines


@pytest.mark.subprocess
def test_the_example_suite_ends_clean(model_stack, pytester):
    for path in EXAMPLES.iterdir():
        if path.suffix in (".py", ".jsonl"):
            shutil.copy(path, pytester.path / path.name)
    result = pytester.runpytest("-p", "no:randomly", "-rxX", "--llmeval-report=out")
    assert result.ret == 0
    # README and the docs' home page show the end of this run: its lines, in order (the model cache's counts masked).
    result.stdout.fnmatch_lines(readme_sample())
    result.stdout.fnmatch_lines(readme_sample(INDEX))
    outcomes = result.parseoutcomes()
    assert outcomes.get("xpassed", 0) == 0 and outcomes["xfailed"] == 17
    xfails = [line for line in result.stdout.lines if line.startswith("XFAIL")]
    assert len(xfails) == 17 and all(" - " in line for line in xfails)  # each one explained
    # The claim verifier's example leaves its reworded answer unverified (docs/verifier.md): one unverified check.
    result.stdout.fnmatch_lines(["*checks on 3 models: * passed (*), 1 unverified, 17 expected failures (xfail)"])
    summary = json.loads((pytester.path / "out" / "report.json").read_text())["summary"]
    assert summary["expected_failures"] == 17
    # the 3 on perturbed inputs are no leaderboard row
    assert sum(row["expected"] for row in summary["leaderboard"]) == 14
    assert summary["hardest_case"] is None or summary["hardest_case"]["case_id"] != "tower-facts"
    markdown = (pytester.path / "out" / "report.md").read_text()
    assert "17 expected failures (xfail)" in markdown and "## Expected failures (xfail)" in markdown
    assert "## Failed checks" not in markdown  # every failure was expected
    html = (pytester.path / "out" / "report.html").read_text()
    assert "fail · expected (xfail)" in html and "3 expected (xfail)" in html  # tiny-chat's rouge cell


def test_every_example_xfail_is_strict():
    for path in EXAMPLES.glob("test_*.py"):
        text = path.read_text(encoding="utf-8")
        assert "strict=False" not in text and text.count("pytest.mark.xfail(") == text.count("strict=True"), path.name
