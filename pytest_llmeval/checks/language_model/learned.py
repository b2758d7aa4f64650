"""Learned reference-based scores: BLEURT and MoverScore (pytest-llm-verdict[lm]).

**BLEURT** (Sellam et al., 2020, arXiv:2004.04696) is a BERT-style encoder fine-tuned
as a regression model on human ratings: the pair (reference, candidate) goes
through it as one input (``[CLS] reference [SEP] answer [SEP]``, both cut longest
first to ``max_length`` tokens) and the single output of its sequence
classification head is the score. ``model`` takes a PyTorch port by name or
folder: any ``transformers`` ``AutoModelForSequenceClassification`` checkpoint with
one output (``num_labels=1``), as the BertForSequenceClassification ports of the
original checkpoints are; the default, lucadiliello/BLEURT-20-D12 (the BLEURT
authors recommend the BLEURT-20 family), declares its own architecture
(``model_type "bleurt"``) and loads through the ``bleurt-pytorch`` package where it
is installed. With several expected answers the best score counts
(``details["reference"]`` says which). A regression head is unbounded in
principle: the declared range is [-10, 10], which real checkpoints stay well
inside (BLEURT-20 is scaled to about 0 for unrelated text and 1 for a perfect
answer; the older BLEURT-base and -large checkpoints give roughly -2 to 1.5).
The default threshold, 0.5, is the middle of BLEURT-20's scale; for the older
checkpoints, set your own.

**MoverScore** (Zhao et al., 2019, arXiv:1909.02622) is the earth mover's distance
between the answer's and the reference's contextual token embeddings, computed as
the ``moverscore`` package (1.0.3, ``moverscore_v2``) computes it:

- each text is encoded with its special tokens (``[CLS] ... [SEP]``) and cut at
  ``max_length`` tokens; the vectors of one layer (``layer``, default the last)
  are L2-normalised, and two tokens lie at the Euclidean distance of their vectors;
- word-piece continuations (``##...``), single punctuation marks and the words of
  ``stop_words`` (compared with the tokenizer's pieces; the reference's default
  list is empty) weigh 0; every other token weighs 1 or, with ``idf=True``, its
  inverse document frequency ``log((M + 1) / (df + 1))`` among the M texts of its
  side of the batch (answers and references have their own counts; a piece no text
  holds weighs ``log(M + 1)``), so [CLS] and [SEP] weigh 0 there;
- the weights of each text are scaled to sum 1, and the distance is the least
  total cost of moving one text's weight onto the other's (an exact linear
  program, solved with SciPy's HiGHS);
- ``moverscore = 1 - distance`` (``distance`` is reported too; the package's later
  source returns ``1 / (1 + distance)``, which the ``distance`` metric gives).

Distances lie in [0, 2], so scores in [-1, 1]; an answer identical to its
reference scores 1 without IDF. The reference scores a single sentence with
uniform weights, and so does the default (``idf=False``); with one answer and one
reference every IDF weight is 0 (the reference then scores 1 whatever the texts):
such a text's tokens weigh the same instead, and the reason says so. With several
expected answers the scores are averaged, as the reference's ``sentence_score``
does (``aggregate="max"`` takes the best). The default encoder is the reference's
distilbert-base-uncased. The default threshold, 0.5, is not calibrated: measure
on your own data.

No registry package ships either model: offline, pass ``scorer=`` a local folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, ClassVar

from ...kit import package_version

from ...kit import require_number, require_type

from ...kit import ModelEvaluator

__all__ = ["BATCH_SIZE", "declared_architecture", "one_line", "load_error", "check_folder", "LearnedEvaluator"]

BATCH_SIZE = 16


def _looks_like_path(name: str) -> bool:
    """A local folder rather than a hub id (``org/name``)."""
    return os.path.isabs(name) or name.startswith((".", "~")) or name.count("/") > 1 or "\\" in name


def declared_architecture(name: str) -> str:
    """What a local folder's config.json declares (``model_type`` and ``architectures``), for error messages."""
    from ...kit.models import folder_config

    config = folder_config(name)
    if not config:
        return ""
    return (
        f" (its config.json declares model_type {config.get('model_type')!r}, "
        f"architectures {config.get('architectures')})"
    )


def one_line(exc: Exception) -> str:
    return " ".join(str(exc).split()).rstrip(".")


def load_error(evaluator: ModelEvaluator, role: str, name: str, problem: str, expected: str) -> Exception:
    from ...kit.models import ModelLoadError

    if os.environ.get("HF_HUB_OFFLINE"):
        offline = " HF_HUB_OFFLINE=1 is set: only local folders work, a hub name cannot be downloaded."
    else:
        offline = " (With HF_HUB_OFFLINE=1 only local folders work.)"
    return ModelLoadError(
        f"{evaluator.name}: {problem}. {expected} Pass scorer= ({evaluator.helper}) or the evaluator's model= "
        f"the hub name or local folder of the {role}.{offline}"
    )


def check_folder(evaluator: ModelEvaluator, role: str, name: str, expected: str) -> None:
    path = os.path.expanduser(name)
    if _looks_like_path(name) and not os.path.isdir(path):
        raise load_error(evaluator, role, name, f"the {role} folder {name!r} does not exist", expected)


class LearnedEvaluator(ModelEvaluator):
    """Shared: a reference-based check scored by one transformers model (``model``) on token windows
    (``max_length``)."""

    requires = ("actual", "expected")
    extra = "lm"
    default_model: ClassVar[str] = ""
    role: ClassVar[str] = "model"

    def configure(self) -> None:
        if self.params["model"] is not None:
            require_type(
                self.name, "model", self.params["model"], str, f"the hub name or local folder of a {self.role}"
            )
        require_number(self.name, "max_length", self.params["max_length"], low=8, integer=True)

    def model_name(self) -> str:
        return str(self.params["model"] or self.default_model)

    def backend(self) -> str:
        return package_version("transformers")

    def signature_params(self) -> Mapping[str, Any]:
        return {k: v for k, v in self.params.items() if k != "model"}  # the model is in the signature's model
