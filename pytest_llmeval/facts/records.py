"""Structured records (a business, a product, a person) given as a retrieved context.

A context chunk that is a JSON object or array, or a Python-literal dict or list (the
way an f-string renders a dict: single quotes, ``True``/``False``/``None``), is read
as a `Record`: its leaves by key path, the paths it leaves empty, and one plain
sentence per stated leaf, which the fact layer reads like prose. A dict value written
as a Python-literal string inside a JSON record is read as a nested record.

>>> record = read_record("{'name': 'Blue Door Cafe', 'hours': {'Monday': '10:0-20:0'}, "
...                      "'attributes': {'WiFi': None, 'OutdoorSeating': True}}")
>>> record.sentences
('name: Blue Door Cafe.', 'hours Monday: 10:0-20:0.', 'attributes outdoor seating: yes.')
>>> record.nulls
('attributes.WiFi',)
>>> asserted_nulls(record, "They offer free Wi-Fi.")
['attributes.WiFi']
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..text.basics import excerpt
from .names import FUNCTION_WORDS, fold

__all__ = [
    "field_for",
    "null_sentences",
    "Record",
    "read_record",
    "asserted_nulls",
    "describe",
    "humanize_key",
    "MAX_RECORD_CHARS",
    "BARE_NUMBER",
    "SENTENCE_TOKEN",
    "key_stems",
    "leaf_text",
    "loose_stem",
    "path_stems",
    "segments",
    "sentence_stems",
    "split_key",
]


#: A longer text is not read as a record (parsing it would cost too much); it stays prose.
MAX_RECORD_CHARS = 200_000


#: Containers nested deeper than this are not read (their leaves are left out).
MAX_DEPTH = 24


#: A leaf value: text as written, a number, or a boolean.
Scalar = str | int | float | bool


#: Values that state nothing: the field is there, its value is not given.
_NULL_TEXTS = frozenset({"", "none", "null", "nil", "nan", "n/a"})


#: Key words too generic to tell which field a sentence speaks of ("name", "type", "value").
_GENERIC_KEYS = frozenset(
    """
    name names type types kind value values id key keys text data info item items label title description desc
    details detail note notes other misc field fields entry entries code status attribute attributes property
    properties
    """.split()
)


_FENCE = re.compile(r"\A```[\w-]*\s*\n(.*)\n\s*```\Z", re.DOTALL)


_QUOTED = re.compile(r"\A[uUbBrR]?(['\"]).*\1\Z", re.DOTALL)


SENTENCE_TOKEN = re.compile(r"[^\W_]+")


@dataclass(frozen=True)
class Record:
    """A context read as a record.

    Attributes:
        fields: ``(key path, value)`` for every stated leaf, in the record's order; a key
            path reads ``hours.Monday`` or ``items[2].name``; a list of plain values is
            one leaf, its items joined by ``", "``.
        nulls: The key paths whose value is not given (``None``, ``null``, ``"None"``, an
            empty text, list or dict).
        sentences: One plain sentence per stated leaf (``hours Monday: 10:0-20:0.``), for
            the fact layer to read in place of the record's text.
    """

    fields: tuple[tuple[str, Scalar], ...]
    nulls: tuple[str, ...]
    sentences: tuple[str, ...]

    @property
    def text(self) -> str:
        """The sentences as one text."""
        return " ".join(self.sentences)

    def value(self, path: str) -> Scalar | None:
        """The value of the leaf at ``path``; ``None`` when it is not given or not in the record.

        >>> read_record('{"a": {"b": 2}}').value("a.b")
        2
        """
        for key, value in self.fields:
            if key == path:
                return value
        return None

    def asserted_nulls(self, sentence: str) -> list[str]:
        """The key paths ``sentence`` speaks of that this record leaves empty (see `asserted_nulls()`)."""
        return asserted_nulls(self, sentence)


def read_record(text: object) -> Record | None:
    """``text`` read as a record, or ``None`` when it is not one (prose, a list of plain values, garbage).

    ``text`` is a JSON object or array, or a Python-literal dict or list (read with
    `json.loads()`, then `ast.literal_eval()`, never evaluated), optionally in a
    Markdown code fence; a dict or list is taken as already read. A text over
    `MAX_RECORD_CHARS` characters is not read. Never raises.

    >>> read_record('{"name": "Blue Door Cafe", "open": "True", "stars": 4.5}').sentences
    ('name: Blue Door Cafe.', 'open: yes.', 'stars: 4.5.')
    >>> read_record("[{'sku': 'A1', 'price': None}]").nulls
    ('[0].price',)
    >>> read_record("Paris is the capital of France.") is None
    True
    """
    try:
        data = _load(text) if isinstance(text, str) else text
        if not isinstance(data, (Mapping, list, tuple)) or not _has_mapping(data):
            return None
        fields: list[tuple[str, Scalar]] = []
        nulls: list[str] = []
        for path, value in _leaves(data, "", 0):
            if value is None:
                nulls.append(path)
            else:
                fields.append((path, value))
        if not fields and not nulls:
            return None
        sentences = tuple(_sentence(path, value) for path, value in fields)
        return Record(fields=tuple(fields), nulls=tuple(nulls), sentences=tuple(s for s in sentences if s))
    except Exception:  # noqa: BLE001 - arbitrary model or user text: not a record, never an error
        return None


def _load(text: str) -> Any:
    """The container ``text`` writes, or ``None``."""
    if len(text) > MAX_RECORD_CHARS:
        return None
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    if not (body[:1] == "{" and body[-1:] == "}") and not (body[:1] == "[" and body[-1:] == "]"):
        return None
    return _literal(body)


def _literal(body: str) -> Any:
    """``body`` read as JSON, else as a Python literal; ``None`` when it is neither."""
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(body)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None


def _has_mapping(data: Any, depth: int = 0) -> bool:
    """Whether a dict is among ``data``'s items (a record has keys; a list of plain values is no record)."""
    if isinstance(data, Mapping):
        return True
    if isinstance(data, (list, tuple)) and depth < MAX_DEPTH:
        return any(_has_mapping(_inner(item), depth + 1) for item in data)
    return False


