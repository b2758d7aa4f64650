"""The fact layer, for a check that compares an answer's facts with its context (``groundedness`` reads it): reading
an answer, finding the evidence against a sentence, the kinds that fail, and the word-pair index."""

from __future__ import annotations

from ..facts.evidence import Evidence, YES_NO, makes_claim
from ..facts.extract import join_chunks
from ..facts.grounding import (
    Answer,
    SHOWN,
    Source,
    confirmed_by_record,
    context_chunks,
    failing_first,
    find_evidence,
    read_answer,
    said,
    unlinked,
)
from ..facts.kinds import resolve_fail_on
from ..facts.layer import Cooccurrence, FactLayer, PairIndex, content_stems, summarize_checks, word_pair_support
from ..facts.syntax import Parsed

__all__ = [
    "Evidence",
    "YES_NO",
    "makes_claim",
    "join_chunks",
    "Answer",
    "SHOWN",
    "Source",
    "confirmed_by_record",
    "context_chunks",
    "failing_first",
    "find_evidence",
    "read_answer",
    "said",
    "unlinked",
    "resolve_fail_on",
    "Cooccurrence",
    "FactLayer",
    "PairIndex",
    "content_stems",
    "summarize_checks",
    "word_pair_support",
    "Parsed",
]
