"""BERTScore (Zhang et al., 2020, arXiv:1904.09675): token-level similarity of contextual embeddings.

Each token of the answer is matched to its most similar token of the expected
answer (cosine of the transformer's last hidden states), and the other way round:

- precision = mean over answer tokens of the best match in the reference;
- recall = mean over reference tokens of the best match in the answer;
- F1 = 2PR / (P + R); with several expected answers, the best F1.

With ``idf=True`` the means are weighted by inverse document frequency over the
references of the batch (every expected answer of every case scored together), as
the reference implementation (the ``bert-score`` package) computes it:
``idf(w) = log((M + 1) / (df(w) + 1))`` for M references, ``df(w)`` of which hold
word piece ``w``, and ``log(M + 1)`` for a piece no reference holds. Where that
leaves a text no weight at all (every piece of it is in every reference: always so
with a single reference, where ``bert-score`` gives NaN), its tokens weigh the same,
as without IDF; and where no reference piece has any weight, IDF is not used for
the batch and the reason says so. So an answer identical to its reference scores 1.
Special tokens ([CLS], [SEP], padding) are left out (weight 0 in ``bert-score``).
The default model is the embedded MiniLM transformer; ``model`` takes any Hugging
Face encoder name or folder (the paper's default is roberta-large, reachable
wherever the hub is). Scores are not baseline-rescaled, so unrelated texts still
score well above 0.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ..case import Case
from .base import MetricSpec, Score, package_version, require_number, require_type
from .embedding import EmbeddingEvaluator, calibrated

__all__ = ["BertScore"]

_BATCH = 32


class BertScore(EmbeddingEvaluator):
    """BERTScore precision, recall and F1 against the expected answer(s).

    Parameters:
        model: encoder name or folder (default: the embedded MiniLM transformer).
        idf: weight tokens by inverse document frequency over the batch's references (it needs
            several different references: with one, every reference token weighs 0 and the
            weights are uniform).
        max_length: tokens per text at most.
    """

    name = "bertscore"
    version = "2"  # 2: idf=True no longer scores 0 where every IDF weight of a text is 0 (one reference)
    helper = "assert_bertscore"
    extra = "embeddings"
    description = "Token-level semantic overlap with the expected answer (contextual embeddings)"
    requires = ("actual", "expected")
    defaults: ClassVar[Mapping[str, Any]] = {"model": None, "idf": False, "max_length": 256}
    metrics = (
        MetricSpec("precision", "answer tokens matched in the reference", threshold=0.75),
        MetricSpec("recall", "reference tokens matched in the answer", threshold=0.75),
        MetricSpec("f1", "harmonic mean of precision and recall", threshold=0.75, primary=True,
                   calibrated=calibrated(0.52, 0.75)),
    )

    def configure(self) -> None:
        super().configure()
        require_type(self.name, "idf", self.params["idf"], bool, "True or False")
        require_number(self.name, "max_length", self.params["max_length"], low=8, integer=True)

    def _model_name(self) -> str:
        return self.params["model"] or self._cache().embedding_model

    def scoring_model(self) -> str | None:
        from ..models import model_identity, predicted_precision

        cache = self._cache()
        return f"{model_identity(self._model_name())}|{predicted_precision(cache.device, cache.precision)}|last-layer"

    def signature_params(self) -> Mapping[str, Any]:
        return {"idf": self.params["idf"], "max_length": self.params["max_length"]}

    def backend(self) -> str:
        return package_version("transformers")

    def _encoder(self) -> tuple[Any, Any, str]:
        name = self._model_name()
        cache = self._cache()

        def build() -> tuple[Any, Any, str]:
            from transformers import AutoModel, AutoTokenizer

            from ..models import _EMBEDDED_ALIASES, embedded_model_path, place

            path = (embedded_model_path() if name in _EMBEDDED_ALIASES else None) or name
            try:
                tokenizer = AutoTokenizer.from_pretrained(path)
                model = AutoModel.from_pretrained(path)
            except Exception as exc:  # noqa: BLE001 - one message for every way loading fails
                from ..models import ModelLoadError

                raise ModelLoadError(f"could not load the BERTScore model {name!r}: {exc}") from None
            model, device = place(model, cache)
            return tokenizer, model, device

        return cache.model(f"bertscore encoder {name}", build)

    def _token_vectors(self, texts: Sequence[str]) -> list[tuple[Any, list[int]]]:
        import torch

        tokenizer, model, device = self._encoder()
        out = []
        for start in range(0, len(texts), _BATCH):
            chunk = list(texts[start:start + _BATCH])
            batch = tokenizer(chunk, padding=True, truncation=True, max_length=self.params["max_length"],
                              return_tensors="pt", return_special_tokens_mask=True)
            special = batch.pop("special_tokens_mask").bool()
            inputs = {k: v.to(device) for k, v in batch.items()}
            with torch.no_grad():
                hidden = model(**inputs).last_hidden_state.float()
            hidden = torch.nn.functional.normalize(hidden, dim=-1).cpu()
            keep = batch["attention_mask"].bool() & ~special
            for row in range(len(chunk)):
                ids = batch["input_ids"][row][keep[row]].tolist()
                out.append((hidden[row][keep[row]], ids))
        return out

    @staticmethod
    def _idf(references: Sequence[list[int]]) -> dict[int, float]:
        """``bert-score``'s ``get_idf_dict``: ``log((M + 1) / (df + 1))`` per word piece of the M references."""
        documents = Counter(token for ids in references for token in set(ids))
        total = len(references)
        return {token: math.log((total + 1) / (count + 1)) for token, count in documents.items()}

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        import torch

        answers = [c.actual or "" for c in cases]
        references = [e for c in cases for e in c.expected]
        vectors = self._token_vectors(answers + references)
        answer_vectors, reference_vectors = vectors[: len(answers)], vectors[len(answers):]
        idf = self._idf([ids for _, ids in reference_vectors]) if self.params["idf"] else None
        default_weight = math.log((len(references) + 1) / 1) if idf is not None else 1.0
        note = ""
        if idf is not None and not any(weight > 0 for weight in idf.values()):
            # every reference piece is in every reference (one reference, or the same text each time)
            idf = None
            note = (f"; IDF not applied: each word piece of the batch's {len(references)} reference(s) is in all of "
                    "them, so every IDF weight is 0 (IDF needs several different references)")

        def weights(ids: list[int]) -> Any:
            if idf is None:
                return torch.ones(len(ids))
            weighted = torch.tensor([idf.get(t, default_weight) for t in ids], dtype=torch.float32)
            # no weight at all (each piece in every reference): a weighted mean of nothing; weigh them the same
            return weighted if float(weighted.sum()) > 0 else torch.ones(len(ids))

        out, cursor = [], 0
        for case, (candidate, candidate_ids) in zip(cases, answer_vectors):
            best: tuple[float, float, float, int] | None = None
            for index in range(len(case.expected)):
                reference, reference_ids = reference_vectors[cursor + index]
                if not len(candidate) or not len(reference):
                    p = r = f = 0.0
                else:
                    sims = (candidate @ reference.T).clamp(0.0, 1.0)
                    wc, wr = weights(candidate_ids), weights(reference_ids)
                    p = float((sims.max(dim=1).values * wc).sum() / wc.sum().clamp(min=1e-12))
                    r = float((sims.max(dim=0).values * wr).sum() / wr.sum().clamp(min=1e-12))
                    f = 0.0 if p + r == 0 else 2 * p * r / (p + r)
                if best is None or f > best[2]:
                    best = (p, r, f, index)
            cursor += len(case.expected)
            assert best is not None
            p, r, f, index = best
            details: dict[str, Any] = {"reference": index, "answer_tokens": len(candidate_ids)}
            if self.params["idf"]:
                details["idf_references"] = len(references)
                details["idf_uniform"] = idf is None
            out.append(Score({"precision": p, "recall": r, "f1": f},
                             f"BERTScore F1 {f:.3f} (precision {p:.3f}, recall {r:.3f}) vs expected answer #{index}{note}",
                             details))
        return out
