"""LLM-judge checks, built on :mod:`pytest_llmeval.judges` (verdicts cached and replayable).

- ``context_precision`` (seed 001, LLM-guided): the judge says, for each retrieved
  chunk in rank order, whether it was useful to arrive at the expected answer
  (yes/no; with several expected answers, all are in the prompt and a chunk is
  useful if it helps to arrive at any of them); the score is the mean of
  precision@k over the ranks k whose verdict is yes: yes,no,no,yes -> (1 + 2/4) / 2
  = 0.75 and no,yes,no,yes -> 0.5; all no -> 0.
- ``faithfulness`` (seed 001, RAGAS / DeepEval): the judge lists the answer's
  claims, then gives each a verdict against the context (yes / no / idk). RAGAS
  counts only supported claims; DeepEval counts every claim the context does not
  contradict. ``unknown_claims`` chooses: ``unsupported`` (RAGAS, default) or
  ``supported`` (DeepEval).

A reply that is not the JSON asked for (or was cut off) counts as a parse
failure: the metric ``parse_failure`` is 1 and the case is unscored.
"""

from __future__ import annotations


import json
from contextvars import ContextVar
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

from ..case import Case
from ..judges.base import JudgeParseError
from .base import Evaluator, MetricSpec, Score, require_choice, require_type

T = TypeVar("T")

__all__ = ["JudgeEvaluator", "EmbeddingJudge", "ContextPrecision", "Faithfulness", "ContextRecall",
           "AnswerCorrectness", "weighted_precision"]


def weighted_precision(verdicts: Sequence[bool]) -> float:
    """Mean of precision@k over the ranks k with a relevant chunk; 0 when none is.

    >>> weighted_precision([True, False, False, True]), weighted_precision([False, True, False, True])
    (0.75, 0.5)
    """
    hits, total = 0, 0.0
    for k, relevant in enumerate(verdicts, start=1):
        if relevant:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


