"""The claim verifier: a small cross-encoder of our own, trained by ``tools/train_verifier.py`` from public data and
shipped with the plugin (`SHIPPED`), that reads one claim of an answer beside its best context windows and says how
likely they support it.

It is a tier between a check's rules and its detector or judge (``--llmeval-verifier``): only answers the rules leave
unverified reach it. An answer is cut into claims (its sentences, less those the caller says claim nothing); each
claim is read against the `TOP_WINDOWS` context windows that share the most of its rarer words (`best_windows`), and
its support is the best of their scores. A claim whose support is below the card's ``fail_below`` fails the answer,
naming the claim, its closest window and the score; the answer passes only when every claim reaches ``pass_at``.
Between the two it stays unverified. Both thresholds were chosen on development data (the card says how) so that a
failure is right at least 90% of the time there, and a pass 95%.

The folder holds the weights, the tokenizer and ``card.json``: the version, the base model, the data it was trained
on with their hashes, the thresholds and the figures measured when it was made. Results name the verifier by its
version and the card's hash (`Verifier.label`), so verdicts of two verifiers never compare as one.

>>> windows(["One two three. Four five.", "Six."], words=4)
['One two three.', 'Four five. Six.']
>>> hypothesis("Paris.", "Where were the 2024 Olympics held?")
'Where were the 2024 Olympics held? Paris.'
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..text.basics import excerpt, split_sentences
from .config import ModelLoadError
from .detectors import Detection

if TYPE_CHECKING:
    from .cache import ModelCache

__all__ = [
    "SHIPPED",
    "Verifier",
    "VerifierCard",
    "windows",
    "best_windows",
    "hypothesis",
    "claims_of",
    "train",
    "write_card",
    "readings",
    "score_pairs",
    "MAX_TOKENS",
    "WINDOW_WORDS",
    "TOP_WINDOWS",
]

#: The verifier that ships with the plugin (package data).
SHIPPED = Path(__file__).parent / "weights" / "verifier"
#: Tokens the verifier reads per pair (window and claim together); a longer window is cut.
MAX_TOKENS = 128
#: Words per context window: consecutive sentences up to this many (a longer sentence is a window alone).
WINDOW_WORDS = 60
#: Context windows read per claim: those that share the most of its rarer words.
TOP_WINDOWS = 2
#: A claim this short or shorter is read after the question ("Paris." says nothing alone).
SHORT_CLAIM = 8
#: Claims read per answer (the rest are left unread, and the answer cannot pass).
MAX_CLAIMS = 40

_WORD = re.compile(r"[^\W_]+")
_STOP = frozenset(
    """a an and are as at be been but by for from had has have he her his i if in into is it its of on or
our she so such than that the their them then there these they this those to was we were what when where which who will
with would you your not no""".split()
)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def windows(context: Sequence[str], words: int = WINDOW_WORDS) -> list[str]:
    """The context's windows: from each sentence, it and the next ones up to ``words`` words (no window twice)."""
    sentences = [s for chunk in context for s in (split_sentences(chunk) or ([chunk] if chunk.strip() else []))]
    out: list[str] = []
    for start in range(len(sentences)):
        taken, count = [sentences[start]], len(sentences[start].split())
        for sentence in sentences[start + 1 :]:
            count += len(sentence.split())
            if count > words:
                break
            taken.append(sentence)
        window = " ".join(taken)
        if not out or window != out[-1] and not out[-1].endswith(window):
            out.append(window)
    return out


def best_windows(claim: str, found: Sequence[str], k: int = TOP_WINDOWS) -> list[int]:
    """The indices of the ``k`` windows sharing the most of the claim's words, each word weighted by how few windows
    hold it (a word every window has tells nothing)."""
    if len(found) <= k:
        return list(range(len(found)))
    bags = [_words(w) for w in found]
    wanted = _words(claim)
    weight = {w: 1.0 / math.log(2.0 + sum(w in bag for bag in bags)) for w in wanted}
    scores = [sum(weight[w] for w in wanted & bag) for bag in bags]
    return sorted(range(len(found)), key=lambda i: (-scores[i], i))[:k]


