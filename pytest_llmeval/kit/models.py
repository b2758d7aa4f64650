"""Local models, for a check that runs one (its base is `pytest_llmeval.kit.ModelEvaluator`): loading a classifier, the
embedding cache and its embedder, the device, a model's identity for the result's signature."""

from __future__ import annotations

from ..models.cache import (
    DEFAULT_EMBEDDING_MODEL,
    EMBEDDED_ALIASES,
    Embedder,
    ModelCache,
    ModelLoadError,
    embedded_model_path,
    model_identity,
    place,
    predicted_precision,
    resolve_device,
)
from ..models.config import folder_config
from ..models.evaluator import load_classifier, max_positions
from ..models.stores import text_key

__all__ = [
    "DEFAULT_EMBEDDING_MODEL",
    "EMBEDDED_ALIASES",
    "Embedder",
    "ModelCache",
    "ModelLoadError",
    "embedded_model_path",
    "model_identity",
    "place",
    "predicted_precision",
    "resolve_device",
    "folder_config",
    "load_classifier",
    "max_positions",
    "text_key",
]
