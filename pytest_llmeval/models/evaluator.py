"""The base of checks that run a local model: the model cache comes from the session (one load per process)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.evaluator import Evaluator

if TYPE_CHECKING:
    from .cache import ModelCache

__all__ = ["ModelEvaluator", "load_classifier", "max_positions"]


class ModelEvaluator(Evaluator):
    """An evaluator that runs a local model through the session's `ModelCache`.

    The plugin calls `bind()` with the session's cache, so each model loads once
    per process; used on its own, the evaluator makes a private cache on first use.
    """

    uses_models = True
    gpu = True
    models: ModelCache | None = None

    def bind(self, models: ModelCache | None) -> None:
        """Use the session's model cache (the plugin calls this)."""
        self.models = models
        self.__dict__.pop("_signature", None)  # the scoring model's signature may depend on the cache

    def model_cache(self) -> ModelCache:
        """The session's model cache, or (used on its own) a private one made on first use."""
        if self.models is None:
            from .cache import ModelCache

            self.models = ModelCache()
        return self.models


def load_classifier(evaluator: ModelEvaluator, name: str, **kwargs: Any) -> tuple[Any, Any, str]:
    """A transformers sequence classifier ``name`` (tokenizer, model, device), loaded once through the evaluator's model
    cache."""

    def build() -> tuple[Any, Any, str]:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        from .cache import ModelLoadError, place

        try:
            tokenizer = AutoTokenizer.from_pretrained(name)
            model = AutoModelForSequenceClassification.from_pretrained(name, **kwargs)
        except Exception as exc:  # noqa: BLE001 - one message for every way loading fails
            raise ModelLoadError(
                f"{evaluator.name}: could not load the model {name!r}: {exc}. Pass model= a local folder with the "
                f"model's weights, config and tokenizer (offline, the hub is not reachable)."
            ) from None
        model, device = place(model, evaluator.model_cache())
        return tokenizer, model, device

    return evaluator.model_cache().model(f"{evaluator.name} model {name}", build)


def max_positions(model: Any, tokenizer: Any) -> int:
    """How many tokens the model can read at once."""
    limits = [
        getattr(model.config, "max_position_embeddings", None),
        getattr(model.config, "n_positions", None),
        getattr(tokenizer, "model_max_length", None),
    ]
    return min([int(v) for v in limits if isinstance(v, int) and 0 < v < 1_000_000] or [512])
