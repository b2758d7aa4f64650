"""The ``moverscore`` check: MoverScore: 1 - earth mover's distance between the answer's and the reference's token
embeddings."""

from __future__ import annotations

import math
import string
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score, package_version
from ...kit import require_choice, require_type
from ...kit import Result
from ...kit.models import max_positions
from .learned import BATCH_SIZE, LearnedEvaluator, check_folder, declared_architecture, load_error, one_line

__all__ = ["assert_moverscore", "MoverScore", "DEFAULT_MOVERSCORE_MODEL", "earth_movers_distance"]


def assert_moverscore(
    actual: str,
    expected: Any,
    *,
    idf: bool = False,
    layer: int = -1,
    stop_words: Sequence[str] = (),
    aggregate: str = "mean",
    max_length: int = 512,
    scorer: str | None = None,
    **kwargs: Any,
) -> Result:
    """MoverScore (1 - earth mover's distance of contextual token embeddings) against the expected answer(s) (0.5).

    ``scorer``: the encoder by hub name or local folder (default distilbert-base-uncased, the
    reference's); ``layer`` its hidden state (-1: the last); ``idf`` weighs tokens by inverse document
    frequency over the batch; ``aggregate`` is ``"mean"`` (the reference's) or ``"max"`` over several
    expected answers. The default threshold is not calibrated: measure on your own data.
    """
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {
        "model": scorer_argument("assert_moverscore", scorer),
        "idf": idf,
        "layer": layer,
        "stop_words": stop_words,
        "aggregate": aggregate,
        "max_length": max_length,
    }
    return check(MoverScore, actual=actual, expected=expected, params=params, **kwargs)


DEFAULT_MOVERSCORE_MODEL = "distilbert-base-uncased"


_PUNCTUATION = frozenset(string.punctuation)


@dataclass(frozen=True)
class _Text:
    """One text's encoding: every token's id and piece, its layer vectors (L2-normalised, float64) and which count."""

    ids: list[int]
    vectors: Any  # numpy (tokens, dim)
    kept: list[bool]  # False: a word-piece continuation, a punctuation mark or a stop word (weight 0)


class MoverScore(LearnedEvaluator):
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
    defaults: ClassVar[Mapping[str, Any]] = {
        "model": None,
        "layer": -1,
        "idf": False,
        "stop_words": (),
        "aggregate": "mean",
        "max_length": 512,
    }
    default_model = DEFAULT_MOVERSCORE_MODEL
    role = "MoverScore encoder"
    metrics = (
        MetricSpec(
            "moverscore",
            "1 - earth mover's distance of the token embeddings",
            range=(-1.0, 1.0),
            threshold=0.5,
            primary=True,
        ),
        MetricSpec(
            "distance",
            "earth mover's distance between the weighted token embeddings",
            higher_is_better=False,
            range=(0.0, 2.0),
            threshold=None,
        ),
    )
    _EXPECTED = "Expected a transformers encoder (AutoModel) with its tokenizer, such as distilbert-base-uncased."

    def configure(self) -> None:
        super().configure()
        layer = self.params["layer"]
        require_type(self.name, "layer", layer, int, "an integer (a hidden state's index; -1 the last layer)")
        require_type(self.name, "idf", self.params["idf"], bool, "True or False")
        require_choice(self.name, "aggregate", self.params["aggregate"], ("mean", "max"))
        words = self.params["stop_words"]
        if (
            isinstance(words, str)
            or not isinstance(words, (list, tuple, set, frozenset))
            or not all(isinstance(w, str) for w in words)
        ):
            raise TypeError(f"{self.name}: parameter 'stop_words' must be a list of str; got {words!r:.80}")
        self.params["stop_words"] = sorted(set(words))  # a stable signature, and JSON-friendly

    def scoring_model(self) -> str | None:
        from ...kit.models import model_identity, predicted_precision

        cache = self.model_cache()
        precision = predicted_precision(cache.device, cache.precision)
        return f"{model_identity(self.model_name())}|{precision}|layer {self.params['layer']}"

    def backend(self) -> str:
        return f"{package_version('transformers')}; {package_version('scipy')}"

    def _load(self) -> tuple[Any, Any, str]:
        name, cache = self.model_name(), self.model_cache()

        def build() -> tuple[Any, Any, str]:
            from transformers import AutoModel, AutoTokenizer

            from ...kit.models import place

            check_folder(self, self.role, name, self._EXPECTED)
            try:
                tokenizer = AutoTokenizer.from_pretrained(name)
                model = AutoModel.from_pretrained(name)
            except Exception as exc:  # noqa: BLE001 - one message for every way loading fails
                problem = f"could not load the {self.role} {name!r}{declared_architecture(name)}: {one_line(exc)}"
                raise load_error(self, self.role, name, problem, self._EXPECTED) from None
            model, device = place(model, cache)
            return tokenizer, model, device

        return cache.model(f"{self.role} {name}", build)

    def _encode(self, texts: Sequence[str]) -> dict[str, _Text]:
        """Each distinct text encoded once (an answer equal to its reference gets the very same vectors)."""
        import torch

        tokenizer, model, device = self._load()
        limit = min(self.params["max_length"], max_positions(model, tokenizer))
        stop = set(self.params["stop_words"])
        unique = list(dict.fromkeys(texts))
        out: dict[str, _Text] = {}
        for start in range(0, len(unique), BATCH_SIZE):
            chunk = unique[start : start + BATCH_SIZE]
            batch = tokenizer(chunk, padding=True, truncation=True, max_length=limit, return_tensors="pt")
            inputs = {k: v.to(device) for k, v in batch.items()}
            with torch.no_grad():
                states = model(**inputs, output_hidden_states=True).hidden_states
            layer = self.params["layer"]
            if not -len(states) <= layer < len(states):
                raise ValueError(
                    f"{self.name}: parameter 'layer' must be between {-len(states)} and {len(states) - 1} "
                    f"for this model ({len(states) - 1} layers and the embeddings); got {layer}"
                )
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
            for reference in references[cursor : cursor + len(case.expected)]:
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
            return Score(
                {"moverscore": 0.0, "distance": None},
                "MoverScore 0.000: no token of the answer or the expected answer carries weight (nothing to compare)",
                {"compared": 0},
            )
        index, best = min(scored, key=lambda item: item[1])
        if self.params["aggregate"] == "max" or len(scored) == 1:
            distance, how = (
                best,
                f"expected answer #{index}"
                if len(distances) == 1
                else f"the best of {len(distances)} expected answers (#{index})",
            )
        else:
            distance, how = sum(d for _, d in scored) / len(scored), f"the mean over {len(scored)} expected answers"
        score = 1.0 - distance
        reason = f"MoverScore {score:.3f} (earth mover's distance {distance:.3f}) vs {how}"
        if uniform:
            reason += (
                "; IDF not applied to a text whose every piece is in every text of its side of the batch "
                "(its tokens weigh the same)"
            )
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
    result = linprog(
        np.ascontiguousarray(cost, dtype=np.float64).ravel(),
        A_eq=equations,
        b_eq=totals,
        bounds=(0, None),
        method="highs",
    )
    if result.status != 0:
        raise RuntimeError(f"moverscore: the earth mover's distance could not be solved: {result.message}")
    return min(2.0, max(0.0, float(result.fun)))
