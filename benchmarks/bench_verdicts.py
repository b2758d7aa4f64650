"""How often a check's verdict is right, measured on labeled data the way users run it.

Run by hand (nothing of the data is committed; paths are arguments)::

    python benchmarks/bench_verdicts.py                       # ../shared/data + benchmarks/data
    python benchmarks/bench_verdicts.py --data DIR --entities rules --workers 2 --json out.json
    python benchmarks/bench_verdicts.py --nli-model ~/models/nli-deberta-v3-base   # adds method="nli"
    python benchmarks/bench_verdicts.py --judge-model M --judge-url http://127.0.0.1:8080/v1   # a judge decides
    python benchmarks/bench_verdicts.py --scripted-judge      # which answers reach a judge (its verdicts mean nothing)
    python benchmarks/bench_verdicts.py --verifier on         # adds the claim verifier's rows (on: the shipped one)

Each labeled answer becomes one parametrized pytest test that calls the check's
``assert_*`` form (``assert_check``); the script runs pytest on them, first to
last, with ``--llmeval-report`` and reads every verdict and score back from the
JSON report. A check says *pass*, *fail* (on named evidence) or *unverified* (no
evidence against the answer, not enough to confirm it offline; it passes the test
by default). Per check, scoring setup and data set it prints:

- good answers failed (the share of good answers whose verdict is fail), bad
  answers caught (the share of bad ones whose verdict is fail), and how often a
  failure is right (failure precision: bad answers among the failed);
- the share of all answers left unverified, and with a judge set, the share that
  went to it (escalated);
- balanced accuracy, the mean of "good not failed" and "bad caught" (unverified
  counts as not failed: it is what the default run does with it);
- AUC of the primary metric (answers failing on evidence rank below every other
  answer), and the threshold of the primary metric that would maximise balanced
  accuracy were low scores failures (a diagnostic, not the verdict).

With ``--verifier``, groundedness's default rows run a second time through pytest with
``--llmeval-verifier`` (setup ``rules then verifier``: the claim verifier decides what the
rules leave unverified), and the verifier reads every answer of those sets by itself
(setup ``verifier alone``: `pytest_llmeval.models.verifier.Verifier.detect` called
directly, in batches, not through pytest; its AUC is that of its support score). It also
times the verifier: cold load, claims per second and the process's peak memory.

Labeled data (an evidence kind's right to fail is gated on the sets in ``SUPPORT_SETS``, whose
labels judge support by the given context alone; the others are measured and shown):

- HaluEval QA (``halueval_qa_dev.jsonl`` and ``halueval_qa_multi_dev.jsonl``): the
  right answer is good, each hallucinated answer bad; context = [knowledge],
  question given.
- HaluEval summarization (``halueval_summarization_dev.jsonl``): the right summary
  good, the hallucinated one bad; context = [document], no question.
- HaluEval dialogue (``halueval_dialogue_dev.jsonl``): the right response good, the
  hallucinated one bad; context = [knowledge], question = the last ``[Human]:`` turn
  (a right response is right about the world, not always grounded in the knowledge).
- QAGS CNN/DM (``qags_cnndm.jsonl``): a summary is good when every sentence has a
  majority "yes" (consistent with the article); context = [article].
- Real model answers with human support labels, one claim a row (``expertqa_dev.jsonl``,
  ``factcheckgpt_dev.jsonl``, ``attributionbench_dev.jsonl``): good = fully supported
  (attributable); context = the cited passage(s), question given.
- SummEdits (``summedits_dev.jsonl``): an LLM-edited summary is good when people found it
  consistent with the document; context = [document], no question; a bad summary's
  edited words are its labeled spans.
- ``benchmarks/data/grounded_pairs.jsonl`` (ours): paraphrased faithful answers and
  hallucinated ones (fabricated facts, swapped entities, unsupported claims, negation).
- ``benchmarks/data/similarity_pairs.jsonl`` (ours): a paraphrase of the expected
  answer is good, the same answer with one fact changed bad (answer accuracy,
  semantic similarity, sentence similarity).
- The same pairs shuffled (ours): a paraphrase against its own reference (good) or
  the next row's (bad), for the similarity scores and BERTScore.
- Relevancy, built from HaluEval: a question with its own knowledge (good) or the
  next row's (bad) for context relevancy; with its own hallucinated answer (on
  topic, good) or the next row's (bad) for answer relevancy.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from pytest_llmeval.core.result import verdict_of

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")
OWN_DATA = os.path.join(HERE, "data")

TEST_MODULE = """
import json
import pytest
from pytest_llmeval import assert_check

with open({path!r}, encoding="utf-8") as handle:
    ROWS = [json.loads(line) for line in handle]


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_verdict(row):
    assert_check(row["check"], params=row["params"], case=row["id"], **row["fields"])
