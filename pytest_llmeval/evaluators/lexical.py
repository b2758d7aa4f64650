"""Lexical overlap with the expected answer: ROUGE, BLEU, exact match, edit distance.

ROUGE is computed by ``rouge-score`` (Google's reimplementation of ROUGE-1.5.5)
and BLEU by ``nltk.translate.bleu_score``; the parity tests pin both to the
libraries' own numbers.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from ..case import Case
from ..text import normalize, split_sentences
from .base import Evaluator, MetricSpec, Score, package_version, require_choice, require_type

__all__ = ["Rouge", "Bleu", "ExactMatch", "EditDistance", "levenshtein"]

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")


class Rouge(Evaluator):
    """ROUGE-1/2/L/Lsum F-measure against the expected answer(s); with several, the best per type.

    Parameters:
        use_stemmer: Porter-stem tokens (rouge-score's option).
        split_summaries: put each sentence on its own line before ROUGE-Lsum, which
            treats newlines as sentence boundaries.

    >>> from pytest_llmeval.case import Case
    >>> [r] = Rouge().evaluate([Case(actual="the cat sat on the mat", expected="the cat sat on a mat")])
    >>> round(r.metrics["rouge1"], 4), r.primary
    (0.8333, 'rougeL')
    """

    name = "rouge"
    helper = "assert_rouge"
    description = "N-gram and longest-common-subsequence overlap with the expected answer"
    requires = ("actual", "expected")
    defaults: ClassVar[Mapping[str, Any]] = {"use_stemmer": False, "split_summaries": True}
    metrics = (
        MetricSpec("rouge1", "unigram overlap F1", threshold=0.75),
        MetricSpec("rouge2", "bigram overlap F1", threshold=0.75),
        MetricSpec("rougeL", "longest common subsequence F1", threshold=0.75, primary=True),
        MetricSpec("rougeLsum", "summary-level LCS F1 (sentence per line)", threshold=0.75),
    )

    def configure(self) -> None:
        require_type(self.name, "use_stemmer", self.params["use_stemmer"], bool, "True or False")
        require_type(self.name, "split_summaries", self.params["split_summaries"], bool, "True or False")
        from rouge_score import rouge_scorer

        self._scorer = rouge_scorer.RougeScorer(list(ROUGE_TYPES), use_stemmer=self.params["use_stemmer"])

    def backend(self) -> str:
        return package_version("rouge-score")

    def _prepare(self, text: str) -> str:
        if self.params["split_summaries"] and "\n" not in text:
            return "\n".join(split_sentences(text))
        return text

    def score(self, case: Case) -> Score:
        prediction = self._prepare(case.actual or "")
        targets = [self._prepare(t) for t in case.expected]
        per_target = [self._scorer.score(target, prediction) for target in targets]
        metrics: dict[str, float | None] = {}
        details: dict[str, Any] = {}
        for kind in ROUGE_TYPES:
            best = max(range(len(per_target)), key=lambda i: per_target[i][kind].fmeasure)
            chosen = per_target[best][kind]
            metrics[kind] = chosen.fmeasure
            details[kind] = {"precision": chosen.precision, "recall": chosen.recall, "reference": best}
        reason = ", ".join(f"{kind} {metrics[kind]:.3f}" for kind in ROUGE_TYPES)
        if len(targets) > 1:
            reason += f" (best of {len(targets)} references)"
        return Score(metrics, reason, details)


_SMOOTHING = tuple(f"method{i}" for i in range(8))


class Bleu(Evaluator):
    """Sentence BLEU-1..4 (cumulative, uniform weights) against all expected answers as references.

    Tokens come from NLTK's Treebank-style word tokenizer (no data download needed).

    Parameters:
        smoothing: an ``nltk`` ``SmoothingFunction`` method, ``method0`` (none) to ``method7``.
        weights: n-gram weights for an extra ``bleu`` metric, e.g. ``(0.5, 0.5)``.
        lowercase: lower-case both sides before tokenizing.

    >>> from pytest_llmeval.case import Case
    >>> [r] = Bleu().evaluate([Case(actual="the cat sat on the mat", expected="the cat sat on the mat")])
    >>> r.metrics["bleu4"]
    1.0
    """

    name = "bleu"
    helper = "assert_bleu"
    description = "N-gram precision with brevity penalty against the expected answer(s)"
    requires = ("actual", "expected")
    defaults: ClassVar[Mapping[str, Any]] = {"smoothing": "method1", "weights": None, "lowercase": False}
    metrics = (
        MetricSpec("bleu1", "BLEU with unigrams", threshold=0.75, primary=True),
        MetricSpec("bleu2", "cumulative BLEU up to bigrams", threshold=0.75),
        MetricSpec("bleu3", "cumulative BLEU up to trigrams", threshold=0.75),
        MetricSpec("bleu4", "cumulative BLEU up to 4-grams", threshold=0.75),
        MetricSpec("bleu", "BLEU with the custom 'weights'", threshold=0.75),
    )

    def configure(self) -> None:
        require_choice(self.name, "smoothing", self.params["smoothing"], _SMOOTHING)
        require_type(self.name, "lowercase", self.params["lowercase"], bool, "True or False")
        weights = self.params["weights"]
        if weights is not None:
            try:
                weights = tuple(float(w) for w in weights)
            except (TypeError, ValueError):
                raise TypeError(f"{self.name}: parameter 'weights' must be a sequence of numbers; got {weights!r}") from None
            if not weights or any(w < 0 for w in weights) or abs(sum(weights) - 1.0) > 1e-6:
                raise ValueError(f"{self.name}: parameter 'weights' must be non-negative and sum to 1; got {weights!r}")
            self.params["weights"] = weights
        from nltk.tokenize import NLTKWordTokenizer
        from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

        self._tokenize: Callable[[str], list[str]] = NLTKWordTokenizer().tokenize
        self._bleu = sentence_bleu
        self._smoothing = getattr(SmoothingFunction(), self.params["smoothing"])

    def backend(self) -> str:
        return package_version("nltk")

    def tokens(self, text: str) -> list[str]:
        return self._tokenize(text.lower() if self.params["lowercase"] else text)

    def score(self, case: Case) -> Score:
        hypothesis = self.tokens(case.actual or "")
        references = [self.tokens(t) for t in case.expected]
        orders = {f"bleu{n}": tuple([1.0 / n] * n) for n in range(1, 5)}
        if self.params["weights"] is not None:
            orders["bleu"] = self.params["weights"]
        metrics: dict[str, float | None] = {"bleu": None}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nltk warns about zero n-gram counts; a score of 0 says it
            for metric, weights in orders.items():
                metrics[metric] = 0.0 if not hypothesis else float(
                    self._bleu(references, hypothesis, weights=weights, smoothing_function=self._smoothing)
                )
        reason = ", ".join(f"{k} {v:.3f}" for k, v in metrics.items() if v is not None)
        return Score(metrics, reason, {"hypothesis_tokens": len(hypothesis), "references": len(references)})


_NORMALISATION: Mapping[str, Any] = {"ignore_case": False, "ignore_whitespace": True, "ignore_punctuation": False}


class _Normalising(Evaluator):
    requires = ("actual", "expected")
    defaults = _NORMALISATION

    def configure(self) -> None:
        for name in _NORMALISATION:
            require_type(self.name, name, self.params[name], bool, "True or False")

    def norm(self, text: str) -> str:
        return normalize(text, **{k: self.params[k] for k in _NORMALISATION})


class ExactMatch(_Normalising):
    """1 when the answer equals one of the expected answers after normalisation.

    Parameters: ``ignore_case``, ``ignore_whitespace`` (collapse runs, strip; default on),
    ``ignore_punctuation``.
    """

    name = "exact_match"
    helper = "assert_exact_match"
    description = "The answer equals an expected answer (after normalisation)"
    metrics = (MetricSpec("exact_match", "1 when the answer equals an expected answer", primary=True),)

    def score(self, case: Case) -> Score:
        answer = self.norm(case.actual or "")
        for index, expected in enumerate(case.expected):
            if answer == self.norm(expected):
                return Score({"exact_match": 1.0}, f"equals expected answer #{index}", {"matched": index})
        shown = " | ".join(repr(self.norm(e)[:60]) for e in case.expected[:3])
        return Score({"exact_match": 0.0}, f"{answer[:60]!r} equals none of {shown}", {"matched": None})


#: Above this many cells (len(a) x len(b)) the edit distance refuses, rather than hang.
MAX_EDIT_CELLS = 2_000_000_000


def levenshtein(a: str, b: str) -> int:
    """Levenshtein distance, bit-parallel (Hyyrö 2001) over Python integers.

    >>> levenshtein("kitten", "sitting")
    3
    """
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    masks: dict[str, int] = {}
    for index, ch in enumerate(b):
        masks[ch] = masks.get(ch, 0) | (1 << index)
    full = (1 << m) - 1
    last = 1 << (m - 1)
    vp, vn, distance = full, 0, m
    for ch in a:
        eq = masks.get(ch, 0)
        xv = eq | vn
        xh = (((eq & vp) + vp) ^ vp) | eq
        hp = vn | (~(xh | vp) & full)
        hn = vp & xh
        if hp & last:
            distance += 1
        elif hn & last:
            distance -= 1
        hp = ((hp << 1) | 1) & full
        hn = (hn << 1) & full
        vp = hn | (~(xv | hp) & full)
        vn = hp & xv
    return distance


class EditDistance(_Normalising):
    """Normalised Levenshtein similarity ``1 - distance / max(len)``; with several references, the best.

    Parameters: as :class:`ExactMatch`.

    >>> from pytest_llmeval.case import Case
    >>> [r] = EditDistance().evaluate([Case(actual="colour", expected="color")])
    >>> round(r.score, 3), r.metrics["edits"]
    (0.833, 1.0)
    """

    name = "edit_distance"
    helper = "assert_edit_distance"
    description = "Character-level similarity to the expected answer"
    metrics = (
        MetricSpec("similarity", "1 - normalised Levenshtein distance", primary=True, threshold=0.8),
        MetricSpec("distance", "Levenshtein distance / length of the longer text", higher_is_better=False, threshold=0.2),
        MetricSpec("edits", "Levenshtein distance in characters", higher_is_better=False, range=(0.0, float("inf")), threshold=None),
    )

    def score(self, case: Case) -> Score:
        answer = self.norm(case.actual or "")
        best: tuple[float, int, int] | None = None
        for index, expected in enumerate(case.expected):
            reference = self.norm(expected)
            if len(answer) * len(reference) > MAX_EDIT_CELLS:
                raise ValueError(
                    f"{self.name}: 'actual' ({len(answer)} chars) and 'expected' ({len(reference)} chars) are too "
                    f"long to compare by edit distance; use rouge or bleu for long texts"
                )
            edits = levenshtein(answer, reference)
            longest = max(len(answer), len(reference))
            similarity = 1.0 if longest == 0 else 1.0 - edits / longest
            if best is None or similarity > best[0]:
                best = (similarity, edits, index)
        assert best is not None
        similarity, edits, index = best
        metrics = {"similarity": similarity, "distance": 1.0 - similarity, "edits": float(edits)}
        return Score(metrics, f"{edits} edit(s), similarity {similarity:.3f} to expected answer #{index}", {"reference": index})
