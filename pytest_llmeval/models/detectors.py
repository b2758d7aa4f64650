"""Detectors: local models trained to say whether an answer is supported by its context, in the input format each
family was trained on. They are the tier between the offline evidence and the judge: a check's *unverified*
answers go to the run's detector (``--llmeval-detector``, ``detector=``), and the judge sees only what it leaves.

Families (``FAMILY:MODEL``, the model a hub name or a local folder; the weights are the user's):

- ``token``: a token classifier in the LettuceDetect style. The question and the context are the first segment,
  the answer the second, in one sequence; each answer token is scored hallucinated (class 1) or supported. Tokens
  above 0.5 become spans of the answer, reported with character offsets. A context longer than the model reads is cut
  into chunks, and a token is supported when one chunk supports it (the lowest of its scores over chunks).
- ``sequence``: a sequence classifier in the HHEM and MiniCheck styles, reading (premise, hypothesis) pairs: the
  context cut into chunks of about ``chunk_words`` words (MiniCheck reads about 400), each answer sentence a claim;
  a claim's support is its best chunk's, the answer's its least supported claim's. One output is a logit (read
  through a sigmoid); two or more are soft-maxed and the class that means support is taken (a name with
  "support", "consistent", "entail", "faithful" or "factual"; else class 1 of two).
- ``nli``: an NLI cross-encoder, as a sequence classifier whose ``entailment`` class is support, over windows of
  two context sentences (what NLI models are trained on).

Without ``FAMILY:`` the family is read from the model's ``config.json``: a token classifier is ``token``, a
classifier with an ``entailment`` class ``nli``, any other classifier ``sequence``.

>>> parse_detector("sequence:./minicheck").family, parse_detector("nli:cross-encoder/nli-deberta-v3-xsmall").label
('sequence', 'nli:cross-encoder/nli-deberta-v3-xsmall')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..text.basics import split_sentences
from .config import ModelLoadError, folder_config

if TYPE_CHECKING:
    from .cache import ModelCache

__all__ = ["DetectorSpec", "Detection", "Detector", "parse_detector", "FAMILIES", "chunk_words"]

FAMILIES = ("token", "sequence", "nli")

#: Names of a class that means "supported" in a sequence classifier's config (compared in lower case).
SUPPORT_NAMES = ("support", "consistent", "entail", "faithful", "factual")


@dataclass(frozen=True)
class DetectorSpec:
    """Which detector: its family, its model (name or folder), the words per context chunk and the band of support
    in which it leaves an answer unverified (below ``low``: fail; at or above ``high``: pass)."""

    family: str
    model: str
    chunk_words: int | None = None  # None: about 400 for sequence classifiers, what the model reads for token ones
    low: float = 0.5
    high: float = 0.5

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"detector family must be one of {', '.join(FAMILIES)}; got {self.family!r}")
        if not self.model:
            raise ValueError("a detector needs a model: FAMILY:MODEL, e.g. sequence:./minicheck-roberta")
        if not 0 <= self.low <= self.high <= 1:
            raise ValueError(f"the detector's band must be 0 <= low <= high <= 1; got {self.low}, {self.high}")

    @property
    def label(self) -> str:
        from .cache import model_identity

        band = "" if self.low == self.high == 0.5 else f" band {self.low:g}-{self.high:g}"
        return f"{self.family}:{model_identity(self.model)}{band}"


def _family_of(model: str) -> str:
    """The family of a local model folder from its config.json (``sequence`` when it cannot tell)."""
    config = folder_config(model)
    if any(str(a).endswith("ForTokenClassification") for a in config.get("architectures") or []):
        return "token"
    labels = {str(v).lower() for v in (config.get("id2label") or {}).values()}
    return "nli" if "entailment" in labels else "sequence"


def parse_detector(text: str, *, band: tuple[float, float] = (0.5, 0.5), words: int | None = None) -> DetectorSpec:
    """``FAMILY:MODEL`` (or a model folder whose config says its family) as a `DetectorSpec`; ``ValueError`` says
    what was expected."""
    text = str(text).strip()
    family, sep, model = text.partition(":")
    if not sep or family not in FAMILIES:
        family, model = _family_of(text), text
    return DetectorSpec(family, model.strip(), words, *band)


def chunk_words(sentences: Sequence[str], limit: int) -> list[str]:
    """Consecutive sentences joined into chunks of at most about ``limit`` words (a longer sentence is one chunk).

    >>> chunk_words(["a b c.", "d e.", "f g h i."], 5)
    ['a b c. d e.', 'f g h i.']
    """
    chunks: list[str] = []
    current: list[str] = []
    count = 0
    for sentence in sentences:
        words = len(sentence.split())
        if current and count + words > limit:
            chunks.append(" ".join(current))
            current, count = [], 0
        current.append(sentence)
        count += words
    if current:
        chunks.append(" ".join(current))
    return chunks


@dataclass(frozen=True)
class Detection:
    """A detector's reading of one answer: ``support`` (0 to 1, the least supported part's), the verdict it makes of
    it (``pass``, ``fail``, or ``unverified`` within the band), and its evidence: ``spans`` of the answer it finds
    unsupported, ``(start, end, text, score)`` with character offsets, and each claim's support."""

    support: float
    verdict: str
    reason: str
    spans: tuple[tuple[int, int, str, float], ...] = ()
    claims: tuple[tuple[str, float], ...] = field(default_factory=tuple)
    closest: tuple[str, ...] = ()  # per claim, the context window that supports it best (where the reader says)
    threshold: float | None = (
        None  # the bound the verdict was held to (the fail bound for a failure, the pass bound for a pass)
    )

    def to_dict(self) -> dict[str, Any]:
        claims = [{"claim": c, "support": round(p, 6)} for c, p in self.claims]
        for claim, window in zip(claims, self.closest):
            claim["closest"] = window
        return {
            "support": round(self.support, 6),
            "verdict": self.verdict,
            "spans": [{"start": s, "end": e, "text": t, "score": round(p, 6)} for s, e, t, p in self.spans],
            "claims": claims,
        }


