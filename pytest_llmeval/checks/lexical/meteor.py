"""The ``meteor`` check: METEOR of the answer against the expected answer(s), best of several (nltk's
implementation)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import Evaluator, MetricSpec, Score, package_version
from ...kit import Result

__all__ = ["assert_meteor", "Meteor"]


def assert_meteor(actual: str, expected: Any, **kwargs: Any) -> Result:
    """METEOR against the expected answer(s) (nltk's; default threshold 0.5): form, stem and, with WordNet data,
    synonyms."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(Meteor, actual=actual, expected=expected, **kwargs)


_TOKEN = re.compile(r"\w+(?:[-']\w+)*|[^\w\s]")


class _NoWordNet:
    """Stands in for WordNet when its data is not installed: no synonyms."""

    def synsets(self, *args: Any, **kwargs: Any) -> list[Any]:
        return []


def _wordnet() -> tuple[Any, bool]:
    try:
        from nltk.corpus import wordnet

        wordnet.synsets("test")
        return wordnet, True
    except LookupError:
        return _NoWordNet(), False


class Meteor(Evaluator):
    """METEOR of the answer against the expected answer(s), best of several (nltk's implementation).

    Parameters:
        alpha, beta, gamma: METEOR's parameters (nltk's defaults 0.9, 3.0, 0.5).
    """

    name = "meteor"
    helper = "assert_meteor"
    description = "METEOR against the expected answer: unigram matches by form, stem and synonym, with an order penalty"
    requires = ("actual", "expected")
    defaults: ClassVar[Mapping[str, Any]] = {"alpha": 0.9, "beta": 3.0, "gamma": 0.5}
    metrics = (MetricSpec("meteor", "METEOR score, best over the expected answers", threshold=0.5, primary=True),)

    def configure(self) -> None:
        for key in ("alpha", "beta", "gamma"):
            value = self.params[key]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"{self.name}: parameter {key!r} must be a non-negative number; got {value!r}")
        self._wordnet = _wordnet()

    def backend(self) -> str:
        return package_version("nltk")

    def signature_params(self) -> Mapping[str, Any]:
        return {**self.params, "wordnet": self._wordnet[1]}

    def score(self, case: Case) -> Score:
        from nltk.translate.meteor_score import single_meteor_score

        hypothesis = _TOKEN.findall((case.actual or "").lower())
        values = []
        for reference in case.expected:
            tokens = _TOKEN.findall(reference.lower())
            values.append(
                single_meteor_score(
                    tokens,
                    hypothesis,
                    wordnet=self._wordnet[0],
                    alpha=self.params["alpha"],
                    beta=self.params["beta"],
                    gamma=self.params["gamma"],
                )
                if tokens and hypothesis
                else 0.0
            )
        best = max(range(len(values)), key=values.__getitem__)
        synonyms = (
            "with WordNet synonyms" if self._wordnet[1] else "exact and stem matches (WordNet data not installed)"
        )
        return Score(
            {"meteor": float(values[best])},
            f"METEOR {values[best]:.3f} against expected answer {best + 1}, {synonyms}",
            {"per_expected": [round(v, 6) for v in values]},
        )