class JudgeEvaluator(Evaluator):
    """Base of judge checks: the session's judge runner, prompts by template, parse failures as a metric."""

    needs_judge = True
    reproducible = False
    runner: Any = None
    #: The name verdicts are stored under (default: the check's own); checks asking the same question share one.
    verdicts_of: ClassVar[str] = ""

    def bind_judge(self, runner: Any) -> None:
        self.runner = runner
        self.__dict__.pop("_signature", None)

    def scoring_model(self) -> str | None:
        if self.runner is None or self.runner.judge is None:
            return "judge:unconfigured"
        signature = dict(self.runner.judge.signature())
        repeats = getattr(self.runner, "repeats", 1)
        if repeats > 1:
            signature["repeats"] = repeats  # a mean over repeats is not comparable with one verdict
        return "judge:" + json.dumps(signature, sort_keys=True)

    def ask(self, template: str, *, what: str, schema: Mapping[str, Any] | None = None, repeat: int = 0,
            options: Mapping[str, Any] | None = None, normalise: Callable[[Any], Any] | None = None, **fields: str) -> Any:
        """The judge's JSON reply to ``template`` filled with ``fields``, checked against ``schema``.

        ``normalise`` tidies the reply before the check; by default ``verdict`` values
        are lower-cased and stripped (small judges say "Yes").
        """
        return self.ask_fields(template, fields, what=what, schema=schema, repeat=repeat, options=options, normalise=normalise)[0]

    def ask_reply(self, template: str, *, what: str, schema: Mapping[str, Any] | None = None, repeat: int = 0,
                  options: Mapping[str, Any] | None = None, normalise: Callable[[Any], Any] | None = None,
                  **fields: str) -> tuple[Any, Any]:
        """:meth:`ask`'s value and the raw reply it came from (for log-probabilities)."""
        return self.ask_fields(template, fields, what=what, schema=schema, repeat=repeat, options=options, normalise=normalise)

    def fan_out(self, jobs: Sequence[Callable[[], T]]) -> list[T]:
        """A check's independent judge requests, together (see :func:`pytest_llmeval.judges.runner.fan_out`)."""
        if self.runner is None:
            return [job() for job in jobs]
        return self.runner.fan_out(jobs)  # type: ignore[no-any-return]

    def ask_fields(self, template: str, fields: Mapping[str, str], *, what: str, schema: Mapping[str, Any] | None = None,
                   repeat: int = 0, options: Mapping[str, Any] | None = None,
                   normalise: Callable[[Any], Any] | None = None) -> tuple[Any, Any]:
        """:meth:`ask_reply` with the template's ``fields`` given as one mapping."""
        from ..judges.runner import JudgeUnavailable

        if self.runner is None:
            raise JudgeUnavailable("llmeval judge unavailable: no judge configured (set --llmeval-judge-model)")
        schema = schema or {"type": "object"}
        runner = self.runner

        def parse(reply: Any) -> Any:
            value = (normalise or _lower_verdict)(reply.json())
            runner.validate(value, schema)
            return value

        current = _REPEAT.get()
        reply = self.runner.reply(evaluator=self.verdicts_of or self.name, version=self.version, template=template,
                                  messages=[{"role": "user", "content": template.format(**fields)}], schema=schema,
                                  repeat=repeat + current, what=what if not current else f"{what} (repeat {current})",
                                  options=options, parse=parse)
        try:
            return parse(reply), reply
        except JudgeParseError:
            self.runner.count_parse_failure(self.name)
            raise

    def score_batch(self, cases: Sequence[Case]) -> list[Score]:
        """Score each case, with the judge use it took (calls, replays, tokens, cost) in its details as ``judge``.

        With ``repeats`` > 1 (``llmeval_judge_repeats``), each case is judged that many
        times (each repeat its own recorded verdicts) and every metric is the mean over
        the repeats; the primary metric's values per repeat and their spread are in
        ``details["repeats"]``, so a flickering judge shows instead of deciding alone.
        """
        if self.runner is None:
            return [self.score(case) for case in cases]
        repeats = max(1, int(getattr(self.runner, "repeats", 1)))
        scores = []
        for case in cases:
            with self.runner.metered() as usage:
                runs = []
                for index in range(repeats):
                    token = _REPEAT.set(index)
                    try:
                        runs.append(self.score(case))
                    finally:
                        _REPEAT.reset(token)
            score = runs[0] if repeats == 1 else self._mean_of(runs)
            scores.append(Score(score.metrics, score.reason, {**score.details, "judge": usage.as_dict()}, score.unverified))
        return scores

    def _mean_of(self, runs: Sequence[Score]) -> Score:
        primary = self.primary_metric().name
        metrics: dict[str, float | None] = {}
        for name in runs[0].metrics:
            present = [v for v in (r.metrics.get(name) for r in runs) if v is not None]
            metrics[name] = sum(present) / len(present) if present else None
        values = [r.metrics.get(primary) for r in runs]
        scored = [v for v in values if v is not None]
        spread = (max(scored) - min(scored)) if scored else None
        shown = ", ".join("n/a" if v is None else f"{v:.3f}" for v in values)
        reason = f"mean of {len(runs)} repeats ({shown}); first: {runs[0].reason}"
        # Unverified when no repeat found anything to judge; a repeat that did decides.
        return Score(metrics, reason, {**runs[0].details, "repeats": {"values": values, "range": spread}},
                     all(r.unverified for r in runs))

    def unscored(self, metrics: Sequence[str], error: Exception) -> Score:
        return Score({**{m: None for m in metrics}, "parse_failure": 1.0}, f"the judge's reply could not be used: {error}", {})

    @staticmethod
    def nothing_to_judge(metrics: Sequence[str], what: str, details: Mapping[str, Any] | None = None) -> Score:
        """The judge found nothing to judge (no claims, no statements): unscored and unverified, never a silent pass."""
        return Score({**{m: None for m in metrics}, "parse_failure": 0.0}, f"unverified: {what}", dict(details or {}),
                     unverified=True)


#: The repeat being judged (0 .. repeats-1): part of every verdict's key, so each repeat is its own verdict.
_REPEAT: ContextVar[int] = ContextVar("pytest_llmeval_judge_repeat", default=0)


def _lower_verdict(value: Any) -> Any:
    if isinstance(value, dict) and isinstance(value.get("verdict"), str):
        value["verdict"] = value["verdict"].strip().lower()
    return value


def verdict_schema(*allowed: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"verdict": {"type": "string", "enum": list(allowed)}, "reason": {"type": "string"}},
            "required": ["verdict"]}


def list_schema(key: str) -> dict[str, Any]:
    return {"type": "object", "properties": {key: {"type": "array", "items": {"type": "string"}}}, "required": [key]}


YES_NO = verdict_schema("yes", "no")


