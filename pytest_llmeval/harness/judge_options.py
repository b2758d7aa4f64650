"""The judge's settings (``[tool.llmeval.judge]``) and ``offline``: the last rows of `OPTIONS`
(`pytest_llmeval.harness.option_table`), in their order there."""

from __future__ import annotations

from .option import Option
from .values import (
    choice_parser,
    number_parser,
    parse_boolean,
    parse_judge_for,
    parse_model_price,
    parse_price,
    parse_spend,
    parse_text,
)

__all__ = ["JUDGE_OPTIONS"]

JSON_MODES = ("auto", "schema", "object", "none")


# Help texts: capitalised, no trailing period (as pytest and xdist write them).
JUDGE_OPTIONS: tuple[Option, ...] = (
    Option(
        "judge_model",
        parse_text,
        "",
        "Judge model on an OpenAI-compatible endpoint (judge checks are skipped without one)",
        "MODEL",
        short="Judge model on an OpenAI-compatible endpoint",
    ),
    Option(
        "judge_for",
        parse_judge_for,
        "",
        "Judge one check with another model, as EVALUATOR=MODEL (repeatable; same endpoint, "
        "cache and settings; the model is in that check's signature)",
        "EVALUATOR=MODEL",
        many=True,
    ),
    Option(
        "judge_base_url",
        parse_text,
        "",
        "Base URL of the judge's OpenAI-compatible endpoint (default: the OpenAI API)",
        "URL",
    ),
    Option(
        "judge_api_key_env",
        parse_text,
        "OPENAI_API_KEY",
        "Name of the environment variable holding the judge's API key",
        "NAME",
    ),
    Option(
        "judge_cache",
        choice_parser("record", "replay", "off"),
        "record",
        "Judge verdict cache: record (replay what is recorded, ask and record the rest), replay (a missing verdict "
        "fails the check), off",
        "MODE",
    ),
    Option(
        "judge_dir", parse_text, "llmeval_judge", "Folder of the recorded judge verdicts, meant to be committed", "DIR"
    ),
    Option(
        "judge_price",
        parse_price,
        "0,0",
        "Judge price per million tokens, PROMPT,COMPLETION (e.g. 0.15,0.60), for the cost totals",
        "PROMPT,COMPLETION",
    ),
    Option(
        "judge_prices",
        parse_model_price,
        "",
        "Judge price per million tokens of one model, MODEL=PROMPT,COMPLETION (repeatable; in the table "
        '{ "gpt-4o" = "2.5,10" }); a judge model not listed costs judge.price. No price is built in',
        "MODEL=PROMPT,COMPLETION",
        many=True,
    ),
    Option(
        "judge_spend_limit",
        parse_spend,
        "",
        "Most a run may spend on new judge calls, as '200 calls', '50000 tokens' or '5 USD' (USD from judge.price); "
        "past it no call is made and the answers it would decide stay unverified (workers share it; replayed "
        "verdicts are free). Not judge.budget, the seconds of one request",
        "AMOUNT UNIT",
    ),
    Option(
        "judge_json_mode",
        choice_parser(*JSON_MODES),
        "auto",
        "Judge structured output: auto (JSON schema, falling back to JSON object, then free text), schema, object, "
        "none",
        "MODE",
    ),
    Option(
        "judge_repeats",
        number_parser("an integer from 1 to 100", 1, 100, int),
        "1",
        "Judge each judge check N times (each repeat recorded) and score the mean, so a flickering judge shows; use "
        "with a temperature above 0",
        "N",
    ),
    Option(
        "judge_temperature",
        number_parser("a number from 0 to 2", 0.0, 2.0),
        "0",
        "Judge sampling temperature (part of every verdict's key)",
        "T",
    ),
    Option(
        "judge_seed",
        number_parser("an integer, or 'none' to send no seed", kind=int, none="none"),
        "0",
        "Judge sampling seed, or none (part of every verdict's key)",
        "SEED",
    ),
    Option(
        "judge_max_tokens",
        number_parser("a positive integer", 1, None, int),
        "1024",
        "Judge reply token limit (part of every verdict's key)",
        "N",
    ),
    Option(
        "judge_max_concurrency",
        number_parser("an integer from 1 to 256", 1, 256, int),
        "4",
        "Judge requests in flight at once, per process",
        "N",
    ),
    Option(
        "judge_timeout",
        number_parser("a positive number of seconds", 0.001),
        "60",
        "Seconds before a judge request times out and is retried",
        "SECONDS",
    ),
    Option(
        "judge_retries",
        number_parser("an integer from 0 to 10", 0, 10, int),
        "3",
        "Times a judge request is asked again after a timeout, a lost connection, 408, 409, 429, 5xx or an unreadable "
        "reply, while judge.budget lasts",
        "N",
    ),
    Option(
        "judge_budget",
        number_parser("a positive number of seconds", 0.001),
        "120",
        "Seconds one judge request may take, its retries and their waits included (never less than one "
        "judge.timeout); a judge that times out 3 requests in a row is not asked again this run",
        "SECONDS",
    ),
    Option(
        "judge_prefetch",
        parse_boolean,
        "false",
        "In tests parametrized from cases(...), ask the next tests' judge verdicts together in the background when "
        "every field a judge check reads comes from the case (they are cached for those tests)",
        "BOOL",
    ),
    Option(
        "offline",
        parse_boolean,
        "false",
        "Never call a judge: replay recorded verdicts and skip judge checks that need a new one",
        flag="--llmeval-offline",
        short="Never call a judge: replay recorded verdicts",
    ),
)
