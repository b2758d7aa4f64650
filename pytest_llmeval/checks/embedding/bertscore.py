"""BERTScore (Zhang et al., 2020, arXiv:1904.09675): token-level similarity of contextual embeddings.

Each token of the answer is matched to its most similar token of the expected
answer (cosine of the transformer's last hidden states), and the other way round:

- precision = mean over answer tokens of the best match in the reference;
- recall = mean over reference tokens of the best match in the answer;
- F1 = 2PR / (P + R).

``matching="bert_score"`` (the default) computes what the reference implementation
(the ``bert-score`` package, 0.3.13) computes on the same model and layer: each text
is stripped and encoded with its special tokens, every token of the last layer is in
the similarity matrix ([CLS] and [SEP] included, so a token may find its best match
in them), but [CLS] and [SEP] weigh 0 in the means, so they are never tokens to be
matched; cosines are not clamped, so precision and recall lie in [-1, 1]. With
several expected answers, precision, recall and F1 are each the best over the
references, as ``bert_score.score`` takes them (they may come from different
references; ``details["reference"]`` is the one with the best F1). Where precision
and recall differ in sign (possible only without clamping), bert-score's F1 formula
leaves [-1, 1]: F1 is then 0. A text with no token but the special ones scores 0,
as in bert-score. Byte-level BPE tokenizers (GPT-2, RoBERTa) get a leading space, as
bert-score's ``add_prefix_space=True``. Two differences remain: texts are cut at
``max_length`` tokens (bert-score: the tokenizer's maximum), and bert-score's own
batching pads shorter references with similarity 0, which can lift a negative best
match to 0; here no padding enters the matching.

``matching="content_tokens"`` is this package's earlier variant (version 2): the
special tokens are left out of the matrix and cosines are clamped to [0, 1]; with
several expected answers the reference of the best F1 gives all three numbers. Each
matching has its own F1 threshold for the embedded MiniLM, measured with
``benchmarks/bench_verdicts.py`` (paraphrases against unrelated answers): 0.56 for
the default matching, 0.52 for ``content_tokens``; other models take the catalog's 0.75.

With ``idf=True`` the means are weighted by inverse document frequency over the
references of the batch (every expected answer of every case scored together), as
bert-score computes it: ``idf(w) = log((M + 1) / (df(w) + 1))`` for M references,
``df(w)`` of which hold word piece ``w``, and ``log(M + 1)`` for a piece no
reference holds. Where that leaves a text no weight at all (every piece of it is in
every reference: always so with a single reference, where ``bert-score`` gives NaN),
its tokens weigh the same, as without IDF; and where no reference piece has any
weight, IDF is not used for the batch and the reason says so. So an answer identical
to its reference scores 1. The default model is the embedded MiniLM transformer;
``model`` takes any Hugging Face encoder name or folder (the paper's default is
roberta-large, reachable wherever the hub is). Scores are not baseline-rescaled, so
unrelated texts may still score well above 0.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score, package_version
from ...kit import require_choice, require_number, require_type
from ...kit import Result
from .base import EmbeddingEvaluator, calibrated

__all__ = ["assert_bertscore", "BertScore", "MATCHING"]


def assert_bertscore(
    actual: str,
    expected: Any,
    *,
    idf: bool = False,
    matching: str = "bert_score",
    scorer: str | None = None,
    bertscore_model: str | None = None,
    **kwargs: Any,
) -> Result:
    """BERTScore F1 against the expected answer(s) (default threshold 0.75; precision and recall via ``thresholds``).

    ``matching="bert_score"`` (default) computes what the bert-score package does; ``"content_tokens"``
    is version 2's variant (special tokens dropped, cosines clamped; 0.52 calibrated for the embedded MiniLM).
    """
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {
        "model": scorer_argument("assert_bertscore", scorer, bertscore_model=bertscore_model),
        "idf": idf,
        "matching": matching,
    }
    return check(BertScore, actual=actual, expected=expected, params=params, **kwargs)


_BATCH = 32


#: ``bert_score``: the bert-score package's computation; ``content_tokens``: version 2's.
MATCHING = ("bert_score", "content_tokens")


#: F1 thresholds of the default matching, by embedding model family (benchmarks/bench_verdicts.py).
BERT_SCORE_CALIBRATED = calibrated(0.56, 0.75)


#: Tokenizers whose words carry their leading space (bert-score encodes with ``add_prefix_space=True``).
_PREFIX_SPACE = ("GPT2Tokenizer", "GPT2TokenizerFast", "RobertaTokenizer", "RobertaTokenizerFast")


@dataclass(frozen=True)
class _Tokens:
    """One text's last-layer vectors (L2-normalised) of every real token, padding dropped."""

    vectors: Any  # (tokens, dim) float tensor
    ids: list[int]
    special: list[bool]  # added by the tokenizer ([CLS], [SEP], ...)
    null: list[bool]  # weight 0 in bert-score: the [CLS] and [SEP] ids

    def content(self) -> _Tokens:
        """The text without its special tokens (``content_tokens`` matching)."""
        keep = [i for i, s in enumerate(self.special) if not s]
        return _Tokens(self.vectors[keep], [self.ids[i] for i in keep], [False] * len(keep), [False] * len(keep))

    @property
    def words(self) -> int:
        return self.special.count(False)