def hypothesis(claim: str, question: str | None) -> str:
    """What the verifier reads as the claim: a short one after its question."""
    claim = claim.strip()
    if question and question.strip() and len(claim.split()) <= SHORT_CLAIM:
        return f"{question.strip()} {claim}"
    return claim


def claims_of(
    answer: str, question: str | None = None, skip: Callable[[str, str | None], Any] | None = None
) -> list[str]:
    """The answer's claims: its sentences, less those ``skip(sentence, question)`` says claim nothing."""
    sentences = split_sentences(answer) or ([answer.strip()] if answer.strip() else [])
    return [s for s in sentences if _WORD.search(s) and not (skip and skip(s, question))][:MAX_CLAIMS]


@dataclass(frozen=True)
class VerifierCard:
    """What ``card.json`` says the verifier is: version, base model, thresholds and the card file's hash."""

    version: str
    base: str
    fail_below: float
    pass_at: float
    digest: str
    data: dict[str, Any]

    @classmethod
    def read(cls, folder: str | os.PathLike[str]) -> VerifierCard:
        path = Path(folder) / "card.json"
        try:
            raw = path.read_bytes()
            data = json.loads(raw)
            thresholds = data["thresholds"]
            card = cls(
                str(data["version"]),
                str(data.get("base", "")),
                float(thresholds["fail_below"]),
                float(thresholds["pass_at"]),
                hashlib.sha256(raw).hexdigest(),
                data,
            )
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelLoadError(
                f"verifier {folder}: no usable card.json ({exc}); a verifier folder is what "
                "tools/train_verifier.py --out writes: weights, tokenizer and card.json"
            ) from None
        if not 0 <= card.fail_below <= card.pass_at <= 1:
            raise ModelLoadError(f"verifier {folder}: card.json thresholds must be 0 <= fail_below <= pass_at <= 1")
        return card


