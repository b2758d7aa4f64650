"""Syllables of an English word by spelling rules: the text statistics' fallback for words cmudict lacks."""

from __future__ import annotations

import re
import unicodedata

__all__ = ["guess_syllables"]


_GROUPS = re.compile(r"[aeiouy]+")


_HIATUS = re.compile(
    r"(?<![gq])(?<!ti)(?<!si)(?<!ci)i[aou]|[^aeiouy]ua|uo|[^aeiouy]y[aeiou]|eo(?!u)|[^aeiou][aeiou]ing|ism\b"
)


_SILENT_E = re.compile(r"(?<=[^aeiouy])e(?=(?:ful|ly|less|ness|ment)$)")


def guess_syllables(word: str) -> int:
    """Syllables of an English word by spelling rules (the fallback for words cmudict lacks).

    >>> [guess_syllables(w) for w in ("cat", "table", "jumped", "wanted", "radio")]
    [1, 2, 1, 2, 3]
    """
    w = "".join(ch for ch in unicodedata.normalize("NFKD", word.lower()) if "a" <= ch <= "z")
    if len(w) <= 3:
        return 1
    w = _SILENT_E.sub("", w)
    if w.endswith("es") and not w.endswith(("ses", "xes", "zes", "ches", "shes", "ges", "ces")):
        w = w[:-2]
    elif w.endswith("ed") and not w.endswith(("ted", "ded")):
        w = w[:-2]
    elif (w.endswith("e") and not w.endswith(("le", "ee", "ie", "ye"))) or (w.endswith("le") and w[-3] in "aeiouy"):
        w = w[:-1]
    w = w[1:] if w.startswith("y") else w
    return max(1, len(_GROUPS.findall(w)) + len(_HIATUS.findall(w)))