class BertScore(EmbeddingEvaluator):
    """BERTScore precision, recall and F1 against the expected answer(s).

    Parameters:
        model: encoder name or folder (default: the embedded MiniLM transformer).
        idf: weight tokens by inverse document frequency over the batch's references (it needs
            several different references: with one, every reference token weighs 0 and the
            weights are uniform).
        max_length: tokens per text at most.
        matching: ``"bert_score"`` (default): the bert-score package's computation (all tokens
            of the layer in the matrix, [CLS]/[SEP] weighted 0, no clamping, per-metric best
            over references); ``"content_tokens"``: version 2's (special tokens dropped,
            cosines clamped to [0, 1], the best-F1 reference's numbers).
    """

    name = "bertscore"
    # 2: idf=True no longer scores 0 where every IDF weight of a text is 0 (one reference)
    # 3: matching="bert_score" (bert-score's computation) is the default; version 2's is matching="content_tokens"
    version = "3"
    helper = "assert_bertscore"
    extra = "embeddings"
    description = "Token-level semantic overlap with the expected answer (contextual embeddings)"
    requires = ("actual", "expected")
    defaults: ClassVar[Mapping[str, Any]] = {"model": None, "idf": False, "max_length": 256, "matching": "bert_score"}
    plans_texts = False  # its token vectors come from its own encoder, not the embedding cache
    metrics = (
        MetricSpec("precision", "answer tokens matched in the reference", range=(-1.0, 1.0), threshold=0.75),
        MetricSpec("recall", "reference tokens matched in the answer", range=(-1.0, 1.0), threshold=0.75),
        # calibrated on matching="content_tokens"; the default matching's are in BERT_SCORE_CALIBRATED
        MetricSpec(
            "f1",
            "harmonic mean of precision and recall",
            range=(-1.0, 1.0),
            threshold=0.75,
            primary=True,
            calibrated=calibrated(0.52, 0.75),
        ),
    )

    def configure(self) -> None:
        super().configure()
        require_type(self.name, "idf", self.params["idf"], bool, "True or False")
        require_number(self.name, "max_length", self.params["max_length"], low=8, integer=True)
        require_choice(self.name, "matching", self.params["matching"], MATCHING)

    def _model_name(self) -> str:
        """``model=``, else the session's embedding model; BERTScore needs the model's token vectors,
        which an embedding server does not give, so with a server it loads the embedded default."""
        from ...kit.models import DEFAULT_EMBEDDING_MODEL

        cache = self.model_cache()
        return str(
            self.params["model"]
            or (DEFAULT_EMBEDDING_MODEL if cache.embedding_server is not None else cache.embedding_model)
        )

    def scoring_model(self) -> str | None:
        from ...kit.models import model_identity, predicted_precision

        cache = self.model_cache()
        return f"{model_identity(self._model_name())}|{predicted_precision(cache.device, cache.precision)}|last-layer"

    def signature_params(self) -> Mapping[str, Any]:
        return {"idf": self.params["idf"], "max_length": self.params["max_length"], "matching": self.params["matching"]}

    def default_threshold(self, spec: MetricSpec) -> float | None:
        """Each matching has its own calibrated F1 thresholds (the two scales differ)."""
        if self.params["matching"] == "bert_score" and spec.calibrated:
            spec = replace(spec, calibrated=BERT_SCORE_CALIBRATED)
        return super().default_threshold(spec)

    def backend(self) -> str:
        return package_version("transformers")

    def _encoder(self) -> tuple[Any, Any, str]:
        name = self._model_name()
        cache = self.model_cache()

        def build() -> tuple[Any, Any, str]:
            from transformers import AutoModel, AutoTokenizer

            from ...kit.models import EMBEDDED_ALIASES, embedded_model_path, place

            path = (embedded_model_path() if name in EMBEDDED_ALIASES else None) or name
            try:
                tokenizer = AutoTokenizer.from_pretrained(path)
                model = AutoModel.from_pretrained(path)
            except Exception as exc:  # noqa: BLE001 - one message for every way loading fails
                from ...kit.models import ModelLoadError

                raise ModelLoadError(f"could not load the BERTScore model {name!r}: {exc}") from None
            model, device = place(model, cache)
            return tokenizer, model, device

        return cache.model(f"bertscore encoder {name}", build)

    def _prepare(self, tokenizer: Any, text: str) -> str:
        """bert-score's ``sent_encode`` input: stripped, with a leading space for byte-level BPE."""
        if self.params["matching"] == "content_tokens":
            return text  # version 2 as it was
        text = text.strip()
        return " " + text if text and type(tokenizer).__name__ in _PREFIX_SPACE else text

    def _token_vectors(self, texts: Sequence[str]) -> list[_Tokens]:
        import torch

        tokenizer, model, device = self._encoder()
        null_ids = {i for i in (tokenizer.cls_token_id, tokenizer.sep_token_id) if i is not None}
        out = []
        for start in range(0, len(texts), _BATCH):
            chunk = [self._prepare(tokenizer, t) for t in texts[start : start + _BATCH]]
            batch = tokenizer(
                chunk,
                padding=True,
                truncation=True,
                max_length=self.params["max_length"],
                return_tensors="pt",
                return_special_tokens_mask=True,
            )
            special = batch.pop("special_tokens_mask").bool()
            inputs = {k: v.to(device) for k, v in batch.items()}
            with torch.no_grad():
                hidden = model(**inputs).last_hidden_state.float()
            hidden = torch.nn.functional.normalize(hidden, dim=-1).cpu()
            real = batch["attention_mask"].bool()
            for row in range(len(chunk)):
                ids = batch["input_ids"][row][real[row]].tolist()
                out.append(
                    _Tokens(hidden[row][real[row]], ids, special[row][real[row]].tolist(), [i in null_ids for i in ids])
                )
        return out

    @staticmethod
    def _idf(references: Sequence[list[int]]) -> dict[int, float]:
        """``bert-score``'s ``get_idf_dict``: ``log((M + 1) / (df + 1))`` per word piece of the M references."""
        documents = Counter(token for ids in references for token in set(ids))
        total = len(references)
        return {token: math.log((total + 1) / (count + 1)) for token, count in documents.items()}

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        import torch

        bert_score = self.params["matching"] == "bert_score"
        answers = [c.actual or "" for c in cases]
        references = [e for c in cases for e in c.expected]
        vectors = self._token_vectors(answers + references)
        if not bert_score:
            vectors = [v.content() for v in vectors]
        answer_vectors, reference_vectors = vectors[: len(answers)], vectors[len(answers) :]
        # the special pieces are in every reference: IDF 0, as in bert-score; the others as without them
        idf = self._idf([t.ids for t in reference_vectors]) if self.params["idf"] else None
        default_weight = math.log((len(references) + 1) / 1) if idf is not None else 1.0
        note = ""
        if idf is not None and not any(weight > 0 for weight in idf.values()):
            # every reference piece is in every reference (one reference, or the same text each time)
            idf = None
            note = (
                f"; IDF not applied: each word piece of the batch's {len(references)} reference(s) is in all of "
                "them, so every IDF weight is 0 (IDF needs several different references)"
            )

        def weights(tokens: _Tokens) -> Any:
            # [CLS] and [SEP] weigh 0 (bert-score's idf_dict); with content_tokens matching they are not here
            counted = torch.tensor([0.0 if null else 1.0 for null in tokens.null])
            if idf is None:
                return counted
            weighted = torch.tensor([idf.get(t, default_weight) for t in tokens.ids], dtype=torch.float32) * counted
            # no weight at all (each piece in every reference): a weighted mean of nothing; weigh them the same
            return weighted if float(weighted.sum()) > 0 else counted

        def match(candidate: _Tokens, reference: _Tokens) -> tuple[float, float, float]:
            if not candidate.words or not reference.words:
                return 0.0, 0.0, 0.0  # bert-score: an empty candidate or reference scores 0
            sims = candidate.vectors @ reference.vectors.T
            if not bert_score:
                sims = sims.clamp(0.0, 1.0)
            wc, wr = weights(candidate), weights(reference)
            p = float((sims.max(dim=1).values * wc).sum() / wc.sum().clamp(min=1e-12))
            r = float((sims.max(dim=0).values * wr).sum() / wr.sum().clamp(min=1e-12))
            # P and R of one sign: their harmonic mean; of opposite signs (only without clamping) it leaves [-1, 1]
            f = 0.0 if p * r <= 0 else 2 * p * r / (p + r)
            return p, r, f

        out, cursor = [], 0
        for case, candidate in zip(cases, answer_vectors):
            scored = [match(candidate, reference_vectors[cursor + i]) for i in range(len(case.expected))]
            cursor += len(case.expected)
            index = max(range(len(scored)), key=lambda i: scored[i][2])  # the first of the best F1
            if bert_score:  # bert_score.score: the best precision, recall and F1, each over the references
                p, r, f = (max(s[k] for s in scored) for k in range(3))
            else:
                p, r, f = scored[index]
            details: dict[str, Any] = {"reference": index, "answer_tokens": candidate.words}
            if self.params["idf"]:
                details["idf_references"] = len(references)
                details["idf_uniform"] = idf is None
            against = f"expected answer #{index}"
            if bert_score and len(scored) > 1:
                against = f"the best of {len(scored)} expected answers (each number its own best; F1 from #{index})"
            out.append(
                Score(
                    {"precision": p, "recall": r, "f1": f},
                    f"BERTScore F1 {f:.3f} (precision {p:.3f}, recall {r:.3f}) vs {against}{note}",
                    details,
                )
            )
        return out
