"""Groundedness (catalog: Groundedness (Semantic Similarity)): is every claim of the answer supported by the
retrieved context? Three verdicts: *fail* on named evidence, *pass* when every claim is close to the context,
*unverified* when nothing speaks against the answer but it is too far from the context's wording to confirm
offline (a judge or an NLI model decides those).

Similarity ``S(x, y)`` is as in `pytest_llmeval.checks.embedding.base`; the
evidence is `pytest_llmeval.facts.evidence`'s.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from ...kit import check, check_kwargs, scorer_argument
from ...kit import Case
from ...kit import MetricSpec, Score
from ...kit import require_choice, require_number, require_type
from ...kit import Result
from ...kit import Verdict
from ...kit.text import MAX_SENTENCES
from ...kit.text import embedded_sentences as _sentences
from ...kit.text import excerpt
from .base import EmbeddingEvaluator, cosine_matrix, calibrated
from .groundedness_scores import score_claims, sentence_details, with_entailment

if TYPE_CHECKING:
    from ...kit.facts import Answer, Source
    from ...kit.facts import Parsed

__all__ = ["assert_grounded", "Groundedness", "GROUNDEDNESS_METHODS"]


def assert_grounded(
    actual: str,
    context: Any,
    *,
    method: str = "facts",
    entities: str = "auto",
    short_answer_words: int = 5,
    nli_model: str | None = None,
    fail_on: str | Sequence[str] | None = None,
    model: str | None = None,
    scorer: str | None = None,
    embedding_model: str | None = None,
    **kwargs: Any,
) -> Result:
    """The answer's claims are stated in the context (groundedness): pass, fail on named evidence, or unverified.

    ``method="facts"`` (default): the check fails only on evidence it names: a
    number, date, unit or name the context does not state (``'Mumbai' (sentence 1)
    appears nowhere in the context``), a name with one word changed (``'Pierre Curie'``
    where the context says ``'Marie Curie'``), a predicate the context states in the
    opposite sense (open / closed), a negation flip, a role swap or conflicting
    relation, a claim or an added clause sharing nothing with the context. Without evidence, the answer
    passes when every claim's support (similarity plus word support) reaches the
    threshold calibrated for the embedding model (0.70 for the embedded
    all-MiniLM-L6-v2), and is *unverified* otherwise (``unverified=`` says what that
    does to the test; with a judge configured, the judge's faithfulness check decides
    it). Sentences that claim nothing (questions back, thanks) are not checked. Pass
    ``question=`` too: a short answer is then judged as the claim question and answer
    make together. ``method="embeddings"``: the catalog's embedding groundedness
    alone (0.75). ``method="nli"``: the evidence plus the NLI cross-encoder
    ``nli_model``, which decides. ``scorer``: the embedding model
    (``embedding_model=`` is its deprecated name). ``fail_on``: the evidence kinds
    that fail the answer (default: the kinds measured to be right at least 0.85 of
    the time at 95% confidence, `pytest_llmeval.facts.kinds.FAILING`; ``"all"``, ``"none"``
    or kind ids); evidence of the other kinds is a *concern*: named, the answer
    unverified. ``detector="FAMILY:MODEL"`` (default: ``--llmeval-detector``): a local
    model that decides the unverified answers before any judge
    (`pytest_llmeval.models.detectors`).
    """
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {
        "model": scorer_argument("assert_grounded", scorer, embedding_model=embedding_model),
        "method": method,
        "entities": entities,
        "short_answer_words": short_answer_words,
        "nli_model": nli_model,
        **({"fail_on": fail_on} if fail_on is not None else {}),
    }
    return check(Groundedness, actual=actual, context=context, model=model, params=params, **kwargs)


GROUNDEDNESS_METHODS = ("facts", "embeddings", "nli")


class Groundedness(EmbeddingEvaluator):
    """Is every claim of the answer supported by the context?

    ``method="facts"`` (default): each answer sentence that makes a claim (a
    question back or "Thanks, enjoy!" makes none) is checked for **evidence**
    against it (`pytest_llmeval.facts.evidence`): a number, date, unit or name the
    context does not state, a negation flip, a role swap or conflicting relation,
    or a claim that shares no word with the context, a field a record context leaves
    empty. Evidence of a kind in ``fail_on`` (by default the kinds measured to be right
    at least 0.85 of the time at 95% confidence, `pytest_llmeval.facts.kinds.FAILING`) fails the
    check and is quoted; evidence of another kind is a concern: quoted, the answer
    unverified. Sentences about the sources or the answer, prompt echoes, headings and
    closings are not checked; a refusal is recorded (``details["refusal"]``) and left
    unverified; a record context (a dict, JSON or Python-literal text) is read as its
    fields. Without evidence, the answer passes when every claim is close to
    the context (``support``: per claim, the mean of its best cosine similarity to
    a context sentence and its word support, see
    `word_pair_support()`; minimised over
    claims), and is **unverified** otherwise: reworded answers often are, and only
    a judge or an NLI model can decide them. A short answer (at most
    ``short_answer_words`` words) given with its ``question`` is judged as the claim
    the two make together.

    ``method="embeddings"``: the catalog's check alone,
    ``groundedness = min over answer sentences a of max over context sentences c of S(a, c)``,
    reported by every method and the only verdict of this one (no fact layer runs).

    ``method="nli"``: the evidence, then an NLI cross-encoder (``nli_model``, a name
    or local folder) decides: per claim the best entailment probability over context
    windows of ``nli_window`` sentences, minimised over claims.
    """

    name = "groundedness"
    helper = "assert_grounded"
    extra = "embeddings"
    version = "6"  # 6: opposite predicates, changed names, invented clauses, claims a record field states; 5: fail_on
    description = (
        "The answer's claims are stated in the retrieved context: fails on named "
        "evidence, unverified when too reworded to tell"
    )
    requires = ("actual", "context")
    uses = ("question",)
    escalates_to = "faithfulness"
    detects = True
    defaults: ClassVar[Mapping[str, Any]] = {
        "model": None,
        "method": "facts",
        "entities": "auto",
        "short_answer_words": 5,
        "negation": True,
        "nli_model": None,
        "entailment_label": "entailment",
        "nli_window": 2,
        "fail_on": None,
    }
    metrics = (
        MetricSpec(
            "support",
            "least supported claim: mean of its similarity to the context and its word support",
            threshold=0.7,
            primary=True,
            calibrated={"all-minilm-l6-v2": 0.7},
            weak=True,
        ),
        MetricSpec(
            "evidence",
            "pieces of named evidence against the answer of the kinds that fail it (fail_on: by default "
            "the kinds measured to be right at least 0.85 of the time at 95% confidence)",
            higher_is_better=False,
            range=(0.0, math.inf),
            threshold=0.0,
            gates=True,
        ),
        MetricSpec(
            "concerns",
            "pieces of named evidence of the kinds that only warn (measured below the precision to fail "
            "on): the answer is unverified, the concern named",
            higher_is_better=False,
            range=(0.0, math.inf),
            threshold=0.0,
            gates=True,
            weak=True,
        ),
        MetricSpec(
            "fact_support",
            "share of the answer's facts (numbers, dates, names, negations) the context states",
            threshold=None,
        ),
        MetricSpec(
            "groundedness",
            "catalog: similarity of the least grounded answer sentence to the context",
            threshold=0.75,
            calibrated=calibrated(0.75, 0.75),
        ),
        MetricSpec(
            "claim_similarity", "similarity of the least similar claim to its closest context sentence", threshold=None
        ),
        MetricSpec(
            "word_pair_support", "lowest word support of a claim (word coverage x pair support)", threshold=None
        ),
        MetricSpec(
            "unsupported_facts",
            "facts of the answer the context does not state",
            higher_is_better=False,
            range=(0.0, math.inf),
            threshold=None,
        ),
        MetricSpec("claims", "answer sentences that make a claim", range=(0.0, math.inf), threshold=None),
        MetricSpec("entailment", "nli: entailment probability of the least entailed claim", threshold=0.5),
    )
    #: Contexts whose evidence sources are kept (RAG tests share contexts).
    KEEP = 64

    def configure(self) -> None:
        super().configure()
        method = self.params["method"]
        require_choice(self.name, "method", method, GROUNDEDNESS_METHODS)
        require_number(self.name, "short_answer_words", self.params["short_answer_words"], low=0, integer=True)
        require_number(self.name, "nli_window", self.params["nli_window"], low=1, integer=True)
        require_type(self.name, "negation", self.params["negation"], bool, "True or False")
        from ...kit.facts import resolve_fail_on

        self.fail_on = resolve_fail_on(self.params["fail_on"], owner=self.name)
        if method == "nli":
            require_type(
                self.name, "nli_model", self.params["nli_model"], str, "an NLI cross-encoder name or local folder"
            )
            require_type(
                self.name, "entailment_label", self.params["entailment_label"], str, "the NLI class meaning entailment"
            )
        from ...kit.facts import FactLayer

        self.facts = FactLayer(self, self.params["entities"])
        self._sources: dict[str, Source] = {}

    def active_primary(self) -> MetricSpec:
        specs = self.metric_specs()
        return specs[{"facts": "support", "embeddings": "groundedness", "nli": "entailment"}[self.params["method"]]]

    def gating_metrics(self) -> list[MetricSpec]:
        primary = self.active_primary()
        specs = self.metric_specs()
        return [primary] if self.params["method"] == "embeddings" else [primary, specs["evidence"], specs["concerns"]]

    def weak_metrics(self) -> frozenset[str]:
        return frozenset({"support", "concerns"}) if self.params["method"] == "facts" else frozenset({"concerns"})

    def decide(self, failed: Sequence[str], unscored: bool, score: Score) -> Verdict:
        """Where a groundedness verdict is decided.

        - *fail*, by the **rules**, when the answer carries evidence of a kind in ``fail_on`` (``evidence`` > 0): the
          verdict quotes each piece (``'Mumbai' (sentence 1) appears nowhere in the context``);
        - *fail*, by the **detector** when the NLI model finds a claim not entailed (``method="nli"``), by the
          **embedding** model when its similarity alone falls short (``method="embeddings"``);
        - *unverified*, by the **embedding** model when there is no failing evidence but a claim is too far from the
          context's wording to confirm (``support`` is weak), by the **rules** when only evidence of a kind not in
          ``fail_on`` is named (a *concern*) or the answer refuses; a verifier, detector or judge may decide it then
          (``escalates_to``, `pytest_llmeval.run.escalation`);
        - *pass*, by the **embedding** model (the NLI model with ``method="nli"``), when every claim's support
          reaches the threshold.
        """
        listed = score.details.get("evidence", []) if score.details else []
        failing = tuple(str(e.get("message", "")) for e in listed if isinstance(e, Mapping) and e.get("fails", True))
        if "evidence" in failed:
            return Verdict("fail", "rules", failing or ("evidence",))
        verdict = super().decide(failed, unscored, score)
        concerns = tuple(
            str(e.get("message", "")) for e in listed if isinstance(e, Mapping) and not e.get("fails", True)
        )
        # The embedding support decides (an NLI model with method="nli"), unless a concern or a refusal, not the
        # support, left the answer unverified.
        model = "detector" if self.params["method"] == "nli" else "embedding"
        by = "rules" if verdict.outcome == "unverified" and not set(failed) - {"concerns"} else model
        return Verdict(verdict.outcome, by, concerns + tuple(m for m in verdict.evidence if m != "concerns"))

    def scoring_model(self) -> str | None:
        model = super().scoring_model()
        if self.params["method"] == "nli":
            from ...kit.models import model_identity

            return f"{model};nli:{model_identity(self.params['nli_model'])}"
        return model

    def signature_params(self) -> Mapping[str, Any]:
        params = dict(super().signature_params())
        if self.params["method"] == "embeddings":
            for key in ("entities", "short_answer_words", "negation", "fail_on"):
                params.pop(key, None)  # no fact layer runs
        else:
            params["entities"] = self.facts.extractor()
            params["fail_on"] = ",".join(sorted(self.fail_on)) or "none"
        if self.params["method"] != "nli":
            for key in ("nli_model", "entailment_label", "nli_window"):
                params.pop(key, None)
        else:
            params.pop("nli_model", None)  # named by the scoring model
        return params

    # -- what is scored ------------------------------------------------------------------

    def _claims(self, case: Case, sentences: list[str]) -> tuple[list[str], bool]:
        """The texts to embed per answer sentence, and whether the answer is one short claim with its question."""
        actual = (case.actual or "").strip()
        limit = self.params["short_answer_words"]
        if case.question and actual and len(actual.split()) <= limit:
            return [f"{case.question.strip()} {actual}"], True
        return sentences, False

    @staticmethod
    def _checked(case: Case, sentences: list[str], joined: bool) -> list[str]:
        """The texts whose facts are checked: the answer's sentences, or a short answer whole."""
        return [(case.actual or "").strip()] if joined and case.actual else sentences

    def _parse_units(self, case: Case, sentences: list[str], joined: bool) -> list[str]:
        """The texts the fact layer parses for one case (``sentences``: its answer's, ``joined``: a short answer with
        its question): its checked sentences, its context (joined), its question."""
        if (
            self.params["method"] == "embeddings"
            or case.actual is None
            or not case.context
            or self.facts.parser() is None
        ):
            return []
        from ...kit.facts import join_chunks

        return [
            *self._checked(case, sentences, joined),
            join_chunks(list(case.context)),
            *([case.question] if case.question else []),
        ]

    @staticmethod
    def _read(case: Case) -> tuple[Case, Answer]:
        """The case as the fact layer reads it (a record context as its sentences) and its answer read as claims."""
        from ...kit.facts import context_chunks, read_answer

        chunks = context_chunks(case.context)
        read = case if chunks == case.context else replace(case, context=chunks)
        return read, read_answer(case.actual or "", case.question, MAX_SENTENCES)

    def parse_texts(self, cases: Sequence[Case]) -> list[str]:
        """Every text the fact layer parses to score ``cases`` (for batches ahead of the tests)."""
        out: list[str] = []
        if self.facts.parser() is None:
            return out
        for case in cases:
            read, answer = self._read(case)
            sentences = list(answer.sentences)
            out.extend(self._parse_units(read, sentences, self._claims(read, sentences)[1]))
        return out

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        originals = list(cases)
        if self.params["method"] == "embeddings":
            answers = [_sentences(c.actual or "") for c in cases]
            readings: list[Answer | None] = [None] * len(cases)
        else:
            pairs = [self._read(case) for case in cases]
            cases = [read for read, _ in pairs]
            readings = [answer for _, answer in pairs]
            answers = [list(answer.sentences) for _, answer in pairs]
        contexts = [[s for chunk in c.context for s in _sentences(chunk)] for c in cases]
        claims = [self._claims(case, sentences) for case, sentences in zip(cases, answers)]
        # A long answer's claims are its sentences (already encoded); a short one's is the question with it.
        encoded = self.encode_all([*answers, *contexts, *(texts if joined else [] for texts, joined in claims)])
        n = len(cases)
        method = self.params["method"]
        if method == "embeddings":
            return [self._catalog(answers[i], contexts[i], encoded[i], encoded[n + i]) for i in range(n)]
        units = [
            self._parse_units(case, sentences, joined) for case, sentences, (_, joined) in zip(cases, answers, claims)
        ]
        parsed = iter(self.facts.parse([text for texts in units for text in texts]))
        scores = []
        for index, (case, sentences, context) in enumerate(zip(cases, answers, contexts)):
            claim_texts, joined = claims[index]
            checked = self._checked(case, sentences, joined)
            mine = [next(parsed, None) for _ in units[index]]  # the checked sentences', the context's, the question's
            unit_parses: list[Parsed | None] = mine[: len(checked)] if mine else [None] * len(checked)
            context_parse = mine[len(checked)] if mine else None
            question_parse = mine[len(checked) + 1] if mine and case.question else None
            if not sentences or not context:
                scores.append(self._nothing_to_compare(sentences))
                continue
            sims = cosine_matrix(encoded[index], encoded[n + index])
            claim_sims = (
                cosine_matrix(encoded[2 * n + index], encoded[n + index]).max(axis=1) if joined else sims.max(axis=1)
            )
            source = self._source(case, context_parse, context, originals[index].context)
            scores.append(
                score_claims(
                    self.facts,
                    source,
                    case,
                    sentences,
                    context,
                    sims,
                    claim_texts,
                    checked,
                    joined,
                    claim_sims,
                    unit_parses,
                    question_parse,
                    readings[index],
                    negation=self.params["negation"],
                    fail_on=self.fail_on,
                )
            )
        if method == "nli":
            scores = with_entailment(self, claims, contexts, scores)
        return scores

    def _nothing_to_compare(self, sentences: list[str]) -> Score:
        """The score of a case whose answer (or else context) has no sentence: every metric unscored."""
        return Score(
            dict.fromkeys(self.metric_specs()),
            f"the {'answer' if not sentences else 'context'} has no sentence to compare",
            {},
        )

    def _catalog(self, sentences: list[str], context: list[str], answer: Any, source: Any) -> Score:
        if not sentences or not context:
            return self._nothing_to_compare(sentences)
        sims = cosine_matrix(answer, source)
        best, match = sims.max(axis=1), sims.argmax(axis=1)
        worst = int(best.argmin())
        reason = (
            f"least grounded sentence {excerpt(sentences[worst], 100)!r} ({float(best[worst]):.3f}); "
            f"closest context: {excerpt(context[int(match[worst])], 100)!r}"
        )
        return Score(
            {"groundedness": float(best[worst])},
            reason,
            {"sentences": sentence_details(sentences, context, sims), "least_grounded": worst},
        )

    def _source(self, case: Case, context_parse: Parsed | None, context: list[str], given: Sequence[str]) -> Source:
        from ...kit.facts import join_chunks
        from ...kit.facts import Source
        from ...kit.facts import PairIndex
        from ...kit.models import text_key

        joined = join_chunks(list(case.context))
        key = text_key(joined)
        source = self._sources.pop(key, None)
        if source is None:
            source = Source(
                self.facts.index(list(case.context), parsed=context_parse),
                context_parse,
                PairIndex(context),
                context,
                tuple(given),
            )
        self._sources[key] = source  # most recently used last
        while len(self._sources) > self.KEEP:
            del self._sources[next(iter(self._sources))]
        return source
