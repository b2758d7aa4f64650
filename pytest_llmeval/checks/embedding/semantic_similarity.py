"""The ``semantic_similarity`` check: Whole-answer similarity to the expected answer(s): bi-encoder cosine, or a
cross-encoder score; plus the fact layer."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_choice, require_type
from ...kit import Result
from .answers import FACT_METRICS, FactChecked, pick_answer, with_facts
from .base import calibrated

if TYPE_CHECKING:
    pass

__all__ = ["assert_similar", "SemanticSimilarity"]


def assert_similar(
    actual: str,
    expected: Any,
    *,
    method: str = "embeddings",
    cross_encoder: str | None = None,
    facts: bool = True,
    entities: str = "auto",
    scorer: str | None = None,
    embedding_model: str | None = None,
    **kwargs: Any,
) -> Result:
    """The answer means the same as the expected answer, and its facts agree (semantic similarity).

    ``method="cross-encoder"`` scores the pair with the ``cross_encoder`` model instead
    of embeddings. With ``facts=True`` ("The capital is Sydney" vs "... Canberra")
    a number, date or name that the expected answer does not state fails the check.
    """
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {
        "model": scorer_argument("assert_similar", scorer, embedding_model=embedding_model),
        "method": method,
        "cross_encoder": cross_encoder,
        "facts": facts,
        "entities": entities,
    }
    return check(SemanticSimilarity, actual=actual, expected=expected, params=params, **kwargs)


class SemanticSimilarity(FactChecked):
    """Whole-answer similarity to the expected answer(s): bi-encoder cosine, or a cross-encoder score; plus the fact
    layer.

    Parameters:
        method: ``embeddings`` (default) or ``cross-encoder``.
        cross_encoder: the cross-encoder model (name or folder) for ``method="cross-encoder"``.
        facts: with ``True`` (default) a number, date or name of the answer that the
            expected answer does not state fails the check and is named.
        entities: the fact layer's name extractor (``auto``, ``rules``, ``spacy``).
    """

    name = "semantic_similarity"
    helper = "assert_similar"
    extra = "embeddings"
    version = "3"
    description = "The answer means the same as the expected answer, and its facts agree"
    requires = ("actual", "expected")
    defaults: ClassVar[Mapping[str, Any]] = {
        "model": None,
        "method": "embeddings",
        "cross_encoder": None,
        "facts": True,
        "entities": "auto",
    }
    metrics = (
        MetricSpec(
            "similarity",
            "similarity to the closest expected answer",
            threshold=0.75,
            primary=True,
            calibrated=calibrated(0.57, 0.75),
        ),
        *FACT_METRICS,
    )

    def default_threshold(self, spec: MetricSpec) -> float | None:
        if self.params["method"] == "cross-encoder":
            return spec.threshold  # a cross-encoder's scale is its own: the catalog value
        return super().default_threshold(spec)

    def configure(self) -> None:
        super().configure()
        require_choice(self.name, "method", self.params["method"], ("embeddings", "cross-encoder"))
        if self.params["method"] == "cross-encoder":
            require_type(
                self.name, "cross_encoder", self.params["cross_encoder"], str, "a cross-encoder model name or folder"
            )

    def scoring_model(self) -> str | None:
        if self.params["method"] == "cross-encoder":
            from ...kit.models import model_identity

            return f"cross-encoder:{model_identity(self.params['cross_encoder'])}"
        return super().scoring_model()

    def signature_params(self) -> Mapping[str, Any]:
        params = dict(super().signature_params())
        params.pop("cross_encoder", None)  # named by the scoring model
        return params

    def _cross_encoder(self) -> Any:
        return self.model_cache().cross_encoder(
            self.params["cross_encoder"], owner=self.name, role="cross-encoder", parameter="cross_encoder"
        )

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        import numpy as np

        pairs = [(c.actual or "", e) for c in cases for e in c.expected]
        if self.params["method"] == "cross-encoder":
            raw = np.asarray(self._cross_encoder().predict(pairs, show_progress_bar=False), dtype=np.float32).reshape(
                len(pairs), -1
            )
            values = np.clip(raw[:, -1], 0.0, 1.0)
        else:
            actual, expected = self.encode_all([[p[0] for p in pairs], [p[1] for p in pairs]])
            values = np.clip((actual * expected).sum(axis=1), 0.0, 1.0)
        out, cursor = [], 0
        for case in cases:
            chunk = [float(v) for v in values[cursor : cursor + len(case.expected)]]
            cursor += len(case.expected)
            facts = self.reference_facts(case.actual or "", list(case.expected)) if self.params["facts"] else None
            best = pick_answer(chunk, facts)
            score = Score(
                {"similarity": chunk[best]},
                f"similarity {chunk[best]:.3f} to expected answer #{best}",
                {"reference": best, "method": self.params["method"]},
            )
            out.append(with_facts(score, facts[best] if facts else None))
        return out
