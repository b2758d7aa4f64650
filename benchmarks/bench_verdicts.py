"""How often a check's verdict is right, measured on labeled data the way users run it.

Run by hand (nothing of the data is committed; paths are arguments)::

    python benchmarks/bench_verdicts.py                       # ../shared/data + benchmarks/data
    python benchmarks/bench_verdicts.py --data DIR --entities rules --workers 2 --json out.json
    python benchmarks/bench_verdicts.py --nli-model ~/models/nli-deberta-v3-base   # adds method="nli"

Each labeled answer becomes one parametrized pytest test that calls the check's
``assert_*`` form (``assert_check``); the script runs pytest on them, first to
last, with ``--llmeval-report`` and reads every verdict and score back from the
JSON report. Per check, scoring setup and data set it prints:

- AUC of the verdict score (the primary metric; answers that fail a gating
  metric, such as an unsupported fact, rank below every other answer);
- pass rate of the good answers, catch rate of the bad ones and their mean,
  the balanced accuracy, at the default thresholds;
- the threshold of the primary metric that maximises balanced accuracy (the
  other gates as they are; the middle of the gap between the two scores it
  falls between), with its balanced accuracy.

Labeled data:

- HaluEval QA (``halueval_qa_dev.jsonl`` and ``halueval_qa_multi_dev.jsonl``): the
  right answer is good, each hallucinated answer bad; context = [knowledge],
  question given.
- QAGS CNN/DM (``qags_cnndm.jsonl``): a summary is good when every sentence has a
  majority "yes"; context = [article].
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
import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")
OWN_DATA = os.path.join(HERE, "data")

TEST_MODULE = '''
import json
import pytest
from pytest_llmeval import assert_check

with open({path!r}, encoding="utf-8") as handle:
    ROWS = [json.loads(line) for line in handle]


@pytest.mark.parametrize("row", ROWS, ids=[row["id"] for row in ROWS])
def test_verdict(row):
    assert_check(row["check"], params=row["params"], case=row["id"], **row["fields"])
'''


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


def qags(data: str) -> Iterator[tuple[str, bool, dict[str, Any]]]:
    for index, row in enumerate(_jsonl(os.path.join(data, "qags_cnndm.jsonl"))):
        sentences = row["summary_sentences"]
        good = all(sum(r["response"] == "yes" for r in s["responses"]) * 2 > len(s["responses"]) for s in sentences)
        yield f"qags{index}", good, {"actual": " ".join(s["sentence"] for s in sentences), "context": [row["article"]]}


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
    public = os.path.exists(os.path.join(data, "qags_cnndm.jsonl"))
    methods: list[tuple[str, dict[str, Any]]] = [("facts", facts), ("embeddings", {"method": "embeddings"})]
    if nli_model:
        methods.append(("nli", {"method": "nli", "nli_model": nli_model, "entities": entities}))
    for method, params in methods:
        if public:
            out.append(("groundedness", method, params, halueval(data)))
            out.append(("groundedness", method, params, qags(data)))
        if os.path.exists(os.path.join(own, "grounded_pairs.jsonl")):
            out.append(("groundedness", method, params, grounded_pairs(own)))
    if os.path.exists(os.path.join(own, "similarity_pairs.jsonl")):
        out.append(("answer_accuracy", "facts", {"entities": entities}, similarity_pairs(own)))
        out.append(("answer_accuracy", "embeddings", {"entities": entities, "facts": False}, similarity_pairs(own)))
        out.append(("semantic_similarity", "facts", {"entities": entities}, similarity_pairs(own)))
        out.append(("semantic_similarity", "embeddings", {"entities": entities, "facts": False}, similarity_pairs(own)))
        out.append(("semantic_sentence_similarity", "embeddings", {}, similarity_pairs(own)))
        for check, params in (("semantic_similarity", {"facts": False}), ("semantic_sentence_similarity", {}), ("bertscore", {})):
            out.append((check, "embeddings", params, unrelated_pairs(own)))
    if public:
        out.append(("context_relevancy", "embeddings", {}, relevancy(data, "context")))
        out.append(("answer_relevancy_similarity", "embeddings", {}, relevancy(data, "answer")))
    return out


# -- running and reading --------------------------------------------------------------------


def run(rows: list[dict[str, Any]], workers: int, embedding_model: str | None, cache_dir: str | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "rows.jsonl")
        with open(path, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row) + "\n")
        with open(os.path.join(tmp, "test_verdicts.py"), "w", encoding="utf-8") as handle:
            handle.write(TEST_MODULE.format(path=path))
        report = os.path.join(tmp, "report.json")
        command = [sys.executable, "-m", "pytest", tmp, "-q", "--tb=no", "-p", "no:cacheprovider", "-p", "no:randomly",
                   f"--llmeval-report={report}", "-W", "ignore::UserWarning"]
        if workers > 1:
            command += ["-n", str(workers)]
        if embedding_model:
            command.append(f"--llmeval-embedding-model={embedding_model}")
        if cache_dir:
            command.append(f"--llmeval-cache-dir={cache_dir}")
        done = subprocess.run(command, cwd=tmp, capture_output=True, text=True)
        if not os.path.exists(report):
            sys.exit(f"pytest wrote no report (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        print(done.stdout.strip().splitlines()[-1], file=sys.stderr)
        with open(report, encoding="utf-8") as handle:
            return json.load(handle)


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
    pass_rate = sum(r["passed"] for r in good) / len(good) if good else float("nan")
    catch_rate = sum(not r["passed"] for r in bad) / len(bad) if bad else float("nan")
    best: tuple[float, float | None] = (0.0, None)
    candidates = sorted({score(r) for r in records if score(r) > -5})
    for index, cut in enumerate(candidates):
        passed_good = sum(score(r) >= cut for r in good) / len(good)
        caught_bad = sum(score(r) < cut for r in bad) / len(bad)
        if (passed_good + caught_bad) / 2 > best[0]:
            # Any cut between the next lower score and this one does as well: take the middle.
            middle = (candidates[index - 1] + cut) / 2 if index else cut
            best = ((passed_good + caught_bad) / 2, middle if higher else -middle)
    return {
        "primary": primary, "threshold": threshold, "good": len(good), "bad": len(bad),
        "auc": auc([score(r) for r in good], [score(r) for r in bad]),
        "pass_good": pass_rate, "catch_bad": catch_rate, "balanced": (pass_rate + catch_rate) / 2,
        "best_threshold": best[1], "best_balanced": best[0],
        "model": records[0]["signature"].get("model"),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=DEFAULT_DATA, help="folder of the public labeled data (default: ../shared/data; 'none' to skip)")
    parser.add_argument("--own", default=OWN_DATA, help="folder of our labeled pairs (default: benchmarks/data)")
    parser.add_argument("--entities", default="auto", choices=("auto", "rules", "spacy"), help="fact-layer name extractor")
    parser.add_argument("--embedding-model", default=None, help="another embedding model (default: the embedded MiniLM)")
    parser.add_argument("--nli-model", default=None, help="an NLI cross-encoder (name or local folder): adds groundedness method='nli'")
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (1: none)")
    parser.add_argument("--limit", type=int, default=0, help="at most this many rows per data set (0: all)")
    parser.add_argument("--only", default="", help="comma-separated checks to measure (default: all)")
    parser.add_argument("--cache-dir", default=None, help="embedding cache folder (default: none, so nothing is reused)")
    parser.add_argument("--json", default=None, help="also write the table as JSON here")
    args = parser.parse_args(argv)

    rows: list[dict[str, Any]] = []
    labels: dict[str, bool] = {}
    groups: dict[str, tuple[str, str, str]] = {}
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
            groups[case] = (check, setup, {"halu": "HaluEval QA", "qags": "QAGS CNN/DM", "ctx": "HaluEval QA (shuffled)",
                                            "ans": "HaluEval QA (shuffled)", "gr": "ours: grounded pairs", "unrel": "ours: similarity pairs (shuffled)",
                                            "sim": "ours: similarity pairs"}.get(dataset, dataset))
            rows.append({"id": case, "check": check, "params": params, "fields": fields})
    report = run(rows, args.workers, args.embedding_model, args.cache_dir)
    by_group: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for record in report["results"]:
        if record.get("case_id") in groups:
            by_group[groups[record["case_id"]]].append(record)
    table = []
    for key in sorted(by_group, key=lambda k: (k[0], k[2], k[1])):
        table.append({"check": key[0], "setup": key[1], "data": key[2], **measure(by_group[key], labels)})
    print("| check | setup | data | good/bad | AUC | good pass | bad caught | balanced | best threshold (balanced) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in table:
        best = "-" if row["best_threshold"] is None else f"{row['primary']} {row['best_threshold']:.3f} ({row['best_balanced']:.3f})"
        print(f"| {row['check']} | {row['setup']} | {row['data']} | {row['good']}/{row['bad']} | {row['auc']:.3f} | "
              f"{row['pass_good']:.3f} | {row['catch_bad']:.3f} | {row['balanced']:.3f} | {best} |")
    models = sorted({str(r["model"]) for r in table})
    print(f"\nscoring model(s): {'; '.join(models)}; entities={args.entities}; "
          f"{len(rows)} tests in {report['run']['duration_s']:.0f}s through pytest ({report['run']['workers'] or 1} worker(s))")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(table, handle, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
