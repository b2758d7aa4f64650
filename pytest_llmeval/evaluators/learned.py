"""Learned reference-based scores: BLEURT and MoverScore (pytest-llmeval[lm]).

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

import math
import os
import string
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..case import Case
from .base import MetricSpec, ModelEvaluator, Score, package_version, require_choice, require_number, require_type
from .detectors import _positions

__all__ = ["Bleurt", "MoverScore", "DEFAULT_BLEURT_MODEL", "DEFAULT_MOVERSCORE_MODEL", "earth_movers_distance"]

DEFAULT_BLEURT_MODEL = "lucadiliello/BLEURT-20-D12"
DEFAULT_MOVERSCORE_MODEL = "distilbert-base-uncased"
#: What BLEURT scores are declared to lie in (a regression output; real checkpoints stay well inside).
BLEURT_RANGE = (-10.0, 10.0)
_BATCH = 16
_PUNCTUATION = frozenset(string.punctuation)


def _looks_like_path(name: str) -> bool:
    """A local folder rather than a hub id (``org/name``)."""
    return os.path.isabs(name) or name.startswith((".", "~")) or name.count("/") > 1 or "\\" in name


def _declared_architecture(name: str) -> str:
    """What a local folder's config.json declares (``model_type`` and ``architectures``), for error messages."""
    import json

    try:
        with open(os.path.join(name, "config.json"), encoding="utf-8") as handle:
            config = json.load(handle)
    except (OSError, ValueError):
        return ""
    return f" (its config.json declares model_type {config.get('model_type')!r}, architectures {config.get('architectures')})"


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split()).rstrip(".")


def _load_error(evaluator: ModelEvaluator, role: str, name: str, problem: str, expected: str) -> Exception:
    from ..models import ModelLoadError

    if os.environ.get("HF_HUB_OFFLINE"):
        offline = " HF_HUB_OFFLINE=1 is set: only local folders work, a hub name cannot be downloaded."
    else:
        offline = " (With HF_HUB_OFFLINE=1 only local folders work.)"
    return ModelLoadError(
        f"{evaluator.name}: {problem}. {expected} Pass scorer= ({evaluator.helper}) or the evaluator's model= "
        f"the hub name or local folder of the {role}.{offline}"
    )


def _check_folder(evaluator: ModelEvaluator, role: str, name: str, expected: str) -> None:
    path = os.path.expanduser(name)
    if _looks_like_path(name) and not os.path.isdir(path):
        raise _load_error(evaluator, role, name, f"the {role} folder {name!r} does not exist", expected)


class _LearnedEvaluator(ModelEvaluator):
    """Shared: a reference-based check scored by one transformers model (``model``) on token windows (``max_length``)."""

    requires = ("actual", "expected")
    extra = "lm"
    default_model: ClassVar[str] = ""
    role: ClassVar[str] = "model"

    def configure(self) -> None:
        if self.params["model"] is not None:
            require_type(self.name, "model", self.params["model"], str, f"the hub name or local folder of a {self.role}")
        require_number(self.name, "max_length", self.params["max_length"], low=8, integer=True)

    def model_name(self) -> str:
        return str(self.params["model"] or self.default_model)

    def backend(self) -> str:
        return package_version("transformers")

    def signature_params(self) -> Mapping[str, Any]:
        return {k: v for k, v in self.params.items() if k != "model"}  # the model is in the signature's model