def _inner(value: Any) -> Any:
    """``value``, with a text that writes a container or a quoted text (``"{'a': 1}"``, ``"u'free'"``) read."""
    if not isinstance(value, str):
        return value
    body = value.strip()
    if (body[:1] == "{" and body[-1:] == "}") or (body[:1] == "[" and body[-1:] == "]"):
        read = _literal(body) if len(body) <= MAX_RECORD_CHARS else None
        if isinstance(read, (Mapping, list, tuple)):
            return read
    elif len(body) >= 2 and _QUOTED.match(body):
        try:
            read = ast.literal_eval(body)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return value
        if isinstance(read, str):
            return read
    return value


def _scalar(value: Any) -> Scalar | None:
    """A leaf's value, or ``None`` when it states nothing; ``"True"``/``"false"`` are booleans."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return None if value != value else value  # NaN states nothing
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8", "replace")
    text = " ".join(str(value).split())
    if text.casefold() in _NULL_TEXTS:
        return None
    if text.casefold() in ("true", "false"):
        return text.casefold() == "true"
    return text


def _join(path: str, key: object) -> str:
    name = str(key)
    return f"{path}.{name}" if path else name


def _leaves(data: Any, path: str, depth: int) -> Iterator[tuple[str, Scalar | None]]:
    """``(key path, value)`` for each leaf of ``data``; ``None`` for a leaf that is not given."""
    data = _inner(data)
    if depth > MAX_DEPTH:
        return
    if isinstance(data, Mapping):
        if not data and path:
            yield path, None
        for key, value in data.items():
            yield from _leaves(value, _join(path, key), depth + 1)
    elif isinstance(data, (list, tuple, set, frozenset)):
        items = [_inner(item) for item in (sorted(data, key=str) if isinstance(data, (set, frozenset)) else data)]
        if all(not isinstance(item, (Mapping, list, tuple, set, frozenset)) for item in items):
            stated = [leaf_text(s) for s in map(_scalar, items) if s is not None]
            if path:
                yield path, ", ".join(stated) if stated else None
            return
        for index, item in enumerate(items):
            yield from _leaves(item, f"{path}[{index}]", depth + 1)
    elif path:
        yield path, _scalar(data)


def leaf_text(value: Scalar) -> str:
    """A leaf's value as a sentence writes it: booleans as yes/no, the rest as written."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def split_key(key: str) -> list[str]:
    """The words of one key as written: snake_case, kebab-case, camelCase and digits split apart."""
    words: list[str] = []
    for chunk in re.split(r"[\W_]+", key):
        current = ""
        for index, char in enumerate(chunk):
            previous = chunk[index - 1] if index else ""
            following = chunk[index + 1] if index + 1 < len(chunk) else ""
            boundary = current and (
                (char.isdigit() != previous.isdigit())
                or (char.isupper() and previous.islower())
                or (char.isupper() and previous.isupper() and following.islower())  # "BYOBCorkage"
            )
            if boundary:
                words.append(current)
                current = ""
            current += char
        if current:
            words.append(current)
    merged: list[str] = []
    for word in words:  # short capitalised pieces are one word: "WiFi"
        if merged and len(word) <= 2 and word.istitle() and len(merged[-1]) <= 2 and merged[-1].istitle():
            merged[-1] += word
        else:
            merged.append(word)
    if len(merged) > 1 and merged[-1].isdigit() and not merged[-2].isdigit():
        merged.pop()  # a numbered key: "RestaurantsPriceRange2"
    return merged