class Detector:
    """One detector model, loaded once through the session's model cache (on its device), scoring in batches."""

    tier = "detector"

    batch_size = 16  # on the CPU; on a GPU `gpu_batch_size`
    gpu_batch_size = 64

    def _batches(self, rows: Sequence[tuple[Any, ...]], device: str) -> list[list[int]]:
        """The rows' indices in batches, the rows sorted by length (less padding), of the device's batch size."""
        size = self.batch_size if device == "cpu" else self.gpu_batch_size
        order = sorted(range(len(rows)), key=lambda i: len(rows[i][-2]) + len(rows[i][-1]))
        return [order[start : start + size] for start in range(0, len(order), size)]

    def __init__(self, spec: DetectorSpec, cache: ModelCache) -> None:
        self.spec = spec
        self.cache = cache

    @property
    def label(self) -> str:
        return self.spec.label

    def _load(self) -> tuple[Any, Any, str, int]:
        def build() -> tuple[Any, Any, str, int]:
            try:
                from transformers import (
                    AutoModelForSequenceClassification,
                    AutoModelForTokenClassification,
                    AutoTokenizer,
                )
            except ImportError as exc:
                raise ModelLoadError(
                    "a detector needs transformers and torch: pip install 'pytest-llm-verdict[embeddings]'"
                ) from exc
            from .cache import place
            from .evaluator import max_positions

            loader = (
                AutoModelForTokenClassification if self.spec.family == "token" else AutoModelForSequenceClassification
            )
            try:
                tokenizer = AutoTokenizer.from_pretrained(self.spec.model)
                model = loader.from_pretrained(self.spec.model)
            except Exception as exc:  # noqa: BLE001 - one message for every way loading fails
                raise ModelLoadError(
                    f"detector {self.spec.family}:{self.spec.model}: could not load it: {exc}. Give "
                    "--llmeval-detector / detector= a local folder with the model's weights, config and "
                    "tokenizer (offline, the hub is not reachable)"
                ) from None
            model, device = place(model, self.cache)
            return tokenizer, model, device, max_positions(model, tokenizer)

        return self.cache.model(f"detector {self.spec.family} {self.spec.model}", build)

    def _verdict(self, support: float) -> str:
        return "fail" if support < self.spec.low else "pass" if support >= self.spec.high else "unverified"

    def _threshold(self, support: float) -> float | None:
        """The bound of the band ``support``'s verdict was held to (``None`` within the band)."""
        verdict = self._verdict(support)
        return self.spec.low if verdict == "fail" else self.spec.high if verdict == "pass" else None

    def detect(self, items: Sequence[tuple[Sequence[str], str | None, str]]) -> list[Detection]:
        """``(context chunks, question, answer)`` per answer: each answer's `Detection`."""
        if self.spec.family == "token":
            return self._tokens(items)
        return self._pairs(items)

    # -- sequence classifiers (HHEM, MiniCheck) and NLI cross-encoders
    # --------------------------------------------------

    def _support_index(self, model: Any) -> int | None:
        """The class that means support (``None``: one output, read through a sigmoid)."""
        labels = {int(k): str(v).lower() for k, v in (getattr(model.config, "id2label", None) or {}).items()}
        if int(getattr(model.config, "num_labels", len(labels) or 1)) == 1:
            return None
        wanted = ("entailment",) if self.spec.family == "nli" else SUPPORT_NAMES
        for index, name in sorted(labels.items()):
            if any(w in name for w in wanted) and not name.startswith(("not", "un", "non")):
                return index
        if self.spec.family == "nli" or len(labels) != 2:
            raise ModelLoadError(
                f"detector {self.spec.family}:{self.spec.model}: no class means support among "
                f"{sorted(labels.values())} (expected one named like {', '.join(wanted)})"
            )
        return 1

    def _premises(self, context: Sequence[str]) -> list[str]:
        sentences = [s for chunk in context for s in (split_sentences(chunk) or [chunk])]
        if self.spec.family == "nli":
            return [" ".join(sentences[i : i + 2]) for i in range(max(1, len(sentences) - 1))] if sentences else []
        return chunk_words(sentences, self.spec.chunk_words or 400)

    def _pairs(self, items: Sequence[tuple[Sequence[str], str | None, str]]) -> list[Detection]:
        import torch

        tokenizer, model, device, limit = self._load()
        support_index = self._support_index(model)
        pairs: list[tuple[str, str]] = []
        shapes = []
        for context, _, answer in items:
            claims = split_sentences(answer) or ([answer] if answer.strip() else [])
            premises = self._premises(context)
            shapes.append((claims, len(premises)))
            pairs.extend((premise, claim) for claim in claims for premise in premises)
        probabilities = [0.0] * len(pairs)
        with torch.no_grad():
            for indices in self._batches(pairs, device):
                batch = [pairs[i] for i in indices]
                encoded = tokenizer(
                    [p for p, _ in batch],
                    [h for _, h in batch],
                    truncation="only_first",
                    padding=True,
                    max_length=limit,
                    return_tensors="pt",
                ).to(device)
                logits = model(**encoded).logits.float()
                if support_index is None:
                    values = torch.sigmoid(logits.reshape(-1))
                else:
                    values = torch.softmax(logits, dim=-1)[:, support_index]
                for index, value in zip(indices, values.cpu()):
                    probabilities[index] = float(value)
        out, cursor = [], 0
        for (_, _, answer), (claims, n_premises) in zip(items, shapes):
            scored = []
            for claim in claims:
                chunk = probabilities[cursor : cursor + n_premises]
                cursor += n_premises
                scored.append((claim, max(chunk) if chunk else 0.0))
            if not scored:
                out.append(Detection(1.0, "unverified", "the answer has no claim for the detector"))
                continue
            claim, low = min(scored, key=lambda c: c[1])
            start = answer.find(claim)
            spans = (
                ((start, start + len(claim), claim, 1.0 - low),) if start >= 0 and self._verdict(low) == "fail" else ()
            )
            reason = f"least supported claim {claim[:100]!r} ({low:.3f}, best of {n_premises} context chunk(s))"
            out.append(Detection(low, self._verdict(low), reason, spans, tuple(scored), threshold=self._threshold(low)))
        return out

    # -- token classifiers (LettuceDetect) ---------------------------------------------------------------------------

    def _tokens(self, items: Sequence[tuple[Sequence[str], str | None, str]]) -> list[Detection]:
        import torch

        tokenizer, model, device, limit = self._load()
        jobs: list[tuple[int, str, str]] = []  # (item, premise, answer)
        for index, (context, question, answer) in enumerate(items):
            head = f"{question.strip()}\n" if question else ""
            sentences = [s for chunk in context for s in (split_sentences(chunk) or [chunk])]
            # What the model reads beside the answer, in words (about 0.6 of a token each, allowing for the answer).
            budget = self.spec.chunk_words or max(32, int(0.6 * limit) - len(head.split()) - 2 * len(answer.split()))
            for chunk in chunk_words(sentences, budget) or [""]:
                jobs.append((index, head + chunk, answer))
        # Per answer: each character's lowest hallucination score over its chunks, by token offsets.
        scores: list[dict[tuple[int, int], float]] = [{} for _ in items]
        with torch.no_grad():
            for indices in self._batches(jobs, device):
                batch = [jobs[i] for i in indices]
                encoded = tokenizer(
                    [p for _, p, _ in batch],
                    [a for _, _, a in batch],
                    truncation="only_first",
                    padding=True,
                    max_length=limit,
                    return_offsets_mapping=True,
                    return_tensors="pt",
                )
                offsets = encoded.pop("offset_mapping")
                logits = model(**encoded.to(device)).logits.float()
                hallucinated = torch.softmax(logits, dim=-1)[..., 1].cpu()
                for row, (index, _, _) in enumerate(batch):
                    sequence_ids = encoded.sequence_ids(row)
                    for position, segment in enumerate(sequence_ids):
                        if segment != 1:
                            continue
                        begin, end = (int(x) for x in offsets[row][position])
                        if end <= begin:
                            continue
                        value = float(hallucinated[row][position])
                        known = scores[index].get((begin, end))
                        scores[index][(begin, end)] = value if known is None else min(known, value)
        out = []
        for (_, _, answer), tokens in zip(items, scores):
            if not tokens:
                out.append(Detection(1.0, "unverified", "the detector read no token of the answer"))
                continue
            spans: list[list[Any]] = []
            for (begin, end), value in sorted(tokens.items()):
                if 1.0 - value >= self.spec.low:  # a token is unsupported where its support is below the band
                    continue
                if spans and begin - spans[-1][1] <= 1:  # the next token of the same span (a space between)
                    spans[-1][1], spans[-1][3] = end, max(spans[-1][3], value)
                else:
                    spans.append([begin, end, "", value])
            worst = max(tokens.values())
            support = 1.0 - worst
            found = tuple((b, e, answer[b:e], p) for b, e, _, p in spans)
            reason = (
                f"{len(found)} unsupported span(s), first {found[0][2][:100]!r} (hallucination {found[0][3]:.3f})"
                if found
                else f"no unsupported token (highest hallucination score {worst:.3f})"
            )
            out.append(Detection(support, self._verdict(support), reason, found, threshold=self._threshold(support)))
        return out