class Bleurt(_LearnedEvaluator):
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
        MetricSpec("bleurt", "BLEURT regression score of the (reference, answer) pair; BLEURT-20: ~0 unrelated, ~1 perfect",
                   range=BLEURT_RANGE, threshold=0.5, primary=True),
    )
    _EXPECTED = ("Expected a PyTorch BLEURT checkpoint that transformers' AutoModelForSequenceClassification loads, "
                 "with one output (num_labels=1) and its tokenizer; a checkpoint of model_type 'bleurt' (the "
                 "lucadiliello/BLEURT-20 ports) needs `pip install bleurt-pytorch`.")

    def scoring_model(self) -> str | None:
        from ..models import model_identity, predicted_precision

        cache = self._cache()
        return f"{model_identity(self.model_name())}|{predicted_precision(cache.device, cache.precision)}"

    def _load(self) -> tuple[Any, Any, str]:
        name, cache = self.model_name(), self._cache()

        def build() -> tuple[Any, Any, str]:
            from ..models import ModelLoadError, place

            _check_folder(self, self.role, name, self._EXPECTED)
            try:
                tokenizer, model = _bleurt_classes(name)
            except Exception as exc:  # noqa: BLE001 - one message for every way loading fails
                problem = f"could not load the {self.role} {name!r}{_declared_architecture(name)}: {_one_line(exc)}"
                raise _load_error(self, self.role, name, problem, self._EXPECTED) from None
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
        limit = min(self.params["max_length"], _positions(model, tokenizer))
        pairs = [(reference, case.actual or "") for case in cases for reference in case.expected]
        values: list[float] = []
        truncated: list[bool] = []
        for start in range(0, len(pairs), _BATCH):
            references, answers = (list(side) for side in zip(*pairs[start:start + _BATCH]))
            lengths = [len(ids) for ids in tokenizer(references, answers, truncation=False)["input_ids"]]
            batch = tokenizer(references, answers, padding=True, truncation=True, max_length=limit,
                              return_tensors="pt").to(device)
            with torch.no_grad():
                logits = model(**batch).logits.float()
            values.extend(float(v) for v in logits[:, 0].cpu().tolist())
            truncated.extend(n > limit for n in lengths)
        out, cursor = [], 0
        for case in cases:
            scores = values[cursor:cursor + len(case.expected)]
            cut = any(truncated[cursor:cursor + len(case.expected)])
            cursor += len(case.expected)
            index = max(range(len(scores)), key=scores.__getitem__)  # the first of the best
            against = f"expected answer #{index}" if len(scores) == 1 else f"the best of {len(scores)} expected answers (#{index})"
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
        return bleurt.BleurtTokenizer.from_pretrained(name), bleurt.BleurtForSequenceClassification.from_pretrained(name)
    except Exception:  # noqa: BLE001 - not a bleurt checkpoint either: the Auto classes' error says more
        raise failed from None


@dataclass(frozen=True)
class _Text:
    """One text's encoding: every token's id and piece, its layer vectors (L2-normalised, float64) and which count."""

    ids: list[int]
    vectors: Any  # numpy (tokens, dim)
    kept: list[bool]  # False: a word-piece continuation, a punctuation mark or a stop word (weight 0)


