"""Every setting of the plugin, declared once: `OPTIONS`, one `Option` each (Settings field, parser, default, help),
in the order of ``--help`` and docs/options.md; the judge's settings come last, from
`pytest_llmeval.harness.judge_options`. `pytest_llmeval.harness.options` registers them and reads them into
`Settings`."""

from __future__ import annotations

from ..models.config import DEFAULT_EMBEDDING_MODEL, parse_verifier
from .judge_options import JUDGE_OPTIONS
from .option import Option
from .values import (
    choice_parser,
    device_setting,
    floor_parser,
    number_parser,
    optional_number_parser,
    parse_band,
    parse_boolean,
    parse_defer,
    parse_floors,
    parse_kinds,
    parse_names,
    parse_text,
    parse_threshold,
    parse_url,
    precision_setting,
    repeat_setting,
)

__all__ = ["OPTIONS"]


# Help texts: capitalised, no trailing period (as pytest and xdist write them).
OPTIONS: tuple[Option, ...] = (
    Option(
        "report",
        parse_text,
        "",
        "Write llmeval reports to PATH: a .json, .md or .html file, or a directory that receives "
        "report.json, report.md, report.html and comment.md, a pull-request comment (repeatable)",
        "PATH",
        many=True,
        short="Write reports: a .json/.md/.html file or a folder (repeatable)",
    ),
    Option(
        "thresholds",
        parse_threshold,
        "",
        "Override a threshold, as EVALUATOR.METRIC=NUMBER, e.g. rouge.rougeL=0.4 "
        "(repeatable; the command line wins over the ini file, a threshold passed in the test wins over both)",
        "EVALUATOR.METRIC=NUMBER",
        flag="--llmeval-threshold",
        many=True,
        short="Override a threshold, e.g. rouge.rougeL=0.4 (repeatable)",
    ),
    Option(
        "unverified",
        choice_parser("pass", "fail", "skip"),
        "pass",
        "What a check's unverified verdict does to its test (an answer with no evidence against it that the check "
        "could not confirm offline): pass, fail or skip; a check's unverified= argument wins",
        "ACTION",
        short="What an unverified verdict does: pass, fail or skip",
    ),
    Option(
        "fail_on",
        parse_kinds,
        "",
        "Evidence kinds that fail a check with a fail_on parameter (groundedness), comma-separated "
        "(number, changed_number, name, negation, role_swap ...), 'all' or 'none'; the other kinds only warn and leave "
        "the answer unverified (default: the kinds measured precise enough on support-labeled data, docs/quality.md; "
        "a check's fail_on= wins)",
        "KINDS",
        short="Evidence kinds that fail (groundedness): KINDS, all or none",
    ),
    Option("summary", parse_boolean, "true", "Show the llmeval leaderboard in the terminal summary", "BOOL"),
    Option(
        "step_summary",
        choice_parser("auto", "on", "off"),
        "auto",
        "Append the Markdown summary to the file $GITHUB_STEP_SUMMARY names: auto (under GitHub Actions), on or off",
        "WHEN",
    ),
    Option(
        "device",
        device_setting,
        "auto",
        "Device for models: auto (cuda, then mps, then cpu), cpu, mps, cuda or cuda:N",
        "DEVICE",
        short="Model device: auto, cpu, mps, cuda or cuda:N",
    ),
    Option(
        "precision",
        precision_setting,
        "auto",
        "Model precision: auto (fp16 on CUDA, else fp32), fp32 or fp16",
        "PRECISION",
    ),
    Option(
        "cache_dir",
        parse_text,
        ".llmeval_cache",
        "Folder of the embedding cache in the rootdir, or 'off'",
        "DIR",
        short="Embedding and parse cache folder, or off",
    ),
    Option(
        "embedding_model",
        parse_text,
        DEFAULT_EMBEDDING_MODEL,
        "Embedding model: a sentence-transformers name or local folder (the default is embedded); with "
        "llmeval_embedding_url, the model name sent to the server",
        "MODEL",
    ),
    Option(
        "embedding_url",
        parse_url,
        "",
        "Base URL of an OpenAI-compatible embeddings endpoint (vLLM, text-embeddings-inference, "
        "Ollama, llama.cpp, OpenAI) that every worker and shard asks instead of loading a model: http://HOST:PORT/v1 "
        "(a URL without a path means /v1)",
        "URL",
    ),
    Option(
        "embedding_api_key_env",
        parse_text,
        "OPENAI_API_KEY",
        "Name of the environment variable holding the embedding server's API key (sent only when set)",
        "NAME",
    ),
    Option(
        "models",
        parse_names,
        "",
        "Models under test, comma-separated: tests using the llmeval_model fixture run once per model",
        "A,B",
        short="Models under test (llmeval_model fixture), comma-separated",
    ),
    Option(
        "flip_delta",
        optional_number_parser("a non-negative number, e.g. 0.2"),
        "",
        "Also count a perturbation flip when the score moves more than this, pass or fail alike (default: off)",
        "DELTA",
    ),
    Option(
        "baseline",
        parse_text,
        "",
        "Compare this run with a JSON report of an earlier run, or a saved run (save = true): last, its id, or a "
        "branch's newest: a paired test per leaderboard row (regressed, improved, unchanged or inconclusive) in the "
        "summary and reports",
        "REPORT.json|last|ID|BRANCH",
        short="Compare with an earlier run's JSON report, or a saved run: last, an id, a branch",
    ),
    Option(
        "save",
        parse_boolean,
        "false",
        "Save the run's JSON report under .llmeval/runs/ with its commit, branch and time (the last 20 runs and the "
        "last run of each of 60 days are kept), and show each check's history over the saved runs with drift "
        "flagged (llmeval history prints it); --llmeval-baseline=last, a saved run's id or a branch then compares "
        "with one",
        "BOOL",
    ),
    Option(
        "baseline_tolerance",
        number_parser("a number from 0 to 1", low=0.0, high=1.0),
        "0.05",
        "The equivalence margin, on the pass rate's or mean's scale: a leaderboard row whose difference's interval "
        "lies within +-DELTA is unchanged (a significant one-sided change is regressed or improved whatever its size)",
        "DELTA",
    ),
    Option(
        "fail_on_regression",
        parse_boolean,
        "false",
        "Fail the run when a leaderboard row regressed significantly against the "
        "baseline (paired test per row, Holm-corrected at gate.alpha)",
        flag="--llmeval-fail-on-regression",
        short="Fail the run when a row regressed against the baseline",
    ),
    Option(
        "alpha",
        number_parser("a number between 0 and 1, e.g. 0.05", low=1e-9, high=0.5),
        "0.05",
        "Significance level of the baseline comparison (over all rows) and level of every interval (0.05: 95 percent "
        "intervals)",
        "ALPHA",
    ),
    Option(
        "max_unverified",
        number_parser("a share from 0 to 1, e.g. 0.5", low=0.0, high=1.0),
        "1",
        "The share of a leaderboard row's results that may be unverified before the run's gate is indeterminate "
        "(measured too little to gate on); 1 switches it off",
        "SHARE",
    ),
    Option(
        "max_errors",
        number_parser("a share from 0 to 1, e.g. 0.05", low=0.0, high=1.0),
        "0",
        "The share of a row's results that may have measured nothing (the check or its judge failed, an unusable judge "
        "reply, a judge that could not decide an escalated answer) before the run's gate is indeterminate",
        "SHARE",
    ),
    Option(
        "indeterminate",
        choice_parser("fail", "pass"),
        "fail",
        "What an indeterminate gate does to the run: fail (exit 1; a judge outage is never a green run) or pass "
        "(reported only)",
        "ACTION",
    ),
    Option(
        "min_pass_rate",
        floor_parser("pass rate", "gate.min_pass_rate"),
        "",
        "A floor on a row's pass rate, as CHECK[:MODEL]=RATE (repeatable): the run fails when the row's whole interval "
        "is below it; inconclusive rows are reported with the cases that would decide them",
        "CHECK[:MODEL]=RATE",
        many=True,
    ),
    Option(
        "min_mean",
        floor_parser("mean", "gate.min_mean"),
        "",
        "A floor on a row's primary mean, as CHECK[:MODEL]=VALUE (repeatable), judged like gate.min_pass_rate",
        "CHECK[:MODEL]=VALUE",
        many=True,
    ),
    Option(
        "gate",
        choice_parser("per-test", "aggregate", "strict"),
        "per-test",
        "per-test: a failing check fails its test; aggregate: a failing check is recorded and its test passes, and the "
        "run fails only on a significant regression against the baseline (or a replayed case that passed in it and "
        "fails now) or a row below its floor (tests that raise still fail); strict: as aggregate, and any case that "
        "passed in the baseline and fails now fails the run (golden cases)",
        "MODE",
        short="per-test (a failing check fails its test), aggregate or strict",
    ),
    Option(
        "defer",
        parse_defer,
        "auto,100,10",
        "auto: a test that needs no verdict at once (--llmeval-gate=aggregate, "
        "@pytest.mark.llmeval(defer=True), the llmeval_deferred fixture) queues its checks, scored in batches across "
        "tests "
        "every TESTS tests or SECONDS seconds and at the end, its report held until then; off: every check scores "
        "where it is called",
        "MODE[,TESTS,SECONDS]",
        short="Score queued checks in batches: auto or off[,TESTS,SECONDS]",
    ),
    Option(
        "record_mode",
        choice_parser("none", "once", "new_episodes", "all"),
        "none",
        "Cassettes of a test's own model calls (@pytest.mark.llmeval(record=True), the llmeval_cassette fixture): none "
        "(replay only; a request not recorded fails the test), once, new_episodes or all (record everything again)",
        "MODE",
        short="Cassettes of model calls: none, once, new_episodes or all",
    ),
    Option(
        "record_secrets",
        parse_text,
        "",
        "An environment variable whose value never reaches a cassette (repeatable; the API "
        "key variables are always redacted)",
        "NAME",
        many=True,
    ),
    Option(
        "repeat",
        repeat_setting,
        "1",
        "Run every test N times as N draws of one case (a test's @pytest.mark.llmeval(repeat=N) wins); reports group "
        "the "
        "draws under the case, with per-case pass rates, pass@k, pass^k and flaky cases. auto[:MAX] (MAX 5): draw a "
        "case again only while its K-of-MAX verdict is undecided (K: min_pass, else a majority)",
        "N|auto[:MAX]",
        short="Run every test N times, or auto[:MAX] until decided",
    ),
    Option(
        "min_pass",
        number_parser("an integer from 1 to 1000", 1, 1000, int, none=""),
        "",
        "With repeats: a case passes when at least K of its draws pass (a test's @pytest.mark.llmeval(min_pass=K) "
        "wins); its draws record their checks without failing, and one draw's test reports the case's failure",
        "K",
    ),
    Option(
        "calibrate",
        parse_text,
        "",
        "Calibration run: run each labeled row of this file (the dataset format of cases(), plus "
        "'label': good or bad, and 'check') through its check with the configuration in force, instead of the tests; "
        "report agreement and Cohen's kappa per check and tier, and write the calibration record",
        "LABELS.jsonl",
        short="Run labeled rows instead of the tests and write calibration",
    ),
    Option(
        "calibrate_check",
        parse_text,
        "",
        "The check every row of the calibration labels file calibrates (a row's 'check' wins)",
        "NAME",
    ),
    Option(
        "calibration_file",
        parse_text,
        "llmeval-calibration.json",
        "The calibration record, written by a calibration run and read by calibration.required (meant to be committed)",
        "PATH",
    ),
    Option(
        "require_calibration",
        parse_boolean,
        "false",
        "A check without a calibration of its signature at the floors (calibration.floors) is diagnostic: its "
        "verdicts are recorded and shown and fail neither a test nor the gate",
        "BOOL",
    ),
    Option(
        "calibration_floors",
        parse_floors,
        "min_kappa=0.6,min_rows=50",
        "What a calibration must show before its check may gate: min_kappa, min_rows and min_precision, "
        "comma-separated",
        "NAME=VALUE,...",
    ),
    Option(
        "calibration_precision",
        number_parser("a share above 0 and at most 1, e.g. 0.9", low=1e-9, high=1.0),
        "0.9",
        "The failure precision a calibration's threshold suggestion aims at (printed, never applied)",
        "SHARE",
    ),
    Option(
        "verifier",
        parse_verifier,
        "off",
        "The plugin's claim verifier decides the unverified answers of checks that read an answer "
        "against its context (groundedness), before a detector or judge: on (the shipped one), off, or a retrained "
        "one's folder",
        "on|off|FOLDER",
        short="Claim verifier tier: on, off or a retrained folder",
    ),
    Option(
        "detector",
        parse_text,
        "",
        "A local model that decides the unverified answers of checks that read an answer against its "
        "context (groundedness) before any judge: FAMILY:MODEL, FAMILY token (LettuceDetect), sequence (HHEM, "
        "MiniCheck) or nli, MODEL a hub name or local folder (a call's detector= wins)",
        "FAMILY:MODEL",
        short="Local detector tier: FAMILY:MODEL (HHEM, MiniCheck, nli...)",
    ),
    Option(
        "detector_band",
        parse_band,
        "0.5,0.5",
        "The detector's support below LOW fails an answer, at or above HIGH passes it; "
        "between, it stays unverified for the judge",
        "LOW,HIGH",
    ),
    *JUDGE_OPTIONS,
)