"""


# -- labeled rows ---------------------------------------------------------------------------


def _jsonl(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def halueval(data: str) -> Iterator[tuple[str, bool, dict[str, Any]]]:
    one = _jsonl(os.path.join(data, "halueval_qa_dev.jsonl"))
    multi = _jsonl(os.path.join(data, "halueval_qa_multi_dev.jsonl"))
    for index, (row, other) in enumerate(zip(one, multi)):
        fields = {"context": [row["knowledge"]], "question": row["question"]}
        yield f"halu{index}-right", True, {**fields, "actual": row["right_answer"]}
        yield f"halu{index}-hallucinated", False, {**fields, "actual": row["hallucinated_answer"]}
        yield f"halu{index}-hallucinated-multi", False, {**fields, "actual": other["hallucinated_answer"]}


def summaries(data: str) -> Iterator[tuple[str, bool, dict[str, Any]]]:
    for index, row in enumerate(_jsonl(os.path.join(data, "halueval_summarization_dev.jsonl"))):
        fields = {"context": [row["document"]]}
        yield f"summ{index}-right", True, {**fields, "actual": row["right_summary"]}
        yield f"summ{index}-hallucinated", False, {**fields, "actual": row["hallucinated_summary"]}


def dialogue(data: str) -> Iterator[tuple[str, bool, dict[str, Any]]]:
    import re

    for index, row in enumerate(_jsonl(os.path.join(data, "halueval_dialogue_dev.jsonl"))):
        last = re.split(r"\[Human\]:", row["dialogue_history"])[-1].split("[Assistant]:")[0].strip()
        fields = {"context": [row["knowledge"]], "question": last}
        yield f"dial{index}-right", True, {**fields, "actual": row["right_response"]}
        yield f"dial{index}-hallucinated", False, {**fields, "actual": row["hallucinated_response"]}


def qags(data: str) -> Iterator[tuple[str, bool, dict[str, Any]]]:
    for index, row in enumerate(_jsonl(os.path.join(data, "qags_cnndm.jsonl"))):
        sentences = row["summary_sentences"]
        good = all(sum(r["response"] == "yes" for r in s["responses"]) * 2 > len(s["responses"]) for s in sentences)
        yield f"qags{index}", good, {"actual": " ".join(s["sentence"] for s in sentences), "context": [row["article"]]}


def real_answers(data: str, name: str, prefix: str) -> Iterator[tuple[str, bool, dict[str, Any]]]:
    """Claims of real model answers with human support labels (ExpertQA, Factcheck-GPT, AttributionBench): good = fully
    supported (attributable)."""
    for index, row in enumerate(_jsonl(os.path.join(data, name))):
        fields = {"context": list(row["context"]), "question": row.get("question") or None, "actual": row["answer"]}
        yield f"{prefix}{index}", row["label"] == "good", fields


def summedits(data: str) -> Iterator[tuple[str, bool, dict[str, Any]]]:
    """LLM-edited summaries of a document (SummEdits): good = consistent; a bad one's spans are the edited words."""
    for index, row in enumerate(_jsonl(os.path.join(data, "summedits_dev.jsonl"))):
        fields = {
            "context": list(row["context"]),
            "actual": row["answer"],
            "spans": [[span["start"], span["end"]] for span in row.get("spans") or []],
        }
        yield f"sedit{index}", row["label"] == "good", fields


def record_pairs(own: str) -> Iterator[tuple[str, bool, dict[str, Any]]]:
    """Descriptions of records given as JSON or Python literals (ours): faithful in other formats vs one or two claims
    the record does not support."""
    for row in _jsonl(os.path.join(own, "record_pairs.jsonl")):
        fields = {"context": row["context"], "question": row["question"]}
        yield f"{row['id']}-faithful", True, {**fields, "actual": row["faithful"]}
        yield f"{row['id']}-{row['kind']}", False, {**fields, "actual": row["hallucinated"]}


def grounded_pairs(own: str) -> Iterator[tuple[str, bool, dict[str, Any]]]:
    for row in _jsonl(os.path.join(own, "grounded_pairs.jsonl")):
        fields = {"context": row["context"], "question": row["question"]}
        yield f"{row['id']}-faithful", True, {**fields, "actual": row["faithful"]}
        yield f"{row['id']}-{row['kind']}", False, {**fields, "actual": row["hallucinated"]}


def similarity_pairs(own: str) -> Iterator[tuple[str, bool, dict[str, Any]]]:
    for row in _jsonl(os.path.join(own, "similarity_pairs.jsonl")):
        yield f"{row['id']}-paraphrase", True, {"actual": row["paraphrase"], "expected": row["reference"]}
        yield f"{row['id']}-{row['change']}", False, {"actual": row["changed"], "expected": row["reference"]}