class MoverScore(_LearnedEvaluator):
    """MoverScore: 1 - earth mover's distance between the answer's and the reference's token embeddings.

    Parameters:
        model: encoder name or folder (default distilbert-base-uncased, the reference's).
        layer: which hidden state (0: the embeddings; -1, default: the last layer).
        idf: weight tokens by inverse document frequency over the batch (answers and references apart).
        stop_words: tokenizer pieces that weigh 0 (default none, as the reference).
        aggregate: ``"mean"`` (default, the reference's) or ``"max"`` over several expected answers.
        max_length: tokens per text at most (and at most what the model reads).
    """

    name = "moverscore"
    helper = "assert_moverscore"
    description = "Earth mover's distance between the answer's and the expected answer's contextual token embeddings"
    defaults: ClassVar[Mapping[str, Any]] = {"model": None, "layer": -1, "idf": False, "stop_words": (),
                                             "aggregate": "mean", "max_length": 512}
    default_model = DEFAULT_MOVERSCORE_MODEL
    role = "MoverScore encoder"
    metrics = (
        MetricSpec("moverscore", "1 - earth mover's distance of the token embeddings", range=(-1.0, 1.0),
                   threshold=0.5, primary=True),
        MetricSpec("distance", "earth mover's distance between the weighted token embeddings", higher_is_better=False,
                   range=(0.0, 2.0), threshold=None),
    )
    _EXPECTED = "Expected a transformers encoder (AutoModel) with its tokenizer, such as distilbert-base-uncased."

    def configure(self) -> None:
        super().configure()
        layer = self.params["layer"]
        require_type(self.name, "layer", layer, int, "an integer (a hidden state's index; -1 the last layer)")
        require_type(self.name, "idf", self.params["idf"], bool, "True or False")
        require_choice(self.name, "aggregate", self.params["aggregate"], ("mean", "max"))
        words = self.params["stop_words"]
        if isinstance(words, str) or not isinstance(words, (list, tuple, set, frozenset)) or \
                not all(isinstance(w, str) for w in words):
            raise TypeError(f"{self.name}: parameter 'stop_words' must be a list of str; got {words!r:.80}")
        self.params["stop_words"] = sorted(set(words))  # a stable signature, and JSON-friendly

    def scoring_model(self) -> str | None:
        from ..models import model_identity, predicted_precision

        cache = self._cache()
        precision = predicted_precision(cache.device, cache.precision)
        return f"{model_identity(self.model_name())}|{precision}|layer {self.params['layer']}"

    def backend(self) -> str:
        return f"{package_version('transformers')}; {package_version('scipy')}"

    def _load(self) -> tuple[Any, Any, str]:
        name, cache = self.model_name(), self._cache()

        def build() -> tuple[Any, Any, str]:
            from transformers import AutoModel, AutoTokenizer

            from ..models import place

            _check_folder(self, self.role, name, self._EXPECTED)
            try:
                tokenizer = AutoTokenizer.from_pretrained(name)
                model = AutoModel.from_pretrained(name)
            except Exception as exc:  # noqa: BLE001 - one message for every way loading fails
                problem = f"could not load the {self.role} {name!r}{_declared_architecture(name)}: {_one_line(exc)}"
                raise _load_error(self, self.role, name, problem, self._EXPECTED) from None
            model, device = place(model, cache)
            return tokenizer, model, device

        return cache.model(f"{self.role} {name}", build)

    def _encode(self, texts: Sequence[str]) -> dict[str, _Text]:
        """Each distinct text encoded once (an answer equal to its reference gets the very same vectors)."""
        import torch

        tokenizer, model, device = self._load()
        limit = min(self.params["max_length"], _positions(model, tokenizer))
        stop = set(self.params["stop_words"])
        unique = list(dict.fromkeys(texts))
        out: dict[str, _Text] = {}
        for start in range(0, len(unique), _BATCH):
            chunk = unique[start:start + _BATCH]
            batch = tokenizer(chunk, padding=True, truncation=True, max_length=limit, return_tensors="pt")
            inputs = {k: v.to(device) for k, v in batch.items()}
            with torch.no_grad():
                states = model(**inputs, output_hidden_states=True).hidden_states
            layer = self.params["layer"]
            if not -len(states) <= layer < len(states):
                raise ValueError(f"{self.name}: parameter 'layer' must be between {-len(states)} and {len(states) - 1} "
                                 f"for this model ({len(states) - 1} layers and the embeddings); got {layer}")
            hidden = torch.nn.functional.normalize(states[layer].double(), dim=-1).cpu()
            mask = batch["attention_mask"].bool()
            for row, text in enumerate(chunk):
                ids = batch["input_ids"][row][mask[row]].tolist()
                pieces = tokenizer.convert_ids_to_tokens(ids)
                kept = [not (p in stop or "##" in p or p in _PUNCTUATION) for p in pieces]
                out[text] = _Text(ids, hidden[row][mask[row]].numpy(), kept)
        return out

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        import numpy as np

        answers = [case.actual or "" for case in cases]
        references = [reference for case in cases for reference in case.expected]
        encoded = self._encode(answers + references)
        idf_answers = _idf([encoded[t].ids for t in answers]) if self.params["idf"] else None
        idf_references = _idf([encoded[t].ids for t in references]) if self.params["idf"] else None
        uniform: set[str] = set()

        def weights(text: str, idf: tuple[dict[int, float], float] | None) -> Any:
            item = encoded[text]
            counted = np.array(item.kept, dtype=np.float64)
            if idf is None:
                return counted
            table, unseen = idf
            weighted = counted * np.array([table.get(i, unseen) for i in item.ids], dtype=np.float64)
            if weighted.sum() > 0:
                return weighted
            uniform.add(text)  # every piece of it is in every text of its side: weigh its tokens the same
            return counted

        out, cursor = [], 0
        for answer, case in zip(answers, cases):
            hyp = weights(answer, idf_answers)
            distances: list[float | None] = []
            for reference in references[cursor:cursor + len(case.expected)]:
                ref = weights(reference, idf_references)
                if not hyp.sum() or not ref.sum():
                    distances.append(None)  # no token to move (a tokenizer without special tokens, an empty text)
                elif reference == answer and np.array_equal(hyp, ref):
                    distances.append(0.0)  # the same vectors and weights: nothing moves
                else:
                    a, b = encoded[reference], encoded[answer]
                    keep_a, keep_b = ref > 0, hyp > 0
                    similarity = a.vectors[keep_a] @ b.vectors[keep_b].T
                    cost = np.sqrt(np.clip(2.0 - 2.0 * similarity, 0.0, None))
                    distances.append(earth_movers_distance(ref[keep_a] / ref.sum(), hyp[keep_b] / hyp.sum(), cost))
            cursor += len(case.expected)
            out.append(self._score(distances, answer in uniform or any(r in uniform for r in case.expected)))
        return out

    def _score(self, distances: list[float | None], uniform: bool) -> Score:
        scored = [(i, d) for i, d in enumerate(distances) if d is not None]
        if not scored:
            return Score({"moverscore": 0.0, "distance": None}, "MoverScore 0.000: no token of the answer or the "
                         "expected answer carries weight (nothing to compare)", {"compared": 0})
        index, best = min(scored, key=lambda item: item[1])
        if self.params["aggregate"] == "max" or len(scored) == 1:
            distance, how = best, f"expected answer #{index}" if len(distances) == 1 else \
                f"the best of {len(distances)} expected answers (#{index})"
        else:
            distance, how = sum(d for _, d in scored) / len(scored), f"the mean over {len(scored)} expected answers"
        score = 1.0 - distance
        reason = f"MoverScore {score:.3f} (earth mover's distance {distance:.3f}) vs {how}"
        if uniform:
            reason += ("; IDF not applied to a text whose every piece is in every text of its side of the batch "
                       "(its tokens weigh the same)")
        details: dict[str, Any] = {"reference": index, "idf_uniform": uniform}
        if len(distances) > 1:
            details["distances"] = distances
        return Score({"moverscore": score, "distance": distance}, reason, details)


