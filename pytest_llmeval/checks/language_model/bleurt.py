"""The ``bleurt`` check: BLEURT: a fine-tuned regression model's score of the answer against the expected answer(s)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import Result
from ...kit.models import max_positions
from .learned import BATCH_SIZE, LearnedEvaluator, check_folder, declared_architecture, load_error, one_line

__all__ = ["assert_bleurt", "Bleurt", "DEFAULT_BLEURT_MODEL"]


def assert_bleurt(
    actual: str, expected: Any, *, max_length: int = 512, scorer: str | None = None, **kwargs: Any
) -> Result:
    """BLEURT's learned score of the answer against the expected answer(s) (the best of them; default threshold 0.5).

    ``scorer``: a PyTorch BLEURT checkpoint by hub name or local folder, with a one-output
    sequence-classification head (default lucadiliello/BLEURT-20-D12, which needs ``pip install
    bleurt-pytorch``). 0.5 is the middle of BLEURT-20's scale (about 0 unrelated, 1 perfect);
    older BLEURT checkpoints score on another scale: set ``threshold`` for them.
    """
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {"model": scorer_argument("assert_bleurt", scorer), "max_length": max_length}
    return check(Bleurt, actual=actual, expected=expected, params=params, **kwargs)


DEFAULT_BLEURT_MODEL = "lucadiliello/BLEURT-20-D12"


#: What BLEURT scores are declared to lie in (a regression output; real checkpoints stay well inside).
BLEURT_RANGE = (-10.0, 10.0)


class Bleurt(LearnedEvaluator):
    """BLEURT: a fine-tuned regression model's score of the answer against the expected answer(s).

    Parameters:
        model: hub name or folder of a PyTorch BLEURT checkpoint with a one-output
            sequence-classification head (default lucadiliello/BLEURT-20-D12).
        max_length: tokens of the (reference, answer) pair at most (and at most what the model reads).
    """

    name = "bleurt"
    helper = "assert_bleurt"
    description = "Learned quality score of the answer against the expected answer (BLEURT regression model)"
    defaults: ClassVar[Mapping[str, Any]] = {"model": None, "max_length": 512}
    default_model = DEFAULT_BLEURT_MODEL
    role = "BLEURT model"
    metrics = (
        MetricSpec(
            "bleurt",
            "BLEURT regression score of the (reference, answer) pair; BLEURT-20: ~0 unrelated, ~1 perfect",
            range=BLEURT_RANGE,
            threshold=0.5,
            primary=True,
        ),
    )
    _EXPECTED = (
        "Expected a PyTorch BLEURT checkpoint that transformers' AutoModelForSequenceClassification loads, "
        "with one output (num_labels=1) and its tokenizer; a checkpoint of model_type 'bleurt' (the "
        "lucadiliello/BLEURT-20 ports) needs `pip install bleurt-pytorch`."
    )

    def scoring_model(self) -> str | None:
        from ...kit.models import model_identity, predicted_precision

        cache = self.model_cache()
        return f"{model_identity(self.model_name())}|{predicted_precision(cache.device, cache.precision)}"

    def _load(self) -> tuple[Any, Any, str]:
        name, cache = self.model_name(), self.model_cache()

        def build() -> tuple[Any, Any, str]:
            from ...kit.models import ModelLoadError, place

            check_folder(self, self.role, name, self._EXPECTED)
            try:
                tokenizer, model = _bleurt_classes(name)
            except Exception as exc:  # noqa: BLE001 - one message for every way loading fails
                problem = f"could not load the {self.role} {name!r}{declared_architecture(name)}: {one_line(exc)}"
                raise load_error(self, self.role, name, problem, self._EXPECTED) from None
            outputs = int(getattr(model.config, "num_labels", 0))
            if outputs != 1:
                labels = sorted(str(v) for v in (getattr(model.config, "id2label", None) or {}).values())
                raise ModelLoadError(
                    f"{self.name}: the model {name!r} has a classification head with {outputs} outputs {labels}; "
                    f"BLEURT is a regression model with one output (num_labels=1). {self._EXPECTED}"
                )
            model, device = place(model, cache)
            return tokenizer, model, device

        return cache.model(f"{self.role} {name}", build)

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        import torch

        tokenizer, model, device = self._load()
        limit = min(self.params["max_length"], max_positions(model, tokenizer))
        pairs = [(reference, case.actual or "") for case in cases for reference in case.expected]
        values: list[float] = []
        truncated: list[bool] = []
        for start in range(0, len(pairs), BATCH_SIZE):
            references, answers = (list(side) for side in zip(*pairs[start : start + BATCH_SIZE]))
            lengths = [len(ids) for ids in tokenizer(references, answers, truncation=False)["input_ids"]]
            batch = tokenizer(
                references, answers, padding=True, truncation=True, max_length=limit, return_tensors="pt"
            ).to(device)
            with torch.no_grad():
                logits = model(**batch).logits.float()
            values.extend(float(v) for v in logits[:, 0].cpu().tolist())
            truncated.extend(n > limit for n in lengths)
        out, cursor = [], 0
        for case in cases:
            scores = values[cursor : cursor + len(case.expected)]
            cut = any(truncated[cursor : cursor + len(case.expected)])
            cursor += len(case.expected)
            index = max(range(len(scores)), key=scores.__getitem__)  # the first of the best
            against = (
                f"expected answer #{index}"
                if len(scores) == 1
                else f"the best of {len(scores)} expected answers (#{index})"
            )
            reason = f"BLEURT {scores[index]:.3f} vs {against}"
            if cut:
                reason += f"; a pair was longer than {limit} tokens and was cut, which may affect the score"
            details: dict[str, Any] = {"reference": index, "truncated": cut}
            if len(scores) > 1:
                details["scores"] = scores
            out.append(Score({"bleurt": scores[index]}, reason, details))
        return out


def _bleurt_classes(name: str) -> tuple[Any, Any]:
    """(tokenizer, model): transformers' Auto classes, or bleurt-pytorch's for a ``model_type "bleurt"`` checkpoint."""
    from importlib import import_module
    from importlib.util import find_spec

    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    try:
        return AutoTokenizer.from_pretrained(name), AutoModelForSequenceClassification.from_pretrained(name)
    except Exception as auto_error:
        if find_spec("bleurt_pytorch") is None:
            raise
        failed = auto_error
    bleurt = import_module("bleurt_pytorch")  # it registers nothing with the Auto classes: use its own
    try:
        return bleurt.BleurtTokenizer.from_pretrained(name), bleurt.BleurtForSequenceClassification.from_pretrained(
            name
        )
    except Exception:  # noqa: BLE001 - not a bleurt checkpoint either: the Auto classes' error says more
        raise failed from None
