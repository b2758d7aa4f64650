"""Claims about one field of a record: a sentence that one field states whole (confirmed), and a number that is the
record's for another key (`pytest_llmeval.facts.records` reads the record; `pytest_llmeval.facts.grounding` asks
these).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .names import FUNCTION_WORDS
from .records import (
    BARE_NUMBER,
    SENTENCE_TOKEN,
    Record,
    describe,
    key_stems,
    leaf_text,
    loose_stem,
    path_stems,
    read_record,  # noqa: F401 - the doctests below read records
    segments,
    sentence_stems,
    split_key,
)

from .fact import states_value

if TYPE_CHECKING:
    from .parsing import Fact

__all__ = ["key_words", "confirming_field", "mismatched_field", "FRAMING_WORDS"]


def key_words(record: Record) -> set[str]:
    """The words of every key of ``record`` (split: ``OutdoorSeating`` gives ``Outdoor`` and ``Seating``), lower
    case."""
    return {
        w.casefold()
        for path in (*(p for p, _ in record.fields), *record.nulls)
        for part in segments(path)
        for w in split_key(part)
    }


#: Words of a claim about a record field that the record need not hold: what the record is of ("the shop"), a verb
#: of price or state ("costs"); at most this many.
FRAMING_WORDS = 1


def confirming_field(record: Record, sentence: str, facts: Sequence[Fact]) -> str | None:
    """The field of ``record`` that states the whole of ``sentence``, described (``hours.Sunday is 'closed'``), or
    ``None``: every word of the sentence the record holds is in that field's key path or value, the sentence names
    its key and states its value (in words, or as a number, a time or a date of ``facts`` that the value gives), and
    at most `FRAMING_WORDS` content word of the sentence is nowhere in the record ("The *shop* is closed on Sundays"
    against ``{"hours": {"Sunday": "closed"}}``; "A paperback *costs* $8.50" against ``{"prices": {"paperback":
    8.5}}``).

    >>> record = read_record({"hours": {"Monday": "9:00-17:00", "Sunday": "closed"}})
    >>> confirming_field(record, "The shop is closed on Sundays.", [])
    "hours.Sunday is 'closed'"
    >>> confirming_field(record, "The shop is closed on Sundays and public holidays.", []) is None
    True
    """
    from .extract import FactIndex

    words = {
        loose_stem(t.casefold())
        for t in SENTENCE_TOKEN.findall(sentence)
        if t.casefold() not in FUNCTION_WORDS and not t[:1].isdigit()
    }
    if not words:
        return None
    known: set[str] = set()
    named: set[str] = set()  # what the record is of: the words of its top-level text fields ("Page Turner Books")
    fields = []
    for path, value in record.fields:
        key = path_stems(path)
        said = {loose_stem(t.casefold()) for t in SENTENCE_TOKEN.findall(leaf_text(value)) if not t[:1].isdigit()}
        known |= key | said
        if "." not in path and "[" not in path and isinstance(value, str):
            named |= said
        fields.append((path, value, key, said))
    if len(words - known) > FRAMING_WORDS:
        return None
    stated = [fact for fact in facts if fact.kind != "name"]  # names are the record's words, read above
    for path, value, key, said in fields:
        if not words & key or not (words & known) - named <= key | said:
            continue
        index = FactIndex(leaf_text(value)) if stated else None
        if index is not None and not all(index.supports(fact) for fact in stated):
            continue
        if not (words & said) and not stated:
            continue  # names the key, says nothing of its value
        return describe(path, value)
    return None


def mismatched_field(record: Record, sentence: str, fact: Fact) -> str | None:
    """The field of ``record`` whose number ``sentence`` misstates with ``fact``, described, or ``None``: the sentence
    names exactly one field holding a bare number (every content word of its last key), states exactly one number,
    and that number is not the field's (to the precision the sentence gives).

    >>> from .parsing import number_facts
    >>> record = read_record({"prices": {"paperback": 8.5, "audiobook": 12.99}})
    >>> [mismatched_field(record, "A paperback costs 12.99.", f) for f in number_facts("A paperback costs 12.99.")]
    ['prices.paperback is 8.5']
    """
    from .parsing import number_facts

    if len([f for f in number_facts(sentence) if f.kind in ("number", "money")]) != 1:
        return None
    stems = sentence_stems(sentence)
    named = []
    for path, value in record.fields:
        if isinstance(value, bool) or not BARE_NUMBER.fullmatch(leaf_text(value).strip()):
            continue
        words = key_stems(path)
        if words and all(word in stems for word in words):
            named.append((path, value))
    if len(named) != 1:
        return None
    path, value = named[0]
    return None if states_value(fact, float(leaf_text(value).replace(",", ""))) else describe(path, value)