def _idf(documents: Sequence[list[int]]) -> tuple[dict[int, float], float]:
    """The reference's ``get_idf_dict``: ``log((M + 1) / (df + 1))`` per piece; ``log(M + 1)`` for an unseen one."""
    counts = Counter(token for ids in documents for token in set(ids))
    total = len(documents)
    return {token: math.log((total + 1) / (count + 1)) for token, count in counts.items()}, math.log(total + 1)


def earth_movers_distance(source: Any, target: Any, cost: Any) -> float:
    """The least cost of moving histogram ``source`` (n) onto ``target`` (m), both summing to 1, under ``cost`` (n, m).

    >>> import numpy as np
    >>> round(earth_movers_distance(np.array([0.5, 0.5]), np.array([1.0]), np.array([[0.0], [2.0]])), 6)
    1.0
    >>> round(earth_movers_distance(np.array([0.5, 0.5]), np.array([0.5, 0.5]), np.array([[1.0, 0.0], [0.0, 1.0]])), 6)
    0.0
    """
    import numpy as np

    n, m = cost.shape
    if n == 1 or m == 1:  # one plan only: everything moves from (or to) the single point
        return max(0.0, float((np.outer(source, target) * cost).sum()))
    try:
        # SciPy ships no type stubs (scipy-stubs is a separate package)
        from scipy import sparse
        from scipy.optimize import linprog
    except ImportError as exc:
        raise ImportError("moverscore: the earth mover's distance needs SciPy: pip install scipy") from exc
    # x[i, j] >= 0 moved from i to j: each row sums to source[i], each column to target[j] (the last column's
    # constraint follows from the others and is left out, so rounding in the sums cannot make it infeasible)
    rows = np.concatenate([np.repeat(np.arange(n), m), n + np.tile(np.arange(m), n)])
    columns = np.concatenate([np.arange(n * m), np.arange(n * m)])
    equations = sparse.csr_matrix((np.ones(2 * n * m), (rows, columns)), shape=(n + m, n * m))[:-1]
    totals = np.concatenate([source, target])[:-1]
    result = linprog(np.ascontiguousarray(cost, dtype=np.float64).ravel(), A_eq=equations, b_eq=totals,
                     bounds=(0, None), method="highs")
    if result.status != 0:
        raise RuntimeError(f"moverscore: the earth mover's distance could not be solved: {result.message}")
    return min(2.0, max(0.0, float(result.fun)))
