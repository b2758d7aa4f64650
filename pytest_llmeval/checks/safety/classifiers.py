"""Sequence classifiers of the safety checks: loading one, and the probability of a class as a check
(``fairness_bias``, ``prompt_injection``; ``toxicity`` loads its classifier here too).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import Case
from ...kit import Score, package_version
from ...kit import require_number, require_type
from ...kit import ModelEvaluator
from ...kit.models import load_classifier, max_positions

__all__ = ["ClassProbability"]

_BATCH = 16


class ClassProbability(ModelEvaluator):
    """The probability a sequence classifier gives one class (``label``), lower is better."""

    field = "actual"
    reference_model = ""
    reference_label = ""
    metric = ""
    defaults: ClassVar[Mapping[str, Any]] = {"model": None, "label": None, "max_length": 512}

    def configure(self) -> None:
        if self.params["model"] is None:
            self.params["model"] = self.reference_model
        if self.params["label"] is None:
            self.params["label"] = self.reference_label
        require_type(self.name, "model", self.params["model"], str, "a model name or folder")
        require_type(self.name, "label", self.params["label"], str, "the name of the class to score")
        require_number(self.name, "max_length", self.params["max_length"], low=8, integer=True)

    def backend(self) -> str:
        return package_version("transformers")

    def scoring_model(self) -> str | None:
        from ...kit.models import model_identity

        return model_identity(self.params["model"])

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        import torch

        tokenizer, model, device = load_classifier(self, self.params["model"])
        labels = {str(v).casefold(): int(k) for k, v in model.config.id2label.items()}
        target = labels.get(self.params["label"].casefold())
        if target is None:
            raise ValueError(
                f"{self.name}: the model has no class {self.params['label']!r}; its classes: {sorted(labels)}"
            )
        texts = [getattr(c, self.field) or "" for c in cases]
        limit = min(self.params["max_length"], max_positions(model, tokenizer))
        out = []
        for start in range(0, len(texts), _BATCH):
            chunk = texts[start : start + _BATCH]
            lengths = [len(ids) for ids in tokenizer(chunk, truncation=False)["input_ids"]]
            batch = tokenizer(chunk, padding=True, truncation=True, max_length=limit, return_tensors="pt").to(device)
            with torch.no_grad():
                probabilities = model(**batch).logits.float().softmax(dim=-1)[:, target].cpu().tolist()
            for _, tokens, p in zip(chunk, lengths, probabilities):
                truncated = tokens > limit
                reason = f"{self.params['label']} with probability {p:.3f}"
                if truncated:
                    reason += f"; only the first {limit} of {tokens} tokens were read, which may affect the score"
                out.append(Score({self.metric: p}, reason, {"tokens": tokens, "truncated": truncated}))
        return out