def unrelated_pairs(own: str) -> Iterator[tuple[str, bool, dict[str, Any]]]:
    """A paraphrase against its own reference (good) or the next row's (bad): does the score tell related from not?"""
    rows = _jsonl(os.path.join(own, "similarity_pairs.jsonl"))
    for index, row in enumerate(rows):
        other = rows[(index + 1) % len(rows)]
        yield f"unrel{index}-own", True, {"actual": row["paraphrase"], "expected": row["reference"]}
        yield f"unrel{index}-other", False, {"actual": other["paraphrase"], "expected": row["reference"]}


def relevancy(data: str, field: str) -> Iterator[tuple[str, bool, dict[str, Any]]]:
    rows = _jsonl(os.path.join(data, "halueval_qa_multi_dev.jsonl"))
    for index, row in enumerate(rows):
        other = rows[(index + 1) % len(rows)]
        if field == "context":
            yield f"ctx{index}-own", True, {"question": row["question"], "context": [row["knowledge"]]}
            yield f"ctx{index}-other", False, {"question": row["question"], "context": [other["knowledge"]]}
        else:
            yield f"ans{index}-own", True, {"question": row["question"], "actual": row["hallucinated_answer"]}
            yield f"ans{index}-other", False, {"question": row["question"], "actual": other["hallucinated_answer"]}


def plan(
    data: str, own: str, entities: str, nli_model: str | None = None
) -> list[tuple[str, str, dict[str, Any], Iterable[tuple[str, bool, dict[str, Any]]]]]:
    """(check, setup label, params, rows) for every measurement."""
    facts = {"method": "facts", "entities": entities}
    out: list[tuple[str, str, dict[str, Any], Iterable[tuple[str, bool, dict[str, Any]]]]] = []

    def there(folder: str, *names: str) -> bool:
        return all(os.path.exists(os.path.join(folder, name)) for name in names)

    # Each labeled set of groundedness, when its files are there: a fresh row iterator per setup.
    sets: list[tuple[bool, Callable[[], Iterable[tuple[str, bool, dict[str, Any]]]]]] = [
        (there(data, "halueval_qa_dev.jsonl", "halueval_qa_multi_dev.jsonl"), lambda: halueval(data)),
        (there(data, "qags_cnndm.jsonl"), lambda: qags(data)),
        (there(data, "halueval_summarization_dev.jsonl"), lambda: summaries(data)),
        (there(data, "halueval_dialogue_dev.jsonl"), lambda: dialogue(data)),
        *[(there(data, name), functools.partial(real_answers, data, name, prefix)) for name, prefix in REAL_SETS],
        (there(data, "summedits_dev.jsonl"), lambda: summedits(data)),
        (there(own, "grounded_pairs.jsonl"), lambda: grounded_pairs(own)),
        (there(own, "record_pairs.jsonl"), lambda: record_pairs(own)),
    ]
    methods: list[tuple[str, dict[str, Any]]] = [
        ("facts", facts),
        ("facts, fail_on=all", {**facts, "fail_on": "all"}),
        ("embeddings", {"method": "embeddings"}),
    ]
    if nli_model:
        methods.append(("nli", {"method": "nli", "nli_model": nli_model, "entities": entities}))
    for method, params in methods:
        out += [("groundedness", method, params, rows()) for present, rows in sets if present]
    if os.path.exists(os.path.join(own, "similarity_pairs.jsonl")):
        out.append(("answer_accuracy", "facts", {"entities": entities}, similarity_pairs(own)))
        out.append(("answer_accuracy", "embeddings", {"entities": entities, "facts": False}, similarity_pairs(own)))
        out.append(("semantic_similarity", "facts", {"entities": entities}, similarity_pairs(own)))
        out.append(("semantic_similarity", "embeddings", {"entities": entities, "facts": False}, similarity_pairs(own)))
        out.append(("semantic_sentence_similarity", "embeddings", {}, similarity_pairs(own)))
        for check, params in (
            ("semantic_similarity", {"facts": False}),
            ("semantic_sentence_similarity", {}),
            ("bertscore", {}),
        ):
            out.append((check, "embeddings", params, unrelated_pairs(own)))
    if there(data, "halueval_qa_multi_dev.jsonl"):
        out.append(("context_relevancy", "embeddings", {}, relevancy(data, "context")))
        out.append(("answer_relevancy_similarity", "embeddings", {}, relevancy(data, "answer")))
    return out


#: Real model answers with human support labels: (file, id prefix).
REAL_SETS = (("expertqa_dev.jsonl", "eqa"), ("factcheckgpt_dev.jsonl", "fcg"), ("attributionbench_dev.jsonl", "attr"))


