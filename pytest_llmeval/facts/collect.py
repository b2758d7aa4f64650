"""The checkable facts of one text, in order of appearance: its dates and times (`pytest_llmeval.facts.dates`),
its numbers outside them (`pytest_llmeval.facts.parsing`) and its names (`pytest_llmeval.facts.names`: from a parse's
named entities, a spaCy pipeline or capitalisation). `pytest_llmeval.facts.extract` looks them up in a context.

>>> [(f.kind, f.text) for f in extract_facts("On 6 May 1825 the 330 m tower opened in Paris.")]
[('date', '6 May 1825'), ('number', '330 m'), ('name', 'Paris')]
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .dates import MONTHS, clock_time_facts, date_facts
from .fact import Fact
from .names import SPACY_LABELS, entity_name, rule_names, spacy_names
from .parsing import detokenize_numbers, number_facts

if TYPE_CHECKING:
    from .syntax import Parsed

__all__ = ["extract_facts"]


def extract_facts(text: str, *, nlp: Any = None, parsed: Parsed | None = None) -> list[Fact]:
    """The checkable facts of ``text``, in order of appearance (negation is checked separately).

    Names come from the named entities of ``parsed`` (the text's parse, see
    `pytest_llmeval.facts.syntax`), else from a loaded spaCy pipeline ``nlp``, else
    from capitalisation.
    """
    text = detokenize_numbers(text)
    facts: list[Fact] = []
    dates = list(date_facts(text))
    times = list(clock_time_facts(text))
    # Spans taken by dates and times, merged and sorted, so a number inside one is found by bisection.
    spans: list[list[int]] = []
    for start, end in sorted((f.start, f.start + len(f.text)) for f in (*dates, *times)):
        if spans and start <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], end)
        else:
            spans.append([start, end])
    starts = [span[0] for span in spans]

    def inside_date(start: int, end: int) -> bool:
        """Whether ``text[start:end]`` overlaps a date or time (the "20" and "-20" of "10:0-20:0")."""
        index = bisect.bisect_left(starts, end) - 1
        return index >= 0 and start < spans[index][1]

    facts.extend(dates)
    facts.extend(times)
    for fact in number_facts(text):
        if inside_date(fact.start, fact.start + len(fact.text)):
            continue
        facts.append(fact)
    if parsed is not None and len(parsed.text) == len(text):
        names: Iterable[Fact] = _parsed_names(parsed)
    else:
        names = spacy_names(text, nlp) if nlp is not None else rule_names(text)
    for fact in names:
        if inside_date(fact.start, fact.start + len(fact.text)):
            continue
        if all(k in MONTHS for k in fact.value):
            continue
        facts.append(fact)
    facts.sort(key=lambda f: f.start)
    return facts


def _parsed_names(parsed: Parsed) -> Iterable[Fact]:
    """Names from a parse's named entities (as `spacy_names()` reads a spaCy doc);
    an entity none of whose words is a proper noun is a capitalised common word ("Fiction", "Stared"), not a name,
    unless it is a nationality or group ("Chilean")."""
    proper = {token[0] for token in parsed.tokens if token[3] == "PROPN"}
    for start, end, label in parsed.ents:
        if label not in SPACY_LABELS:
            continue
        if label != "NORP" and not any(start <= offset < end for offset in proper):
            continue
        if not any(char.isupper() for char in parsed.text[start:end]):
            continue  # "grammarians", "the state labor department": written in lower case, not a name
        fact = entity_name(parsed.text[start:end], start)
        if fact is not None:
            yield fact
    from .syntax import proper_runs

    yield from proper_runs(parsed, MONTHS)
