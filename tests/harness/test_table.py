"""The ``[tool.llmeval]`` table: every setting is a key of it, read and checked as a user writes it; the command line
keeps what changes from run to run and stays short."""

from __future__ import annotations

import fnmatch
import json
import re

import pytest

from pytest_llmeval.harness.options import OPTIONS, load_settings
from pytest_llmeval.harness.table import place

TABLE = """
[tool.llmeval]
unverified = "fail"
summary = false
models = ["small", "large"]
fail_on = ["number", "name"]

[tool.llmeval.judge]
model = "gpt-4o-mini"
retries = 1
budget = 30.5
for = { faithfulness = "gpt-4o" }
price = [0.15, 0.6]

[tool.llmeval.gate]
mode = "aggregate"
min_pass_rate = ["groundedness=0.8"]
alpha = 0.01

[tool.llmeval.calibration]
required = true
floors = { min_kappa = 0.5, min_rows = 20 }

[tool.llmeval.thresholds]
groundedness = { support = 0.75 }
"rouge.rougeL" = 0.4
"""


def settings(pytester: pytest.Pytester, toml: str, *args: str, ini: str = ""):
    pytester.makepyprojecttoml(toml + ini)
    return load_settings(pytester.parseconfig(*args), environ={})


def test_the_table_and_its_sub_tables_set_the_run(pytester):
    got = settings(pytester, TABLE)
    assert (got.unverified, got.summary, got.models, got.fail_on) == (
        "fail",
        False,
        ("small", "large"),
        ("number", "name"),
    )
    assert (got.judge_model, got.judge_retries, got.judge_budget, got.judge_for) == (
        "gpt-4o-mini",
        1,
        30.5,
        (("faithfulness", "gpt-4o"),),
    )
    assert got.judge_price == (0.15, 0.6) and got.gate == "aggregate" and got.alpha == 0.01
    assert [(f.check, f.value) for f in got.min_pass_rate] == [("groundedness", 0.8)]
    assert got.require_calibration is True and dict(got.calibration_floors) == {"min_kappa": 0.5, "min_rows": 20}
    assert got.thresholds == (("groundedness", "support", 0.75), ("rouge", "rougeL", 0.4))
    assert got.sources["judge_retries"] == "config file" and got.sources["device"] == "default"


def test_the_command_line_and_the_environment_win_over_the_table(pytester):
    pytester.makepyprojecttoml(TABLE)
    config = pytester.parseconfig("--llmeval-unverified=skip", "--llmeval-threshold=groundedness.support=0.9")
    got = load_settings(config, environ={"LLMEVAL_JUDGE_BUDGET": "2"})
    assert (got.unverified, got.judge_budget) == ("skip", 2.0)
    assert got.thresholds[-1] == ("groundedness", "support", 0.9)  # merged, the command line's last


@pytest.mark.parametrize(
    ("toml", "said"),
    [
        (
            "[tool.llmeval]\nunverifed = 'fail'\n",
            "llmeval: unknown key 'unverifed' in [tool.llmeval] of *pyproject.toml; allowed: *unverified*",
        ),
        (
            "[tool.llmeval.judge]\nretry = 1\n",
            "llmeval: unknown key 'retry' in [tool.llmeval.judge] of *; allowed: api_key_env, base_url, budget,*",
        ),
        (
            "[tool.llmeval.jugde]\nmodel = 'x'\n",
            "llmeval: unknown key 'jugde' in [tool.llmeval] of *; allowed: *judge (table)*",
        ),
        (
            "[tool.llmeval]\njudge = 'gpt-4o'\n",
            "llmeval: judge in [tool.llmeval] of * must be a table ([tool.llmeval.judge]); its keys: *model*",
        ),
        (
            "[tool.llmeval.judge]\nretries = 11\n",
            "judge.retries in [tool.llmeval] of *: expected an integer from 0 to 10; got '11'",
        ),
        (
            "[tool.llmeval.thresholds]\ngroundedness = 0.7\n",
            "thresholds in *: invalid threshold 'groundedness=0.7': expected EVALUATOR.METRIC=NUMBER*",
        ),
        ("[tool.llmeval\n", "*pyproject.toml: Expected ']' at the end of a table declaration*"),  # pytest's own reading
    ],
)
def test_a_bad_key_or_value_is_one_line_naming_it(pytester, toml, said):
    pytester.makepyprojecttoml(toml)
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1, result.stderr.lines
    pattern = "ERROR: " + re.sub(r"[\[\]]", lambda m: f"[{m.group()}]", said)  # brackets as themselves
    assert fnmatch.fnmatch(errors[0], pattern), errors[0]