def _score_schema(low: int, high: int) -> dict[str, Any]:
    return {"type": "object", "properties": {"score": {"type": "integer", "minimum": low, "maximum": high}, "reason": {"type": "string"}},
            "required": ["score"]}


def _fields(case: Case) -> dict[str, str]:
    return {
        "question": case.question or "",
        "actual": case.actual or "",
        "expected": "\n".join(case.expected) if case.expected else "",
        "context": "\n\n".join(case.context) if case.context else "",
    }


_PRECISION = """Given a question, its expected answer (or several acceptable expected answers) and one retrieved context
chunk, say whether the chunk was useful to arrive at the expected answer; with several, whether it was useful to arrive
at any one of them. Reply with JSON only: {{"verdict": "yes"}} or {{"verdict": "no"}}, plus a short "reason".

Question: {question}
{expected}
Context chunk: {chunk}
"""


def _expected_answers(expected: Sequence[str]) -> str:
    """The prompt's expected-answer lines: one answer, or every acceptable one numbered.

    >>> print(_expected_answers(["Paris"]))
    Expected answer: Paris
    >>> print(_expected_answers(["Paris", "The capital is Paris."]))
    Expected answers (any one of them):
    1. Paris
    2. The capital is Paris.
    """
    if len(expected) == 1:
        return f"Expected answer: {expected[0]}"
    return "Expected answers (any one of them):\n" + "\n".join(f"{i}. {answer}" for i, answer in enumerate(expected, start=1))


def _verdict(evaluator: JudgeEvaluator, template: str, allowed: Sequence[str], what: str, **fields: str) -> str:
    return str(evaluator.ask_fields(template, fields, what=what, schema=verdict_schema(*allowed))[0]["verdict"])


def _yes(evaluator: JudgeEvaluator, template: str, what: str, **fields: str) -> bool:
    return _verdict(evaluator, template, ("yes", "no"), what, **fields) == "yes"


#: Every judge check reports it: 1 when the judge's reply could not be used (the case is then unscored).
PARSE_FAILURE = MetricSpec("parse_failure", "1 when a judge reply could not be used", higher_is_better=False, threshold=None)


def _judge_metrics(primary: str, description: str, higher_is_better: bool = True) -> tuple[MetricSpec, ...]:
    return (
        MetricSpec(primary, description, higher_is_better=higher_is_better, threshold=0.75 if higher_is_better else 0.25, primary=True),
        PARSE_FAILURE,
    )


class ContextPrecision(JudgeEvaluator):
    """Are the useful chunks ranked first? (weighted precision over yes-verdicts)

    A chunk is useful when it helps to arrive at any of the expected answers (seed 001): the
    judge sees them all.
    """

    name = "context_precision"
    version = "2"  # 2: the judge sees every expected answer, not the first alone
    helper = "assert_context_precision"
    extra = "judge"
    description = "Chunks useful for the expected answer are ranked first (LLM judge)"
    requires = ("question", "expected", "context")
    metrics = _judge_metrics("context_precision", "mean precision@k over the useful chunks")

    def score(self, case: Case) -> Score:
        verdicts = []
        try:
            for rank, chunk in enumerate(case.context):
                verdicts.append(_yes(self, _PRECISION, f"{self.name} chunk {rank}", question=case.question or "",
                                     expected=_expected_answers(case.expected), chunk=chunk))
        except JudgeParseError as exc:
            return self.unscored(["context_precision"], exc)
        value = weighted_precision(verdicts)
        shown = ",".join("yes" if v else "no" for v in verdicts)
        return Score({"context_precision": value, "parse_failure": 0.0}, f"verdicts {shown} -> {value:.3f}", {"verdicts": verdicts})


_CLAIMS = """Break the answer below into short, self-contained factual claims. Reply with JSON only:
{{"claims": ["...", "..."]}}

Answer: {answer}
"""

_CLAIM_VERDICT = """Given the context, is the claim supported by it? Reply with JSON only: {{"verdict": "yes"}} (supported),
{{"verdict": "no"}} (contradicted) or {{"verdict": "idk"}} (the context does not say), plus a short "reason".

Context: {context}
Claim: {claim}
"""