#: Data set names by id prefix.
SET_NAMES = {
    "halu": "HaluEval QA",
    "qags": "QAGS CNN/DM",
    "ctx": "HaluEval QA (shuffled)",
    "ans": "HaluEval QA (shuffled)",
    "gr": "ours: grounded pairs",
    "rec": "ours: record descriptions",
    "unrel": "ours: similarity pairs (shuffled)",
    "sim": "ours: similarity pairs",
    "summ": "HaluEval summarization",
    "dial": "HaluEval dialogue",
    "eqa": "ExpertQA (real GPT-4 answers)",
    "fcg": "Factcheck-GPT (real ChatGPT answers)",
    "attr": "AttributionBench (real answers)",
    "sedit": "SummEdits (LLM-edited summaries)",
}


#: The sets whose labels judge support by the given context alone: an evidence kind earns the right to fail by
#: default on these (`pytest_llmeval.facts.kinds.measured_failing`). The others are measured and shown, not gated on:
#: ExpertQA's and Factcheck-GPT's annotators judged support with their own knowledge too (a claim naming a person the
#: passage never mentions labeled fully supported), HaluEval dialogue's right responses are right about the world, not
#: grounded in the knowledge, and HaluEval summarization's right summaries add what the article never states.
SUPPORT_SETS = frozenset(
    {
        "HaluEval QA",
        "QAGS CNN/DM",
        "ours: grounded pairs",
        "ours: record descriptions",
        "AttributionBench (real answers)",
        "SummEdits (LLM-edited summaries)",
    }
)


# -- running and reading --------------------------------------------------------------------


def run(
    rows: list[dict[str, Any]],
    workers: int,
    embedding_model: str | None,
    cache_dir: str | None,
    judge: tuple[str, str] | None = None,
    more: Sequence[str] = (),
) -> dict[str, Any]:
    args = list(more)
    if embedding_model:
        args.append(f"--override-ini=llmeval_embedding_model={embedding_model}")
    if cache_dir:
        args.append(f"--llmeval-cache-dir={cache_dir}")
    if judge:
        args += [
            f"--llmeval-judge-model={judge[0]}",
            f"--override-ini=llmeval_judge_base_url={judge[1]}",
            "--override-ini=llmeval_judge_cache=off",
        ]
    return run_suite(rows, TEST_MODULE, "test_verdicts.py", workers, args)


