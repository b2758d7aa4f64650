"""How `groundedness` scores, past its embeddings: one case's claims against its context (the evidence against them,
each claim's support, the details and the message), the NLI model's entailment of the claims (``method="nli"``), and
each answer sentence's closest context sentence. The check itself, its parameters and its verdicts are in
`pytest_llmeval.checks.embedding.groundedness`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...kit import Case
from ...kit import Score
from ...kit.facts import YES_NO, Evidence, makes_claim
from ...kit.text import excerpt

if TYPE_CHECKING:
    from ...kit.facts import Answer, Source
    from ...kit.facts import FactLayer
    from ...kit.facts import Parsed
    from .base import EmbeddingEvaluator

__all__ = ["score_claims", "with_entailment", "sentence_details", "LISTED"]


#: Pieces of evidence listed in a result's details.
LISTED = 25


def score_claims(
    facts: FactLayer,
    source: Source,
    case: Case,
    sentences: list[str],
    context: list[str],
    sims: Any,
    claim_texts: list[str],
    checked: list[str],
    joined: bool,
    claim_sims: Any,
    unit_parses: list[Parsed | None],
    question_parse: Parsed | None,
    answer: Answer | None,
    *,
    negation: bool,
    fail_on: frozenset[str],
) -> Score:
    """One case's claims scored against its context's ``source`` (the facts and NLI methods): the evidence against
    them, each claim's support, the details and the message. ``facts``: the check's fact layer; ``negation`` and
    ``fail_on``: its parameters."""
    from ...kit.facts import SHOWN, confirmed_by_record, failing_first, find_evidence, said, unlinked
    from ...kit.facts import Cooccurrence, content_stems, summarize_checks, word_pair_support

    # Sentences about the sources, prompt echoes, closings, headings and refusals claim nothing about the source.
    skipped = {} if answer is None or joined else answer.not_claims
    given = facts.index(case.question, parsed=question_parse) if case.question else None
    checks = facts.check(checked, source.index, given=given, negation=negation, parsed=unit_parses)
    # A short answer with its question claims what it answers, a bare "No." included; "You're welcome." does not.
    claiming = [
        (makes_claim(text, check.facts) or (joined and bool(YES_NO.match(text)))) and i not in skipped
        for i, (text, check) in enumerate(zip(checked, checks))
    ]
    pair_index = source.pairs.plus(case.question) if case.question else source.pairs
    pairs = [word_pair_support(text, pair_index) for text in checked]
    support_per_claim = [(float(claim_sims[i]) + pairs[i]) / 2 for i in range(len(checked))]
    claimed = [i for i, claim in enumerate(claiming) if claim]
    given_stems = set(content_stems(case.question)) if case.question else set()
    # A sentence's own closeness to the context (a short answer's without its question, which would lend it its
    # words).
    own = [float(v) for v in (sims.max(axis=1) if not joined else [float(sims.max())])]
    evidence, notes = find_evidence(
        checked,
        checks,
        claimed,
        unit_parses,
        source,
        given_stems,
        given,
        case.question,
        own,
        numbered=not joined,
        fail_on=fail_on,
    )
    # A claim about a record that one field states whole is confirmed ("closed on Sundays" / {"Sunday": "closed"}).
    confirmed = {
        i: field
        for i in claimed
        if source.records
        and not any(e.sentence == i + 1 for e in evidence)
        and (field := confirmed_by_record(source.records, checked[i], checks[i].facts)) is not None
    }
    for i in confirmed:
        support_per_claim[i] = max(support_per_claim[i], 1.0)
    if case.question:
        together = Cooccurrence(pair_index.stems)  # the context's sentences, and the question
        evidence.extend(
            unlinked(
                checked,
                claimed,
                support_per_claim,
                together,
                pair_index,
                evidence,
                numbered=not joined,
                fails="word_pair" in fail_on,
            )
        )
        evidence.sort(key=lambda e: e.sentence)
    fact_support, unsupported, _, fact_details = summarize_checks(
        [checks[i] for i in claimed], "context", index=source.index, numbers=[i + 1 for i in claimed]
    )
    best = sims.max(axis=1)
    metrics: dict[str, float | None] = {
        "support": min((support_per_claim[i] for i in claimed), default=1.0),
        "evidence": float(sum(e.fails for e in evidence)),
        "concerns": float(sum(not e.fails for e in evidence)),
        "fact_support": fact_support,
        "groundedness": float(best.min()),
        # Over the sentences that claim something (all of them when none does), like ``support``.
        "claim_similarity": min((float(claim_sims[i]) for i in claimed), default=float(claim_sims.min())),
        "word_pair_support": min((pairs[i] for i in claimed), default=min(pairs)),
        "unsupported_facts": float(unsupported),
        "claims": float(len(claimed)),
        "entailment": None,
    }
    details: dict[str, Any] = {
        "sentences": sentence_details(sentences, context, sims),
        "least_grounded": int(best.argmin()),
        "claims": [
            {
                "claim": excerpt(claim_texts[i] if joined else checked[i], 200),
                "makes_claim": claiming[i],
                "similarity": float(claim_sims[i]),
                "word_pair_support": pairs[i],
                "support": support_per_claim[i],
                **({"confirmed_by": confirmed[i]} if i in confirmed else {}),
                **({"not_a_claim": skipped[i]} if i in skipped else {}),
            }
            for i in range(len(checked))
        ],
        "evidence": [
            {
                "kind": e.kind,
                "sentence": e.sentence,
                "text": excerpt(e.text, 200),
                "message": e.message,
                "fails": e.fails,
            }
            for e in failing_first(evidence)[:LISTED]
        ],
        "unsupported_facts": fact_details,
        "short_answer": joined,
    }
    refused = [] if answer is None or joined else answer.refusals
    if refused:
        details["refusal"] = [i + 1 for i in refused]
    shown = said(evidence)
    shown.extend(notes[:SHOWN])
    if not claimed and refused:
        closeness = (
            f"the answer says the context does not give what was asked (a refusal, sentence "
            f"{refused[0] + 1}): neither a hallucination nor a confirmed fact"
        )
    elif not claimed:
        closeness = "the answer makes no claim to check (questions, thanks, greetings, words about the sources)"
    else:
        weakest = min(claimed, key=support_per_claim.__getitem__)
        closeness = (
            f"least supported {'answer' if joined else f'sentence {weakest + 1}'} "
            f"{excerpt(checked[weakest], 100)!r} "
            + (
                f"(the record states it: {confirmed[weakest]})"
                if weakest in confirmed
                else f"(support {support_per_claim[weakest]:.3f}: similarity {float(claim_sims[weakest]):.3f}, "
                f"word pairs {pairs[weakest]:.3f})"
            )
        )
    return Score(metrics, "; ".join([*shown, closeness]), details, unverified=bool(refused) and not claimed)


def with_entailment(
    evaluator: EmbeddingEvaluator, claims: list[tuple[list[str], bool]], contexts: list[list[str]], scores: list[Score]
) -> list[Score]:
    """The scores with the NLI model's verdict on each case's claims (the sentences that make one)."""
    from ..language_model.hallucination import nli_entailment

    window = evaluator.params["nli_window"]
    pairs: list[tuple[str, str]] = []
    shape = []
    for (texts, _), context, score in zip(claims, contexts, scores):
        flags = [claim["makes_claim"] for claim in score.details.get("claims", [])]
        claimed = [text for text, made in zip(texts, flags) if made]
        windows = (
            [" ".join(context[i : i + window]) for i in range(max(1, len(context) - window + 1))] if context else []
        )
        shape.append((claimed, len(windows)))
        pairs.extend((w, t) for t in claimed for w in windows)
    probabilities = (
        nli_entailment(
            evaluator, evaluator.params["nli_model"], evaluator.params["entailment_label"], pairs, parameter="nli_model"
        )
        if pairs
        else []
    )
    out, cursor = [], 0
    for (claimed, n_windows), score in zip(shape, scores):
        if score.metrics.get("support") is None:
            out.append(score)  # nothing to compare
            continue
        values = []
        for _ in claimed:
            chunk = probabilities[cursor : cursor + n_windows]
            cursor += n_windows
            values.append(max(chunk) if chunk else 0.0)
        listed = [
            Evidence(e["kind"], e["sentence"], e["text"], e["message"], e.get("fails", True))
            for e in score.details.get("evidence", [])
        ]
        from ...kit.facts import said

        shown = said(listed)
        if values:
            low = min(range(len(values)), key=values.__getitem__)
            shown.append(f"least entailed claim {excerpt(claimed[low], 100)!r} ({values[low]:.3f})")
        else:
            shown.append("the answer makes no claim to check (questions, thanks, greetings)")
        out.append(
            Score(
                {**score.metrics, "entailment": min(values, default=1.0)},
                "; ".join(shown),
                {**score.details, "entailment": values},
            )
        )
    return out


def sentence_details(sentences: list[str], context: list[str], sims: Any) -> list[dict[str, Any]]:
    """Per answer sentence: its best similarity to a context sentence, and that sentence."""
    best, match = sims.max(axis=1), sims.argmax(axis=1)
    return [
        {"sentence": excerpt(s, 200), "score": float(best[i]), "best_match": excerpt(context[int(match[i])], 200)}
        for i, s in enumerate(sentences)
    ]