def humanize_key(key: str) -> str:
    """One key in plain words: camelCase, snake_case and digits split, a trailing number dropped.

    A one-word key keeps its case (``Monday``); the words of a longer one are lower-cased,
    acronyms aside.

    >>> humanize_key("RestaurantsPriceRange2"), humanize_key("OutdoorSeating"), humanize_key("WiFi")
    ('restaurants price range', 'outdoor seating', 'WiFi')
    >>> humanize_key("BYOBCorkage"), humanize_key("good_for_kids"), humanize_key("Monday")
    ('BYOB corkage', 'good for kids', 'Monday')
    """
    words = split_key(key)
    if len(words) == 1:
        return words[0]
    return " ".join(word if len(word) > 1 and word.isupper() else word.lower() for word in words)


def segments(path: str) -> list[str]:
    """The keys of a key path, list indexes left out: ``items[2].name`` -> ``['items', 'name']``."""
    return [part for part in re.split(r"\.|\[\d+\]", path) if part]


#: A number alone, as a record's value gives it.
BARE_NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?")


def _unit_of(subject: str) -> str | None:
    """The unit a key names at its end (``course time limit hours``: ``hours``; ``weight g``: ``g``), if any."""
    from .units import CURRENCY_WORDS, UNITS

    words = subject.split()
    last = words[-1].casefold() if words else ""
    # Units of four letters or more ("hours", "grams", "euros"), or the unambiguous short ones: "min" may be a minimum.
    known = (last in UNITS or last in CURRENCY_WORDS) and (len(last) >= 4 or last in _SHORT_UNITS)
    return words[-1] if known else None


#: Short unit words a key may end with that mean the unit and nothing else.
_SHORT_UNITS = frozenset(
    {
        "km",
        "cm",
        "mm",
        "kg",
        "ml",
        "mph",
        "kmh",
        "usd",
        "eur",
        "gbp",
        "jpy",
        "inr",
        "chf",
        "gb",
        "mb",
        "tb",
        "ghz",
        "mhz",
        "kw",
        "hrs",
        "lbs",
        "pct",
    }
)


def _sentence(path: str, value: Scalar) -> str:
    subject = " ".join(filter(None, (humanize_key(part) for part in segments(path))))
    written = leaf_text(value)
    if not subject or not written:
        return ""
    unit = _unit_of(subject) if not isinstance(value, bool) and BARE_NUMBER.fullmatch(written) else None
    if unit is not None:
        written = f"{written} {unit}"  # "battery hours: 40 hours": the key's unit is the number's
    return f"{subject}: {written}" + ("" if written[-1] in ".!?" else ".")


def loose_stem(word: str) -> str:
    """A loose stem: folded, plural, ``-ing`` and ``-ed`` endings and a final ``e`` dropped (``seating`` = ``seats``).

    >>> [loose_stem(w) for w in ("seating", "seats", "prices", "price", "categories", "category", "allowed")]
    ['seat', 'seat', 'pric', 'pric', 'category', 'category', 'allow']
    """
    stem = fold(word)
    for _ in range(2):
        if len(stem) > 4 and stem.endswith("ies"):
            stem = stem[:-3] + "y"
        elif stem.endswith(("ss", "us", "is")):
            break
        elif len(stem) > 5 and stem.endswith("ing"):
            stem = stem[:-3]
        elif len(stem) > 4 and stem.endswith("ed"):
            stem = stem[:-2]
        elif len(stem) > 3 and stem.endswith("s"):
            stem = stem[:-1]
        else:
            break
    return stem[:-1] if len(stem) > 3 and stem.endswith("e") else stem


def path_stems(path: str) -> set[str]:
    """The loose stems of every word of every key of ``path`` (``hours.Sunday``: ``hour``, ``sunday``)."""
    return {loose_stem(w.casefold()) for part in segments(path) for w in split_key(part)}


def key_stems(path: str) -> list[str]:
    """The content words of the last key of ``path``, stemmed; none for a generic key (``name``, ``type``)."""
    keys = segments(path)
    if not keys or re.search(r"\[\d+\]\Z", path):
        return []
    words = [w.casefold() for w in split_key(keys[-1])]
    content = [w for w in words if w not in FUNCTION_WORDS and (len(w) > 1 or w.isdigit())]
    if not content or all(w in _GENERIC_KEYS for w in content):
        return []
    return [loose_stem(w) for w in content]