def run_suite(
    rows: Sequence[dict[str, Any]], module: str, name: str, workers: int, args: Sequence[str] = ()
) -> dict[str, Any]:
    """Run ``rows`` as a user's pytest suite (``module``, a test module's source with a ``{path}`` to the rows, written
    as ``name``) first to last, with ``--llmeval-report``, and return the JSON report."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rows.jsonl")
        with open(path, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")
        with open(os.path.join(tmp, name), "w", encoding="utf-8") as handle:
            handle.write(module.format(path=path))
        report = os.path.join(tmp, "report.json")
        command = [
            sys.executable,
            "-m",
            "pytest",
            tmp,
            "-q",
            "--tb=no",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:randomly",
            f"--llmeval-report={report}",
            "-W",
            "ignore::UserWarning",
            *args,
        ]
        if workers > 1:
            command += ["-n", str(workers)]
        done = subprocess.run(command, cwd=tmp, capture_output=True, text=True)
        if not os.path.exists(report):
            sys.exit(f"pytest wrote no report (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        lines = done.stdout.strip().splitlines()
        if lines:
            print(lines[-1], file=sys.stderr)
        with open(report, encoding="utf-8") as handle:
            loaded: dict[str, Any] = json.load(handle)
        return loaded


def auc(good: Sequence[float], bad: Sequence[float]) -> float:
    """Probability that a good answer outscores a bad one (ties count half)."""
    if not good or not bad:
        return float("nan")
    ranked = sorted([(v, 1) for v in good] + [(v, 0) for v in bad])
    rank_sum, index = 0.0, 0
    while index < len(ranked):
        end = index
        while end < len(ranked) and ranked[end][0] == ranked[index][0]:
            end += 1
        mean_rank = (index + end + 1) / 2
        rank_sum += mean_rank * sum(label for _, label in ranked[index:end])
        index = end
    return (rank_sum - len(good) * (len(good) + 1) / 2) / (len(good) * len(bad))


def _share(rows: Sequence[dict[str, Any]], test: Any) -> float:
    return sum(1 for r in rows if test(r)) / len(rows) if rows else float("nan")


def measure(records: list[dict[str, Any]], labels: dict[str, bool]) -> dict[str, Any]:
    primary = records[0]["primary"]
    higher = records[0]["higher_is_better"].get(primary, True)
    threshold = records[0]["thresholds"].get(primary)

    def gated(record: dict[str, Any]) -> bool:
        """Whether a metric other than the primary failed its threshold."""
        for metric, limit in record["thresholds"].items():
            value = record["metrics"].get(metric)
            if metric == primary or value is None:
                continue
            if (value < limit) if record["higher_is_better"].get(metric, True) else (value > limit):
                return True
        return False

    def score(record: dict[str, Any]) -> float:
        value = record["metrics"].get(primary)
        value = -1.0 if value is None else (value if higher else -value)
        return value - 10.0 if gated(record) else value

    good = [r for r in records if labels[r["case_id"]]]
    bad = [r for r in records if not labels[r["case_id"]]]
    failed_good = _share(good, lambda r: verdict_of(r) == "fail")
    catch_rate = _share(bad, lambda r: verdict_of(r) == "fail")
    failures = [r for r in records if verdict_of(r) == "fail"]
    precision = _share(failures, lambda r: not labels[r["case_id"]])
    best: tuple[float, float | None] = (0.0, None)
    candidates = sorted({score(r) for r in records if score(r) > -5}) if good and bad else []
    for index, cut in enumerate(candidates):
        passed_good = sum(score(r) >= cut for r in good) / len(good)
        caught_bad = sum(score(r) < cut for r in bad) / len(bad)
        if (passed_good + caught_bad) / 2 > best[0]:
            # Any cut between the next lower score and this one does as well: take the middle.
            middle = (candidates[index - 1] + cut) / 2 if index else cut
            best = ((passed_good + caught_bad) / 2, middle if higher else -middle)
    return {
        "primary": primary,
        "threshold": threshold,
        "good": len(good),
        "bad": len(bad),
        "auc": auc([score(r) for r in good], [score(r) for r in bad]),
        "failed_good": failed_good,
        "pass_good": _share(good, lambda r: verdict_of(r) == "pass"),
        "catch_bad": catch_rate,
        "failure_precision": precision,
        "unverified": _share(records, lambda r: verdict_of(r) == "unverified"),
        "unverified_good": _share(good, lambda r: verdict_of(r) == "unverified"),
        "unverified_bad": _share(bad, lambda r: verdict_of(r) == "unverified"),
        "escalated": _share(records, lambda r: isinstance(r.get("details"), dict) and "escalated" in r["details"]),
        "balanced": ((1 - failed_good) + catch_rate) / 2,
        "best_threshold": best[1],
        "best_balanced": best[0],
        "model": records[0]["signature"].get("model"),
    }


def kinds_of(record: dict[str, Any]) -> set[str]:
    """The evidence kinds a result names (failing or concerns)."""
    details = record.get("details")
    evidence = details.get("evidence", []) if isinstance(details, dict) else []
    return {str(e.get("kind")) for e in evidence if isinstance(e, dict)}


def on_span(record: dict[str, Any], kind: str, answer: str, spans: Sequence[Sequence[int]]) -> bool:
    """Whether some evidence of ``kind`` quotes text inside a labeled unsupported span of the answer."""
    for piece in record.get("details", {}).get("evidence", []):
        if piece.get("kind") != kind:
            continue
        quoted = str(piece.get("text", "")).rstrip(".…")
        start = answer.find(quoted[:60]) if quoted else -1
        if start < 0:
            continue
        end = start + len(quoted)
        if any(start < b and a < end for a, b in spans):
            return True
    return False


def measure_kinds(
    records: list[dict[str, Any]],
    labels: dict[str, bool],
    data: str,
    answers: dict[str, str],
    spans: dict[str, list[list[int]]],
) -> list[dict[str, Any]]:
    """Per evidence kind on one set: the good and bad answers it fires on, its precision (bad among them, the two
    classes
    weighted 1:1) and, where the set labels spans, the share of its firings on bad answers that fall on one."""
    from pytest_llmeval.facts.kinds import KIND_IDS, balanced_precision

    good = [r for r in records if labels[r["case_id"]]]
    bad = [r for r in records if not labels[r["case_id"]]]
    out = []
    for kind in KIND_IDS:
        good_fired = sum(kind in kinds_of(r) for r in good)
        bad_records = [r for r in bad if kind in kinds_of(r)]
        labeled = [r for r in bad_records if spans.get(r["case_id"])]
        out.append(
            {
                "kind": kind,
                "data": data,
                "gates": data in SUPPORT_SETS,
                "good": len(good),
                "bad": len(bad),
                "good_fired": good_fired,
                "bad_fired": len(bad_records),
                "precision": balanced_precision(good_fired, len(bad_records), len(good), len(bad)),
                "on_span": (
                    sum(on_span(r, kind, answers[r["case_id"]], spans[r["case_id"]]) for r in labeled) / len(labeled)
                    if labeled
                    else None
                ),
            }
        )
    return out


def render_kinds(rows: list[dict[str, Any]]) -> str:
    """The per-kind table as Markdown: over the gating sets together, each kind's firings, its pooled precision and that
    precision's lower bound (what `measured_failing` decides on); then per set, fired on good / bad answers and
    precision."""
    from pytest_llmeval.facts.kinds import KINDS, MIN_FIRINGS, MIN_PRECISION, measured_failing, pooled_precision

    def cell(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f}"

    failing, pooled = measured_failing(rows), pooled_precision(rows)
    gating = sorted({r["data"] for r in rows if r["gates"]})
    shown = sorted({r["data"] for r in rows if not r["gates"]})
    lines = [
        f"Pooled over the sets that gate ({'; '.join(gating) or 'none'}); a kind fails by default when the lower bound "
        f"of its precision is at least {MIN_PRECISION:g}."
        + (f" Measured and shown, not gated on: {'; '.join(shown)}." if shown else ""),
        "",
        "| kind | what it is | fails by default | fired on good | fired on bad | precision (1:1) | lower bound (95%) |",
        "|---|---|---|---|---|---|---|",
    ]
    for kind in KINDS:
        mine = pooled.get(
            kind.id, {"good_fired": 0, "bad_fired": 0, "good": 0, "bad": 0, "precision": None, "lower": None}
        )
        lines.append(
            f"| {kind.id} | {kind.meaning} | {'**yes**' if kind.id in failing else 'no (concern)'} | "
            f"{mine['good_fired']}/{mine['good']} | {mine['bad_fired']}/{mine['bad']} | {cell(mine['precision'])} | "
            f"{cell(mine['lower'])} |"
        )
    lines += [
        "",
        "Per set (sets where the kind fired):",
        "",
        "| kind | fails by default | data | gates | fired on good | fired on bad | precision (1:1) | on a labeled span "
        "|",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        fired = row["good_fired"] + row["bad_fired"]
        if not fired:
            continue
        precision = cell(row["precision"]) + (" (too few)" if fired < MIN_FIRINGS else "")
        span = "-" if row["on_span"] is None else f"{row['on_span']:.2f}"
        lines.append(
            f"| {row['kind']} | {'yes' if row['kind'] in failing else 'no'} | {row['data']} | "
            f"{'yes' if row['gates'] else 'no'} | {row['good_fired']}/{row['good']} | {row['bad_fired']}/{row['bad']} "
            "| "
            f"{precision} | {span} |"
        )
    return "\n".join(lines)


def render_published(table: list[dict[str, Any]]) -> str:
    """The table as docs/quality.md publishes it: groundedness first (the default setup, then the catalog's), then the
    other checks."""

    def cell(value: float) -> str:
        return "-" if value != value else f"{value:.3f}"

    order = {
        "facts": 0,
        "rules then verifier": 1,
        "verifier alone": 2,
        "facts, fail_on=all": 3,
        "nli": 4,
        "embeddings": 5,
    }
    rows = sorted(table, key=lambda r: (r["check"] != "groundedness", r["check"], order.get(r["setup"], 2), r["data"]))
    lines = [
        "| check (setup) | labeled data | good / bad | good failed | good passed | bad caught | failure precision | "
        "unverified | balanced | AUC |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        setup = "default" if row["setup"] == "facts" else row["setup"]
        lines.append(
            f"| {row['check']} ({setup}) | {row['data']} | {row['good']} / {row['bad']} | {cell(row['failed_good'])} | "
            f"{cell(row['pass_good'])} | {cell(row['catch_bad'])} | {cell(row['failure_precision'])} | "
            f"{cell(row['unverified'])} | {cell(row['balanced'])} | {cell(row['auc'])} |"
        )
    return "\n".join(lines)


def render(table: list[dict[str, Any]], *, escalated: bool = False) -> str:
    """The table as Markdown: verdict quality per check, setup and data set."""

    def cell(value: float) -> str:
        return "-" if value != value else f"{value:.3f}"  # NaN: nothing to measure (no failure, no answer)

    head = (
        "| check | setup | data | good/bad | good failed | good passed | bad caught | failure precision | unverified"
        + (" | escalated" if escalated else "")
        + " | balanced | AUC |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for row in table:
        lines.append(
            f"| {row['check']} | {row['setup']} | {row['data']} | {row['good']}/{row['bad']} | "
            f"{cell(row['failed_good'])} | "
            f"{cell(row['pass_good'])} | {cell(row['catch_bad'])} | {cell(row['failure_precision'])} | "
            f"{cell(row['unverified'])}"
            + (f" | {cell(row['escalated'])}" if escalated else "")
            + f" | {cell(row['balanced'])} | {cell(row['auc'])} |"
        )
    return "\n".join(lines)


def verifier_alone(
    setting: str, rows: Sequence[dict[str, Any]], labels: dict[str, bool], groups: dict[str, tuple[str, str, str]]
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The claim verifier's own reading of every groundedness answer of ``rows`` (called directly, in batches): per set
    its verdict quality and the AUC of its support, and how fast it reads (cold load, claims per second, peak
    memory)."""
    import resource
    import time

    from pytest_llmeval.facts.claims import non_claim
    from pytest_llmeval.facts.records import read_record
    from pytest_llmeval.models.cache import ModelCache
    from pytest_llmeval.models.verifier import Verifier

    verifier = Verifier(
        ModelCache(device="cpu"), None if setting == "on" else setting, skip=non_claim, record=read_record
    )
    start = time.perf_counter()
    verifier.score([("The museum opens at 9.", "It opens at 9.")])
    cold = time.perf_counter() - start
    items = [
        r
        for r in rows
        if r["check"] == "groundedness" and r["params"].get("method") == "facts" and "fail_on" not in r["params"]
    ]
    start = time.perf_counter()
    readings = verifier.detect(
        [(list(r["fields"]["context"]), r["fields"].get("question"), str(r["fields"]["actual"])) for r in items]
    )
    seconds = time.perf_counter() - start
    claims = sum(len(d.claims) for d in readings)
    by_set: dict[str, list[tuple[bool, str, float]]] = defaultdict(list)
    for row, reading in zip(items, readings):
        by_set[groups[row["id"]][2]].append((labels[row["id"]], reading.verdict, reading.support))
    table = []
    for data, found in sorted(by_set.items()):
        good = [(v, s) for g, v, s in found if g]
        bad = [(v, s) for g, v, s in found if not g]
        failed = [g for g, v, _ in found if v == "fail"]
        failed_good = _share(good, lambda r: r[0] == "fail")
        catch = _share(bad, lambda r: r[0] == "fail")
        table.append(
            {
                "check": "groundedness",
                "setup": "verifier alone",
                "data": data,
                "primary": "support",
                "threshold": None,
                "good": len(good),
                "bad": len(bad),
                "auc": auc([s for _, s in good], [s for _, s in bad]),
                "failed_good": failed_good,
                "pass_good": _share(good, lambda r: r[0] == "pass"),
                "catch_bad": catch,
                "failure_precision": _share(failed, lambda g: not g),
                "unverified": _share(found, lambda r: r[1] == "unverified"),
                "unverified_good": _share(good, lambda r: r[0] == "unverified"),
                "unverified_bad": _share(bad, lambda r: r[0] == "unverified"),
                "escalated": 0.0,
                "balanced": ((1 - failed_good) + catch) / 2,
                "best_threshold": None,
                "best_balanced": None,
                "model": verifier.label,
            }
        )
    speed = {
        "verifier": verifier.label,
        "thresholds": {"fail_below": verifier.card.fail_below, "pass_at": verifier.card.pass_at},
        "cold_load_s": round(cold, 2),
        "answers": len(items),
        "claims": claims,
        "seconds": round(seconds, 1),
        "claims_per_s": round(claims / seconds, 1) if seconds else None,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "threads": _threads(),
    }
    return table, speed


def _threads() -> int:
    import torch

    return int(torch.get_num_threads())


def _scripted_judge() -> Any:
    """tests/judge_server.py's server, answering one claim per answer and "yes" to every verdict."""
    sys.path.insert(0, ROOT)
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
    return server.start()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        default=DEFAULT_DATA,
        help="folder of the public labeled data (default: ../shared/data; 'none' to skip)",
    )
    parser.add_argument("--own", default=OWN_DATA, help="folder of our labeled pairs (default: benchmarks/data)")
    parser.add_argument(
        "--entities", default="auto", choices=("auto", "rules", "spacy"), help="fact-layer name extractor"
    )
    parser.add_argument(
        "--embedding-model", default=None, help="another embedding model (default: the embedded MiniLM)"
    )
    parser.add_argument(
        "--nli-model", default=None, help="an NLI cross-encoder (name or local folder): adds groundedness method='nli'"
    )
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (1: none)")
    parser.add_argument("--limit", type=int, default=0, help="at most this many rows per data set (0: all)")
    parser.add_argument("--only", default="", help="comma-separated checks to measure (default: all)")
    parser.add_argument(
        "--cache-dir", default=None, help="embedding cache folder (default: none, so nothing is reused)"
    )
    parser.add_argument("--json", default=None, help="also write the table as JSON here")
    parser.add_argument("--kinds-json", default=None, help="also write the per-kind evidence table as JSON here")
    parser.add_argument(
        "--results",
        default=None,
        help="write verdicts.json and evidence_kinds.json here, the measurement docs/quality.md and the "
        "default fail_on are generated from (benchmarks/results)",
    )
    parser.add_argument(
        "--fail-on", default=None, help="groundedness fail_on for this run (default: the measured kinds)"
    )
    parser.add_argument(
        "--judge-model", default=None, help="a judge on an OpenAI-protocol server decides unverified answers"
    )
    parser.add_argument("--judge-url", default=None, help="the judge server's base URL (with --judge-model)")
    parser.add_argument(
        "--verifier",
        default=None,
        metavar="on|FOLDER",
        help="add the claim verifier's rows: groundedness's default rows with --llmeval-verifier (rules then "
        "verifier) and the verifier's own reading of every answer (verifier alone)",
    )
    parser.add_argument(
        "--scripted-judge",
        action="store_true",
        help="a local scripted judge that finds every claim supported: measures which answers reach a judge "
        "(the escalated share), not how well one decides",
    )
    args = parser.parse_args(argv)

    rows: list[dict[str, Any]] = []
    labels: dict[str, bool] = {}
    groups: dict[str, tuple[str, str, str]] = {}
    answers: dict[str, str] = {}
    spans: dict[str, list[list[int]]] = {}
    only = {name for name in args.only.split(",") if name}
    for check, setup, params, data_rows in plan(args.data, args.own, args.entities, args.nli_model):
        if only and check not in only:
            continue
        for count, (row_id, good, fields) in enumerate(data_rows):
            if args.limit and count >= args.limit:
                break
            dataset = row_id.split("-")[0].rstrip("0123456789") or row_id
            case = f"{check}/{setup}/{row_id}"
            labels[case] = good
            groups[case] = (check, setup, SET_NAMES.get(dataset, dataset))
            if check == "groundedness" and setup == "facts" and args.fail_on is not None:
                params = {**params, "fail_on": args.fail_on}
            answers[case] = str(fields.get("actual") or "")
            labeled_spans = fields.pop("spans", None)
            if labeled_spans:
                spans[case] = labeled_spans
            rows.append({"id": case, "check": check, "params": params, "fields": fields})
    server = None
    judge = (args.judge_model, args.judge_url) if args.judge_model and args.judge_url else None
    if args.scripted_judge:
        server = _scripted_judge()
        judge = ("scripted", server.base_url)
    try:
        report = run(rows, args.workers, args.embedding_model, args.cache_dir, judge)
    finally:
        if server is not None:
            server.stop()
    by_group: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    extra: list[dict[str, Any]] = []
    speed = None
    if args.verifier:
        chained = []
        for row in rows:
            check, setup, data = groups[row["id"]]
            if check == "groundedness" and setup == "facts":
                case = row["id"].replace("/facts/", "/rules then verifier/", 1)
                labels[case], groups[case] = labels[row["id"]], (check, "rules then verifier", data)
                chained.append({**row, "id": case})
        second = run(
            chained, args.workers, args.embedding_model, args.cache_dir, None, [f"--llmeval-verifier={args.verifier}"]
        )
        report["results"] += second["results"]
        extra, speed = verifier_alone(args.verifier, [r for r in rows if groups[r["id"]][1] == "facts"], labels, groups)
    for record in report["results"]:
        if record.get("case_id") in groups:
            by_group[groups[record["case_id"]]].append(record)
    table = []
    for key in sorted(by_group, key=lambda k: (k[0], k[2], k[1])):
        table.append({"check": key[0], "setup": key[1], "data": key[2], **measure(by_group[key], labels)})
    table += extra
    print(render(table, escalated=judge is not None))
    kinds = [
        row
        for key in sorted(by_group, key=lambda k: k[2])
        if key[0] == "groundedness" and key[1] == "facts"
        for row in measure_kinds(by_group[key], labels, key[2], answers, spans)
    ]
    if kinds:
        print("\nEvidence kinds (groundedness, method facts):\n" + render_kinds(kinds))
    models = sorted({str(r["model"]) for r in table})
    footer = (
        f"Scoring model(s): {'; '.join(models)}; entities={args.entities}; judge: {judge[0] if judge else 'none'}; "
        f"{len(rows)} tests in {report['run']['duration_s']:.0f} s through pytest ({report['run']['workers'] or 1} "
        "worker(s), "
        f"{'an embedding and parse cache given' if args.cache_dir else 'no cache: every text encoded and parsed'})."
    )
    if speed is not None:
        footer += (
            f" Verifier: {speed['verifier']}, cold load {speed['cold_load_s']} s, {speed['claims_per_s']} claims/s "
            "over "
            f"{speed['claims']} claims ({speed['threads']} CPU threads), peak memory {speed['peak_rss_mb']} MB."
        )
    print("\n" + footer)
    if args.results:
        os.makedirs(args.results, exist_ok=True)
        with open(os.path.join(args.results, "verdicts.json"), "w", encoding="utf-8") as handle:
            json.dump({"table": table, "footer": footer}, handle, indent=1, sort_keys=True)
            handle.write("\n")
        with open(os.path.join(args.results, "evidence_kinds.json"), "w", encoding="utf-8") as handle:
            json.dump(kinds, handle, indent=1, sort_keys=True)
            handle.write("\n")
        if speed is not None:
            with open(os.path.join(args.results, "verifier.json"), "w", encoding="utf-8") as handle:
                json.dump(speed, handle, indent=1, sort_keys=True)
                handle.write("\n")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(table, handle, indent=2)
    if args.kinds_json:
        with open(args.kinds_json, "w", encoding="utf-8") as handle:
            json.dump(kinds, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
