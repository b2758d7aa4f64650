"""Text, for a check that reads an answer: sentences, excerpts for messages, counted phrases, text conditions (the
language of ``assert_matches``), and the PII and secret patterns."""

from __future__ import annotations

from ..text.basics import (
    MAX_SENTENCES,
    counted,
    embedded_sentences,
    excerpt,
    nltk_sentence_splitter,
    normalize,
    sentences_or_text,
    split_sentences,
    utf8,
)
from ..text.conditions import Condition, compile_user_regex, parse_condition, search_user_regex
from ..text.patterns import Detector, Finding, PII_DETECTORS, SECRET_DETECTORS, kinds_of, mask, scan

__all__ = [
    "MAX_SENTENCES",
    "counted",
    "embedded_sentences",
    "excerpt",
    "nltk_sentence_splitter",
    "normalize",
    "sentences_or_text",
    "split_sentences",
    "utf8",
    "Condition",
    "compile_user_regex",
    "parse_condition",
    "search_user_regex",
    "Detector",
    "Finding",
    "PII_DETECTORS",
    "SECRET_DETECTORS",
    "kinds_of",
    "mask",
    "scan",
]
