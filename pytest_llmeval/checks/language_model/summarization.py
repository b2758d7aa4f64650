"""Summarization completeness and faithfulness without a reference (catalog: Summarization
(Completeness and Faithfulness) Evaluator). The question is the source text, the answer its summary.

- ``completeness`` (primary), a geometric measure: sentence embeddings of the
  source and the summary are projected to at most 5 dimensions fitted on the
  source sentences; each summary point snaps to its nearest source point when it
  is closer than the median distance between source points, and is dropped
  otherwise (an ungrounded sentence adds no coverage). A summary sentence whose
  best cosine similarity to a source sentence, in the full embedding space, is
  below ``grounding`` is dropped first: the projection keeps only the source's
  directions, so an off-topic sentence lands among the source points and would
  snap (the catalog's filter is meant to throw such sentences out); the coverage is
  then multiplied by the share of summary sentences that are on topic, so padding a
  complete summary with unrelated sentences costs completeness. The measure is the
  "three-segment distance" of the snapped points over that of the source points,
  capped at 1. The three-segment distance is the longest segment between two
  points plus, from each of its two ends, the longest segment to another point.
  The projection is PCA rather than the catalog's UMAP: it is deterministic, needs
  no extra dependency, and a span over a handful of points is what it measures.
- ``faithfulness_zs``, in the spirit of SummaC zero-shot: an NLI model scores each
  (source sentence, summary sentence) pair; each summary sentence keeps its best
  entailment probability over the source; the metric is their mean. (SummaC-Conv
  needs its trained convolution layer, which no package ships; it is not offered.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_number, require_type
from ...kit import Result
from ...kit.text import embedded_sentences as _sentences
from ...kit.text import excerpt
from ..embedding.base import EmbeddingEvaluator, calibrated

__all__ = ["assert_good_summary", "Summarization", "three_segment_distance", "geometric_completeness"]


def assert_good_summary(
    summary: str, source: str, *, scorer: str | None = None, nli_model: str | None = None, **kwargs: Any
) -> Result:
    """The summary covers its source (geometric completeness, 0.75) and is entailed by it (``thresholds`` for
    faithfulness)."""
    __tracebackhide__ = True
    check_kwargs(kwargs, allowed=("model", "metadata", "history"))
    nli = scorer_argument("assert_good_summary", scorer, nli_model=nli_model)
    params = {} if nli is None else {"nli_model": nli}
    return check(Summarization, actual=summary, question=source, params=params, **kwargs)


#: The grounding cut-off: semantic_sentence_similarity's sentence-match threshold, per embedding model.
GROUNDING = MetricSpec(
    "grounding",
    "best similarity of a summary sentence to a source sentence",
    threshold=0.75,
    calibrated=calibrated(0.55, 0.75),
)


REFERENCE_NLI = "tals/albert-xlarge-vitaminc-mnli"


def three_segment_distance(points: Any) -> float:
    """Longest segment plus the longest segment from each of its ends.

    >>> import numpy as np
    >>> three_segment_distance(np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 3.0]]))
    12.0
    """
    import numpy as np

    if len(points) < 2:
        return 0.0
    distances = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=-1)
    a, b = np.unravel_index(int(distances.argmax()), distances.shape)
    total = float(distances[a, b])
    if len(points) > 2:
        others = [i for i in range(len(points)) if i not in (a, b)]
        total += float(distances[a, others].max()) + float(distances[b, others].max())
    return total


def geometric_completeness(
    source: Any, summary: Any, dimensions: int = 5, min_similarity: float | None = None
) -> tuple[float, list[int | None]]:
    """Completeness of ``summary`` points over ``source`` points, and where each summary point snapped.

    ``min_similarity``: a summary point whose best cosine similarity to a source point is below it is dropped.
    """
    import numpy as np

    if len(source) == 0 or len(summary) == 0:
        return 0.0, [None] * len(summary)
    grounded = [True] * len(summary)
    if min_similarity is not None:
        unit = [m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12) for m in (source, summary)]
        grounded = [bool(best >= min_similarity) for best in (unit[1] @ unit[0].T).max(axis=1)]
    center = source.mean(axis=0)
    k = max(1, min(dimensions, len(source) - 1, source.shape[1]))
    _, _, components = np.linalg.svd(source - center, full_matrices=False)
    project = components[:k].T
    src, summ = (source - center) @ project, (summary - center) @ project
    pairwise = np.linalg.norm(src[:, None, :] - src[None, :, :], axis=-1)
    upper = pairwise[np.triu_indices(len(src), k=1)]
    limit = float(np.percentile(upper, 50)) if len(upper) else 0.0
    snapped: list[int | None] = []
    for point, on_topic in zip(summ, grounded):
        gaps = np.linalg.norm(src - point, axis=1)
        nearest = int(gaps.argmin())
        snapped.append(nearest if on_topic and (gaps[nearest] <= limit or len(src) == 1) else None)
    kept = sorted({i for i in snapped if i is not None})
    # off-topic sentences cost coverage: what is covered, times the share on topic
    share = sum(grounded) / len(grounded)
    whole = three_segment_distance(src)
    if whole == 0.0:
        return (share if kept else 0.0), snapped
    return min(1.0, three_segment_distance(src[kept]) / whole) * share, snapped


class Summarization(EmbeddingEvaluator):
    """Is the summary (the answer) complete and faithful to the source (the question)?

    Parameters:
        model: the embedding model (default: the session's).
        nli_model: the NLI cross-encoder for faithfulness (reference: tals/albert-xlarge-vitaminc-mnli).
        entailment_label: the NLI class meaning entailment.
        dimensions: dimensions of the projection for completeness.
        grounding: the cosine similarity to some source sentence a summary sentence needs to count
            for completeness (default: calibrated per embedding model, 0.55 for all-MiniLM-L6-v2,
            the catalog's 0.75 otherwise).
    """

    name = "summarization"
    helper = "assert_good_summary"
    extra = "embeddings"
    description = "The summary covers the source and says nothing the source does not"
    version = (
        "2"  # 2: off-topic sentences are dropped before snapping (they snapped) and cost their share of completeness
    )
    requires = ("actual", "question")
    defaults: ClassVar[Mapping[str, Any]] = {
        "model": None,
        "nli_model": REFERENCE_NLI,
        "entailment_label": "entailment",
        "dimensions": 5,
        "grounding": None,
    }
    metrics = (
        MetricSpec(
            "completeness",
            "geometric coverage of the source by the grounded summary sentences",
            threshold=0.75,
            primary=True,
        ),
        MetricSpec(
            "faithfulness_zs", "mean over summary sentences of the best entailment by a source sentence", threshold=0.75
        ),
    )

    def configure(self) -> None:
        super().configure()
        require_type(self.name, "nli_model", self.params["nli_model"], str, "an NLI cross-encoder name or folder")
        require_type(self.name, "dimensions", self.params["dimensions"], int, "a positive integer")
        if self.params["grounding"] is not None:
            require_number(self.name, "grounding", self.params["grounding"], low=0, high=1)

    def grounding(self) -> float:
        """The grounding cut-off in force: the parameter, else the one calibrated for the embedding model."""
        chosen = self.params["grounding"]
        return float(chosen if chosen is not None else self.default_threshold(GROUNDING) or 0.75)

    def signature_params(self) -> Mapping[str, Any]:
        return {**super().signature_params(), "grounding": self.grounding()}

    def scoring_model(self) -> str | None:
        from ...kit.models import model_identity

        return f"{super().scoring_model()}+nli:{model_identity(self.params['nli_model'])}"

    def _entailment(self, pairs: list[tuple[str, str]]) -> list[float]:
        from .hallucination import Hallucination

        nli = Hallucination(
            method="nli", model=self.params["nli_model"], entailment_label=self.params["entailment_label"]
        )
        nli.bind(self.model_cache())
        return nli._pair_scores(pairs)

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        sources = [_sentences(c.question or "") for c in cases]
        summaries = [_sentences(c.actual or "") for c in cases]
        encoded = self.encode_all([*sources, *summaries])
        pairs = [(s, t) for src, summ in zip(sources, summaries) for t in summ for s in src]
        entailment = self._entailment(pairs) if pairs else []
        out, cursor, grounding = [], 0, self.grounding()
        for index, (src, summ) in enumerate(zip(sources, summaries)):
            if not src or not summ:
                missing = "source" if not src else "summary"
                out.append(
                    Score(
                        {"completeness": None, "faithfulness_zs": None}, f"the {missing} has no sentence to compare", {}
                    )
                )
                continue
            completeness, snapped = geometric_completeness(
                encoded[index], encoded[len(cases) + index], self.params["dimensions"], grounding
            )
            best = []
            for _ in summ:
                row = entailment[cursor : cursor + len(src)]
                cursor += len(src)
                best.append(max(min(1.0, max(0.0, v)) for v in row))
            faithful = sum(best) / len(best)
            weakest = min(range(len(best)), key=best.__getitem__)
            dropped = [excerpt(s, 100) for s, where in zip(summ, snapped) if where is None]
            reason = (
                f"completeness {completeness:.3f}, faithfulness {faithful:.3f}; least supported summary sentence "
                f"{excerpt(summ[weakest], 80)!r} ({best[weakest]:.3f})"
                + (f"; {len(dropped)} of {len(summ)} summary sentences not grounded in the source" if dropped else "")
            )
            out.append(
                Score(
                    {"completeness": completeness, "faithfulness_zs": faithful},
                    reason,
                    {"ungrounded_sentences": dropped, "sentence_faithfulness": best},
                )
            )
        return out