class Faithfulness(JudgeEvaluator):
    """Share of the answer's claims the context supports (LLM judge).

    Parameters:
        unknown_claims: ``unsupported`` (RAGAS: only supported claims count) or
            ``supported`` (DeepEval: only contradicted claims count against).
        binary: decide on ``faithful`` instead, 1 when every claim counts as supported and 0
            otherwise (seed 003's pass / fail shape, as LlamaIndex reports it); both are always recorded.
    """

    name = "faithfulness"
    helper = "assert_faithful"
    extra = "judge"
    description = "The answer's claims are supported by the retrieved context (LLM judge)"
    requires = ("actual", "context")
    defaults: ClassVar[Mapping[str, Any]] = {"unknown_claims": "unsupported", "binary": False}
    metrics = (*_judge_metrics("faithfulness", "share of claims supported by the context"),
               MetricSpec("faithful", "1 when every claim is supported, else 0", threshold=0.5))

    def configure(self) -> None:
        require_choice(self.name, "unknown_claims", self.params["unknown_claims"], ("unsupported", "supported"))
        require_type(self.name, "binary", self.params["binary"], bool, "True or False")

    def active_primary(self) -> MetricSpec:
        return self.metric_specs()["faithful" if self.params["binary"] else "faithfulness"]

    def score(self, case: Case) -> Score:
        context = "\n\n".join(case.context)
        try:
            claims = self.ask(_CLAIMS, what=f"{self.name} claims", schema=list_schema("claims"), answer=case.actual or "")["claims"]
            verdicts = self.fan_out([lambda i=i, claim=claim: _verdict(self, _CLAIM_VERDICT, ("yes", "no", "idk"),  # type: ignore[misc]
                                                                       f"{self.name} claim {i}", context=context, claim=claim)
                                     for i, claim in enumerate(claims)])
        except JudgeParseError as exc:
            return self.unscored(["faithfulness", "faithful"], exc)
        if not claims:
            return self.nothing_to_judge(["faithfulness", "faithful"], "the judge found no claims in the answer to check",
                                         {"claims": []})
        counted = ("yes", "idk") if self.params["unknown_claims"] == "supported" else ("yes",)
        value = sum(v in counted for v in verdicts) / len(verdicts)
        failing = [c for c, v in zip(claims, verdicts) if v not in counted]
        reason = f"{len(claims) - len(failing)}/{len(claims)} claims supported"
        if failing:
            reason += f"; first unsupported: {failing[0][:100]!r}"
        return Score({"faithfulness": value, "faithful": 0.0 if failing else 1.0, "parse_failure": 0.0}, reason,
                     {"claims": [{"claim": c, "verdict": v} for c, v in zip(claims, verdicts)]})


_STATEMENTS = """Break the text below into short, self-contained factual statements. Reply with JSON only:
{{"statements": ["...", "..."]}}

Text: {text}
"""

_ATTRIBUTABLE = """Can the statement be attributed to (inferred from) the context? Reply with JSON only:
{{"verdict": "yes"}} or {{"verdict": "no"}}, plus a short "reason".

Context: {context}
Statement: {statement}
"""



_SUPPORTED = """Is the statement supported by the reference text? Reply with JSON only: {{"verdict": "yes"}} or {{"verdict": "no"}}.

Reference: {reference}
Statement: {statement}
"""


def _statements(evaluator: JudgeEvaluator, text: str, what: str) -> list[str]:
    return list(evaluator.ask(_STATEMENTS, what=what, schema=list_schema("statements"), text=text)["statements"])


class ContextRecall(JudgeEvaluator):
    """Share of the expected answer's statements attributable to the context (best over expected answers)."""

    name = "context_recall"
    helper = "assert_context_recall"
    extra = "judge"
    description = "The retrieved context holds what the expected answer says (LLM judge)"
    requires = ("expected", "context")
    metrics = _judge_metrics("context_recall", "share of expected-answer statements found in the context")

    def score(self, case: Case) -> Score:
        context = "\n\n".join(case.context)
        best: tuple[float, int, list[bool]] | None = None
        try:
            for index, expected in enumerate(case.expected):
                statements = _statements(self, expected, f"{self.name} statements #{index}")
                found = self.fan_out([lambda i=i, s=s: _yes(self, _ATTRIBUTABLE, f"{self.name} statement {i}",  # type: ignore[misc]
                                                            context=context, statement=s) for i, s in enumerate(statements)])
                if not found:
                    continue  # no statement to look for: this expected answer tells nothing
                value = sum(found) / len(found)
                if best is None or value > best[0]:
                    best = (value, index, found)
        except JudgeParseError as exc:
            return self.unscored(["context_recall"], exc)
        if best is None:
            return self.nothing_to_judge(["context_recall"], "the judge found no statements in the expected answer(s)")
        value, index, found = best
        return Score({"context_recall": value, "parse_failure": 0.0},
                     f"{sum(found)}/{len(found)} statements of expected answer #{index} are in the context", {"reference": index})


