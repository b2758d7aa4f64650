"""The ``hallucination`` check: Factual consistency of the answer with the best-supporting context chunk (higher is
better)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score, package_version
from ...kit import require_choice, require_type
from ...kit import ModelEvaluator
from ...kit import Result
from ...kit.text import excerpt, split_sentences
from ...kit.models import load_classifier

__all__ = ["assert_no_hallucination", "Hallucination", "nli_entailment"]


def assert_no_hallucination(
    actual: str,
    context: Any,
    *,
    method: str = "hhem",
    scorer: str | None = None,
    entities: str = "auto",
    nli_model: str | None = None,
    **kwargs: Any,
) -> Result:
    """The answer is supported by a context chunk (HHEM or NLI factual consistency, threshold 0.75), and so are its
    facts."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {
        "method": method,
        "model": scorer_argument("assert_no_hallucination", scorer, nli_model=nli_model),
        "entities": entities,
    }
    return check(Hallucination, actual=actual, context=context, params=params, **kwargs)


def nli_entailment(
    evaluator: ModelEvaluator, name: str, label: str, pairs: list[tuple[str, str]], *, parameter: str
) -> list[float]:
    """Entailment probabilities of (premise, hypothesis) pairs from an NLI cross-encoder, loaded once per session.

    A model with one output is read as a probability; one with several classes is
    soft-maxed and the class named ``label`` (case-insensitive) is taken.
    ``parameter`` names the evaluator's parameter for the model, for load errors.
    """
    encoder = evaluator.model_cache().cross_encoder(name, owner=evaluator.name, role="NLI model", parameter=parameter)
    import numpy as np

    raw = np.asarray(encoder.predict(pairs, show_progress_bar=False, batch_size=32), dtype=np.float32)
    if raw.ndim == 1 or raw.shape[1] == 1:
        return [min(1.0, max(0.0, float(v))) for v in raw.reshape(-1)]
    labels = {str(v).casefold(): int(k) for k, v in encoder.model.config.id2label.items()}
    entail = labels.get(label.casefold())
    if entail is None:
        raise ValueError(f"{evaluator.name}: the NLI model has no class {label!r}; its classes: {sorted(labels)}")
    probabilities = np.exp(raw - raw.max(axis=1, keepdims=True))
    probabilities /= probabilities.sum(axis=1, keepdims=True)
    return [float(p) for p in probabilities[:, entail]]


class Hallucination(ModelEvaluator):
    """Factual consistency of the answer with the best-supporting context chunk (higher is better).

    Parameters:
        method: ``hhem`` (Vectara's model, remote code) or ``nli`` (any NLI / cross-encoder).
        model: the model name or folder (default: vectara/hallucination_evaluation_model).
        entailment_label: the NLI class meaning entailment (``nli`` with several classes).
        entities: the fact layer's name extractor (``auto``, ``rules``, ``spacy``).
    """

    name = "hallucination"
    helper = "assert_no_hallucination"
    extra = "embeddings"
    version = "2"
    description = "The answer is supported by the retrieved context, and so are its facts"
    requires = ("actual", "context")
    defaults: ClassVar[Mapping[str, Any]] = {
        "method": "hhem",
        "model": None,
        "entailment_label": "entailment",
        "entities": "auto",
    }
    metrics = (
        MetricSpec("consistency", "factual consistency with the best-supporting chunk", threshold=0.75, primary=True),
        MetricSpec(
            "fact_support",
            "share of the answer's facts (numbers, dates, names, negations) the context states",
            threshold=1.0,
            gates=True,
        ),
        MetricSpec(
            "unsupported_facts",
            "facts of the answer the context does not state",
            higher_is_better=False,
            range=(0.0, float("inf")),
            threshold=None,
        ),
    )

    def configure(self) -> None:
        require_choice(self.name, "method", self.params["method"], ("hhem", "nli"))
        if self.params["model"] is None:
            if self.params["method"] == "nli":
                raise TypeError(
                    f"{self.name}: method 'nli' needs parameter 'model', an NLI cross-encoder name or folder"
                )
            self.params["model"] = "vectara/hallucination_evaluation_model"
        require_type(self.name, "model", self.params["model"], str, "a model name or folder")
        from ...kit.facts import FactLayer

        self.facts = FactLayer(self, self.params["entities"])

    def signature_params(self) -> Mapping[str, Any]:
        return {**super().signature_params(), "entities": self.facts.extractor()}

    def backend(self) -> str:
        return package_version("transformers" if self.params["method"] == "hhem" else "sentence-transformers")

    def scoring_model(self) -> str | None:
        from ...kit.models import model_identity

        return f"{self.params['method']}:{model_identity(self.params['model'])}"

    def _pair_scores(self, pairs: list[tuple[str, str]]) -> list[float]:
        if self.params["method"] == "hhem":
            _, model, _ = load_classifier(self, self.params["model"], trust_remote_code=True)
            return [float(v) for v in model.predict(pairs)]
        return nli_entailment(self, self.params["model"], self.params["entailment_label"], pairs, parameter="model")

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        pairs = [(chunk, c.actual or "") for c in cases for chunk in c.context]
        scores = self._pair_scores(pairs) if pairs else []
        out, cursor = [], 0
        for case in cases:
            window = [min(1.0, max(0.0, s)) for s in scores[cursor : cursor + len(case.context)]]
            cursor += len(case.context)
            best = max(range(len(window)), key=window.__getitem__)
            answer = case.actual or ""
            support, unsupported, messages, details = self.facts.judge(
                split_sentences(answer) or [answer], self.facts.index(list(case.context)), "context"
            )
            reason = f"best-supporting chunk #{best} ({window[best]:.3f}): {excerpt(case.context[best], 80)!r}"
            out.append(
                Score(
                    {"consistency": window[best], "fact_support": support, "unsupported_facts": float(unsupported)},
                    "; ".join([*messages, reason]),
                    {"chunk_scores": window, "best_chunk": best, "unsupported_facts": details},
                )
            )
        return out