def _prefixes(record: Record) -> set[str]:
    """The first words that two keys or more of ``record`` share ahead of other words (``Restaurants`` in
    ``RestaurantsTakeOut`` and ``RestaurantsDelivery``): a namespace, not what the key is about."""
    seen: set[str] = set()
    shared: set[str] = set()
    for path in {path for path, _ in record.fields} | set(record.nulls):
        words = key_stems(path)
        if len(words) >= 2:
            (shared if words[0] in seen else seen).add(words[0])
    return shared


def sentence_stems(sentence: str) -> set[str]:
    """The stems of the words of ``sentence``, and of each two and three words run together (``Wi-Fi`` = ``wifi``)."""
    tokens = [t.casefold() for t in SENTENCE_TOKEN.findall(sentence)]
    stems = {loose_stem(t) for t in tokens}
    for size in (2, 3):
        stems.update(loose_stem("".join(tokens[i : i + size])) for i in range(len(tokens) - size + 1))
    return stems


def asserted_nulls(record: Record, sentence: str) -> list[str]:
    """The key paths of ``record`` left empty whose key ``sentence`` speaks of.

    A key is spoken of when each content word of its last key (split, stemmed loosely:
    ``OutdoorSeating`` ~ "outdoor seats", ``WiFi`` ~ "Wi-Fi") is in the sentence; a key of
    three words or more may go without its first (``RestaurantsPriceRange2`` ~ "price
    range"), and so may one of two whose first word starts another key of the record too
    (``RestaurantsDelivery`` beside ``RestaurantsTakeOut``). A key of only generic words
    (``name``, ``type``, ``value``) speaks of nothing.

    >>> record = read_record({"attributes": {"WiFi": "None", "RestaurantsPriceRange2": None, "type": None}})
    >>> asserted_nulls(record, "Prices are in the mid price range and there is wifi.")
    ['attributes.WiFi', 'attributes.RestaurantsPriceRange2']
    >>> asserted_nulls(record, "It is a cafe of some type.")
    []
    """
    if not record.nulls or not isinstance(sentence, str):
        return []
    stems = sentence_stems(sentence)
    prefixes = _prefixes(record)
    found = []
    for path in record.nulls:
        words = key_stems(path)
        if not words:
            continue
        needed = words[1:] if len(words) >= 3 or (len(words) == 2 and words[0] in prefixes) else words
        if all(word in stems for word in needed):
            found.append(path)
    return found


def describe(path: str, value: object) -> str:
    """A message fragment naming the key and what the record gives for it.

    >>> describe("hours.Monday", "10:0-20:0"), describe("attributes.WiFi", None)
    ("hours.Monday is '10:0-20:0'", 'attributes.WiFi is None')
    """
    shown = repr(value) if isinstance(value, str) else str(value)
    return f"{path} is {excerpt(shown, 80)}"


def field_for(
    record: Record, sentence: str, matches: Callable[[str], bool], near: int = 0
) -> tuple[str, Scalar] | None:
    """The field of ``record`` that ``sentence`` speaks of (the most words of its key's path in the sentence; among
    those, the one whose key word stands nearest to offset ``near``, where the value in question is) among those whose
    value ``matches`` (holds a time, a number ...), or ``None`` when the sentence names no such key.

    >>> record = read_record({"hours": {"Monday": "10:0-20:0", "Sunday": "12:0-16:0"}, "stars": 4.5})
    >>> field_for(record, "On Sunday it opens at 9 am.", lambda value: ":" in value)
    ('hours.Sunday', '12:0-16:0')
    >>> text = "It opens at 10 am on Monday and at 9 am on Sunday."
    >>> field_for(record, text, lambda value: ":" in value, near=text.index("9 am"))
    ('hours.Sunday', '12:0-16:0')
    """
    stems = sentence_stems(sentence)
    where: dict[str, list[int]] = {}
    for match in SENTENCE_TOKEN.finditer(sentence):
        where.setdefault(loose_stem(match.group(0).casefold()), []).append(match.start())
    best: tuple[tuple[int, int], str, Scalar] | None = None
    for path, value in record.fields:
        if isinstance(value, bool) or not matches(str(value)):
            continue
        words = path_stems(path)
        shared = len(words & stems)
        if not shared:
            continue
        distance = min((abs(offset - near) for word in words for offset in where.get(word, ())), default=len(sentence))
        rank = (shared, -distance)
        if best is None or rank > best[0]:
            best = (rank, path, value)
    return None if best is None else (best[1], best[2])


def null_sentences(record: Record) -> tuple[str, ...]:
    """One sentence per field the record leaves empty (``attributes WiFi: unknown.``): the key is named in the
    context, its value is not.

    >>> null_sentences(read_record({"attributes": {"WiFi": None}}))
    ('attributes WiFi: unknown.',)
    """
    return tuple(s for s in (_sentence(path, "unknown") for path in record.nulls) if s)