def test_a_setting_in_the_table_and_the_ini_file_is_an_error(pytester):
    with pytest.raises(
        pytest.UsageError,
        match=r"judge\.retries in \[tool\.llmeval\] of .* is also set as llmeval_judge_retries "
        r"in the ini file \(or -o\); keep one",
    ):
        settings(pytester, "[tool.llmeval.judge]\nretries = 1\n", "-o", "llmeval_judge_retries=2")


def test_every_setting_is_a_table_key_that_reaches_the_run():
    """Each option, written at its place (its default where that is a value), is read from the table."""
    samples = {
        "report": '["out"]',
        "thresholds": "{ rouge = { rougeL = 0.4 } }",
        "fail_on": '["name"]',
        "summary": "false",
        "device": '"cpu"',
        "precision": '"fp32"',
        "models": '["a"]',
        "flip_delta": "0.2",
        "baseline": '"b.json"',
        "fail_on_regression": "true",
        "max_unverified": "0.5",
        "max_errors": "0.1",
        "indeterminate": '"pass"',
        "min_pass_rate": '["g=0.5"]',
        "min_mean": '["g=0.5"]',
        "gate": '"aggregate"',
        "defer": '"off"',
        "record_mode": '"once"',
        "record_secrets": '["TOKEN"]',
        "repeat": "3",
        "min_pass": "2",
        "calibration_floors": '"min_kappa=0.5"',
        "require_calibration": "true",
        "detector": '"nli:x"',
        "detector_band": "[0.3, 0.7]",
        "judge_for": '{ faithfulness = "m" }',
        "judge_price": '"1,2"',
        "judge_spend_limit": '"5 USD"',
        "judge_prices": '{ "gpt-4o" = "2.5,10" }',
        "judge_json_mode": '"none"',
        "judge_seed": '"none"',
        "judge_prefetch": "true",
        "offline": "true",
        "verifier": '"on"',
        "unverified": '"fail"',
        "step_summary": '"off"',
        "embedding_url": '"http://x:1/v1"',
    }
    import pathlib
    import tempfile

    from _pytest.config import get_config

    for option in OPTIONS:
        value = samples.get(option.key) or (json.dumps(option.default) if option.default else '"x"')
        table, _, key = place(option.key).rpartition(".")
        header = f"[tool.llmeval.{table}]" if table else "[tool.llmeval]"
        with tempfile.TemporaryDirectory() as folder:
            path = pathlib.Path(folder)
            (path / "pyproject.toml").write_text(f"{header}\n{key} = {value}\n", encoding="utf-8")
            config = get_config([])
            config.parse([str(path), f"--rootdir={path}", "-p", "no:cacheprovider"], addopts=False)
            got = load_settings(config, environ={})
            assert got.sources[option.key] == "config file", option.key


def test_help_lists_twenty_flags_at_most_in_under_sixty_lines(pytester):
    lines = pytester.runpytest("--help").stdout.lines
    start = next(i for i, line in enumerate(lines) if line.startswith("LLM evaluation (pytest-llm-verdict)"))
    end = next(i for i in range(start, len(lines)) if not lines[i].strip())
    group = lines[start:end]
    assert len(group) < 60 and sum(line.startswith("  --llmeval-") for line in group) <= 20, "\n".join(group)