def write_card(folder: str | os.PathLike[str], card: dict[str, Any]) -> Path:
    """``card`` written as the folder's ``card.json`` (keys sorted, so the same card hashes the same)."""
    path = Path(folder) / "card.json"
    path.write_text(json.dumps(card, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return path


class Verifier:
    """The verifier in ``folder`` (default: the shipped one), loaded once through the session's model cache and
    scoring (window, claim) pairs in batches on its device. ``skip(sentence, question)`` says which sentences of an
    answer claim nothing (`pytest_llmeval.facts.claims.non_claim`); ``record(text)`` which context is a record (JSON or
    a literal, `pytest_llmeval.facts.records.read_record`): the verifier was trained on prose and leaves an answer
    about a record unverified."""

    tier = "verifier"
    batch_size = 32  # on the CPU; on a GPU `gpu_batch_size`
    gpu_batch_size = 128

    def __init__(
        self,
        cache: ModelCache,
        folder: str | os.PathLike[str] | None = None,
        skip: Callable[[str, str | None], Any] | None = None,
        record: Callable[[str], Any] | None = None,
    ) -> None:
        self.folder = Path(folder) if folder else SHIPPED
        if not (self.folder / "config.json").is_file():
            where = (
                "the shipped verifier is missing from this install"
                if folder is None
                else f"{self.folder} is not a folder"
            )
            raise ModelLoadError(
                f"verifier: {where} with config.json, weights and card.json (tools/train_verifier.py --out writes one)"
            )
        self.card = VerifierCard.read(self.folder)
        self.cache = cache
        self.skip = skip
        self.record = record

    @property
    def label(self) -> str:
        """The verifier as results name it: its version and the first 12 hex digits of its card's hash."""
        return f"verifier {self.card.version} card {self.card.digest[:12]}"

    def _load(self) -> tuple[Any, Any, str]:
        def build() -> tuple[Any, Any, str]:
            try:
                import torch
                from transformers import AutoModelForSequenceClassification, AutoTokenizer
            except ImportError as exc:
                raise ModelLoadError(
                    "the verifier needs transformers and torch: pip install 'pytest-llm-verdict[embeddings]'"
                ) from exc
            from .cache import place

            try:
                tokenizer = AutoTokenizer.from_pretrained(str(self.folder))
                model = AutoModelForSequenceClassification.from_pretrained(str(self.folder), dtype=torch.float32)
            except Exception as exc:  # noqa: BLE001 - one message for every way loading fails
                raise ModelLoadError(f"verifier {self.folder}: could not load it: {exc}") from None
            model, device = place(model, self.cache)
            return tokenizer, model, device

        return self.cache.model(f"verifier {self.folder}", build)

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """The probability that each (window, claim) pair's window supports its claim."""
        if not pairs:
            return []
        tokenizer, model, device = self._load()
        return score_pairs(model, tokenizer, pairs, device, self.batch_size if device == "cpu" else self.gpu_batch_size)

    def detect(self, items: Sequence[tuple[Sequence[str], str | None, str]]) -> list[Detection]:
        """``(context, question, answer)`` per answer: its `Detection` (``claims``: each claim's support;
        ``closest``: the window that supports it best)."""
        return [self._reading(*read) for read in readings(items, self.score, self.skip, self.record)]

    def _reading(self, claims: list[str], found: list[str], scored: list[list[tuple[float, int]]]) -> Detection:
        if not claims or not found:
            what = (
                "no claim to read in the answer"
                if not claims
                else "no prose context to read the answer against (a record or nothing)"
            )
            return Detection(1.0, "unverified", what)
        best = [max(pairs) for pairs in scored]
        low = min(range(len(claims)), key=lambda c: best[c][0])
        support, window = best[low]
        card = self.card
        verdict = (
            "fail" if support < card.fail_below else "pass" if all(s >= card.pass_at for s, _ in best) else "unverified"
        )
        said = f"claim {low + 1} {excerpt(claims[low], 100)!r}"
        closest = f"closest: {excerpt(found[window], 100)!r}"
        if verdict == "fail":
            reason = f"{said} is not supported by the context ({self.tier} {support:.2f}; {closest})"
        elif verdict == "pass":
            reason = f"every claim is supported by the context (least: {said}, {self.tier} {support:.2f}; {closest})"
        else:
            reason = (
                f"{said} is neither supported nor contradicted clearly ({self.tier} {support:.2f}, between "
                f"{card.fail_below:.2f} and {card.pass_at:.2f}; {closest})"
            )
        return Detection(
            support,
            verdict,
            reason,
            claims=tuple((c, s) for c, (s, _) in zip(claims, best)),
            closest=tuple(found[i] for _, i in best),
            threshold=card.fail_below if verdict == "fail" else card.pass_at if verdict == "pass" else None,
        )


Reading = tuple[list[str], list[str], list[list[tuple[float, int]]]]


def readings(
    items: Sequence[tuple[Sequence[str], str | None, str]],
    score: Callable[[list[tuple[str, str]]], list[float]],
    skip: Callable[[str, str | None], Any] | None = None,
    record: Callable[[str], Any] | None = None,
) -> list[Reading]:
    """How the verifier reads each ``(context, question, answer)``: the answer's claims, the context's windows (none for
    a record context) and, per claim, ``(score, window index)`` of each of its best windows, all pairs scored by
    ``score`` in one call (what `Verifier.detect` and the training script's development figures both read)."""
    jobs: list[tuple[list[str], list[list[int]], list[str]]] = []
    pairs: list[tuple[str, str]] = []
    for context, question, answer in items:
        found = [] if record and any(record(chunk) is not None for chunk in context) else windows(context)
        claims = claims_of(answer, question, skip)
        picks = [best_windows(claim, found) for claim in claims] if found else []
        jobs.append((claims, picks, found))
        pairs.extend((found[i], hypothesis(claim, question)) for claim, pick in zip(claims, picks) for i in pick)
    scores = iter(score(pairs))
    return [(claims, found, [[(next(scores), i) for i in pick] for pick in picks]) for claims, picks, found in jobs]


def score_pairs(
    model: Any, tokenizer: Any, pairs: Sequence[tuple[str, str]], device: str, batch_size: int
) -> list[float]:
    """Each (window, claim) pair's support by ``model``, in length-sorted batches (less padding)."""
    import torch

    order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
    out = [0.0] * len(pairs)
    with torch.inference_mode():
        for start in range(0, len(order), batch_size):
            indices = order[start : start + batch_size]
            encoded = tokenizer(
                [pairs[i][0] for i in indices],
                [pairs[i][1] for i in indices],
                truncation="longest_first",
                padding=True,
                max_length=MAX_TOKENS,
                return_tensors="pt",
            ).to(device)
            values = torch.sigmoid(model(**encoded).logits.float().reshape(-1)).cpu().tolist()
            for index, value in zip(indices, values):
                out[index] = float(value)
    return out


def train(
    pairs: Sequence[tuple[str, str, int]],
    base: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    layers: int | None = None,
    epochs: float = 1.0,
    batch_size: int = 16,
    rate: float = 5e-5,
    seed: int = 0,
    checkpoints: int = 1,
    pick: Callable[[Any, Any], float] | None = None,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Fine-tune ``base`` (a BERT-style folder; its first ``layers`` layers) as a verifier on ``pairs`` of (window,
    claim, 1 if the window supports the claim else 0), and save it to ``out`` in half precision with its tokenizer.

    The pairs are shuffled with ``seed``; the run is cut into ``checkpoints`` equal parts, and after each ``pick(model,
    tokenizer)`` (higher is better, measured on development data) keeps the best one. Returns what the card records
    of the run: steps, the pick's figure per checkpoint and the one kept.
    """
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.manual_seed(seed)
    rows = list(pairs)
    random.Random(seed).shuffle(rows)
    total = max(1, int(len(rows) * epochs) // batch_size)
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    extra: dict[str, Any] = {"num_hidden_layers": layers} if layers else {}
    model = AutoModelForSequenceClassification.from_pretrained(str(base), num_labels=1, **extra)
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=rate, weight_decay=0.01)
    warm = max(1, total // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warm, max(0.0, (total - s) / (total - warm + 1)))
    )
    loss_of = torch.nn.BCEWithLogitsLoss()
    marks = {round(total * (k + 1) / checkpoints) for k in range(checkpoints)}
    figures: list[float] = []
    best: tuple[float, dict[str, Any]] | None = None
    kept = 0
    for step in range(total):
        batch = [rows[(step * batch_size + j) % len(rows)] for j in range(batch_size)]
        encoded = tokenizer(
            [b[0] for b in batch],
            [b[1] for b in batch],
            truncation="longest_first",
            padding=True,
            max_length=MAX_TOKENS,
            return_tensors="pt",
        )
        target = torch.tensor([float(b[2]) for b in batch])
        loss = loss_of(model(**encoded).logits.reshape(-1), target)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        if step % 200 == 0:
            log(f"step {step}/{total} loss {loss.item():.4f}")
        if step + 1 in marks:
            model.eval()
            figure = pick(model, tokenizer) if pick else float(step)
            model.train()
            figures.append(round(figure, 4))
            log(f"checkpoint at step {step + 1}: {figure:.4f}")
            if best is None or figure > best[0]:
                best = (figure, {k: v.detach().clone() for k, v in model.state_dict().items()})
                kept = len(figures)
    assert best is not None
    model.load_state_dict(best[1])
    model.eval()
    Path(out).mkdir(parents=True, exist_ok=True)
    model.half().save_pretrained(str(out), safe_serialization=True)
    model.float()
    tokenizer.save_pretrained(str(out))
    return {
        "steps": total,
        "batch_size": batch_size,
        "rate": rate,
        "seed": seed,
        "layers": model.config.num_hidden_layers,
        "checkpoints": figures,
        "kept": kept,
    }