class EmbeddingJudge(JudgeEvaluator):
    """A judge check that also embeds texts: the session's embedder, named in the signature when used."""

    models: Any = None

    def uses_embedder(self) -> bool:
        return True

    def bind(self, models: Any) -> None:
        self.models = models
        self.__dict__.pop("_signature", None)

    def embedder(self) -> Any:
        if self.models is None:
            from ..models import ModelCache

            self.models = ModelCache()
        return self.models.embedder()

    def scoring_model(self) -> str | None:
        judge = super().scoring_model()
        return f"{judge}; embedder:{self.embedder().signature}" if self.uses_embedder() else judge


class AnswerCorrectness(EmbeddingJudge):
    """Statement F1 against the expected answer, ``tp / (tp + 0.5 (fp + fn))``, blended with semantic similarity.

    ``f1_weight`` and ``similarity_weight`` (RAGAS: 0.75 / 0.25) must sum to 1; with a
    similarity weight of 0 (Valor's choice) no embedding model is needed. Several
    expected answers: the best.
    """

    name = "answer_correctness"
    helper = "assert_answer_correct"
    extra = "judge"
    description = "The answer states what the expected answer states, and nothing else (LLM judge)"
    requires = ("actual", "expected")
    defaults: ClassVar[Mapping[str, Any]] = {"f1_weight": 0.75, "similarity_weight": 0.25}
    metrics = (
        MetricSpec("answer_correctness", "weighted statement F1 and semantic similarity", threshold=0.75, primary=True),
        MetricSpec("f1", "statement F1", threshold=None),
        MetricSpec("similarity", "embedding similarity to the expected answer", threshold=None),
        PARSE_FAILURE,
    )

    def configure(self) -> None:
        weights = (self.params["f1_weight"], self.params["similarity_weight"])
        if any(isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0 for w in weights) or abs(sum(weights) - 1) > 1e-6:
            raise ValueError(f"{self.name}: parameters 'f1_weight' and 'similarity_weight' must be non-negative and sum to 1; got {weights}")

    def uses_embedder(self) -> bool:
        return bool(self.params["similarity_weight"])

    def _similarity(self, actual: str, expected: str) -> float:
        vectors = self.embedder().encode([actual, expected])
        return float(max(0.0, min(1.0, float(vectors[0] @ vectors[1]))))

    def score(self, case: Case) -> Score:
        actual = case.actual or ""
        best: tuple[float, dict[str, float | None], int] | None = None
        try:
            predicted = _statements(self, actual, f"{self.name} answer statements")
            for index, expected in enumerate(case.expected):
                truth = _statements(self, expected, f"{self.name} expected statements #{index}")
                tp = sum(_yes(self, _SUPPORTED, f"{self.name} answer statement {i}", reference=expected, statement=s)
                         for i, s in enumerate(predicted))
                fp = len(predicted) - tp
                fn = sum(not _yes(self, _SUPPORTED, f"{self.name} expected statement {i}", reference=actual, statement=s)
                         for i, s in enumerate(truth))
                f1 = tp / (tp + 0.5 * (fp + fn)) if tp else 0.0
                similarity = self._similarity(actual, expected) if self.params["similarity_weight"] else None
                value = self.params["f1_weight"] * f1 + self.params["similarity_weight"] * (similarity or 0.0)
                if best is None or value > best[0]:
                    best = (value, {"f1": f1, "similarity": similarity, "tp": tp, "fp": fp, "fn": fn}, index)
        except JudgeParseError as exc:
            return self.unscored(["answer_correctness", "f1", "similarity"], exc)
        assert best is not None
        value, parts, index = best
        return Score({"answer_correctness": value, "f1": parts["f1"], "similarity": parts["similarity"], "parse_failure": 0.0},
                     f"statement F1 {parts['f1']:.3f} (tp {parts['tp']}, fp {parts['fp']}, fn {parts['fn']}) vs expected answer #{index}",
                     {"reference": index, "tp": parts["tp"], "fp": parts["fp"], "fn": parts["fn"]})
