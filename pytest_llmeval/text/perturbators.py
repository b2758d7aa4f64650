"""Seeded, reproducible perturbations of an input, for robustness tests.

Each perturbator is a function of the text, a random generator and its own
parameters. The generator is seeded from the seed, the perturbator's name and the
text (``random.Random`` seeded with a string uses SHA-512 of it), so the same seed
gives the same perturbed text on every machine and Python version, and two
different inputs are not perturbed in lockstep.

>>> perturb("What was the revenue in Brazil?", "uppercase")
'WHAT WAS THE REVENUE IN BRAZIL?'
>>> perturb("attack", "rot13")
'nggnpx'
>>> perturb("What was the revenue?", "typos", seed=1729) == perturb("What was the revenue?", "typos", seed=1729)
True

Perturbators: ``typos`` (keyboard-adjacent keys, ``rate``), ``char_swap``,
``char_delete`` (``rate``), ``uppercase``, ``lowercase``, ``titlecase``,
``whitespace`` (extra spaces and line breaks, ``rate``), ``punctuation`` (drops and
adds punctuation, ``rate``), ``word_swap`` (swaps ``n`` adjacent word pairs),
``ocr`` (OCR confusions such as rn/m, 0/O, 1/l, ``rate``), ``synonym`` and ``antonym``
(from a built-in list, ``n`` words), ``base16``, ``base64``, ``rot13`` (for the
encoding guardrail), ``copy`` (the text unchanged: duplicates for
self-consistency) and ``paraphrase`` (asks the judge; see `paraphrase()`).
"""

from __future__ import annotations

import base64
import codecs
import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from ..core.errors import CheckUnavailable

__all__ = [
    "Perturbation",
    "PERTURBATORS",
    "perturb",
    "perturbation",
    "parse_perturbations",
    "paraphrase",
    "SYNONYMS",
    "ANTONYMS",
]


_ROWS = ("`1234567890-=", "qwertyuiop[]\\", "asdfghjkl;'", "zxcvbnm,./")


_POSITION = {ch: (r, c) for r, row in enumerate(_ROWS) for c, ch in enumerate(row)}


def _neighbours(ch: str) -> str:
    lower = ch.lower()
    if lower not in _POSITION:
        return ""
    r, c = _POSITION[lower]
    near = []
    for dr, dc in ((0, -1), (0, 1), (-1, 0), (-1, 1), (1, -1), (1, 0)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < len(_ROWS) and 0 <= cc < len(_ROWS[rr]) and _ROWS[rr][cc].isalnum():
            near.append(_ROWS[rr][cc])
    text = "".join(near)
    return text.upper() if ch.isupper() else text


def _rate(params: Mapping[str, Any], default: float) -> float:
    rate = params.get("rate", default)
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 1:
        raise ValueError(f"perturbation parameter 'rate' must be a number between 0 and 1; got {rate!r}")
    return float(rate)


def _count(params: Mapping[str, Any], default: int) -> int:
    n = params.get("n", default)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"perturbation parameter 'n' must be a positive integer; got {n!r}")
    return n


def _letters(text: str) -> list[int]:
    return [i for i, ch in enumerate(text) if ch.isalpha()]


def _pick(rng: random.Random, positions: Sequence[int], rate: float) -> list[int]:
    """About ``rate`` of ``positions`` (at least one when rate > 0), in order."""
    if not positions or rate <= 0:
        return []
    k = max(1, round(len(positions) * rate))
    return sorted(rng.sample(list(positions), min(k, len(positions))))


def typos(text: str, rng: random.Random, **params: Any) -> str:
    chars = list(text)
    for i in _pick(rng, [i for i in _letters(text) if _neighbours(text[i])], _rate(params, 0.05)):
        chars[i] = rng.choice(_neighbours(text[i]))
    return "".join(chars)


def char_swap(text: str, rng: random.Random, **params: Any) -> str:
    chars = list(text)
    pairs = [i for i in range(len(text) - 1) if text[i].isalpha() and text[i + 1].isalpha() and text[i] != text[i + 1]]
    for i in _pick(rng, pairs, _rate(params, 0.05)):
        chars[i], chars[i + 1] = chars[i + 1], chars[i]
    return "".join(chars)


def char_delete(text: str, rng: random.Random, **params: Any) -> str:
    drop = set(_pick(rng, _letters(text), _rate(params, 0.05)))
    return "".join(ch for i, ch in enumerate(text) if i not in drop)


def whitespace(text: str, rng: random.Random, **params: Any) -> str:
    gaps = [m.start() for m in re.finditer(r" ", text)]
    chosen = set(_pick(rng, gaps, _rate(params, 0.2)))
    return "".join((rng.choice(["   ", "\n", " \t "]) if i in chosen else ch) for i, ch in enumerate(text))


def punctuation(text: str, rng: random.Random, **params: Any) -> str:
    rate = _rate(params, 0.2)
    marks = [i for i, ch in enumerate(text) if ch in ",.;:!?"]
    drop = set(_pick(rng, marks, rate))
    words = [m.end() for m in re.finditer(r"\w+", text)]
    add = set(_pick(rng, words, rate / 2))
    out = []
    for i, ch in enumerate(text):
        if i in add:
            out.append(rng.choice(",;!.-"))
        if i not in drop:
            out.append(ch)
    if len(text) in add:
        out.append(rng.choice(",;!.-"))
    return "".join(out)


def word_swap(text: str, rng: random.Random, **params: Any) -> str:
    words = text.split(" ")
    if len(words) < 2:
        return text
    pairs = list(range(len(words) - 1))
    for i in sorted(rng.sample(pairs, min(_count(params, 1), len(pairs)))):
        words[i], words[i + 1] = words[i + 1], words[i]
    return " ".join(words)


_OCR = {
    "m": "rn",
    "rn": "m",
    "0": "O",
    "O": "0",
    "o": "0",
    "1": "l",
    "l": "1",
    "I": "l",
    "5": "S",
    "S": "5",
    "8": "B",
    "B": "8",
    "d": "cl",
    "cl": "d",
    "w": "vv",
    "vv": "w",
    "e": "c",
    "h": "b",
    "g": "q",
}


_OCR_PATTERN = re.compile("|".join(sorted(map(re.escape, _OCR), key=len, reverse=True)))


def ocr(text: str, rng: random.Random, **params: Any) -> str:
    found = list(_OCR_PATTERN.finditer(text))
    chosen = {m.start() for m in (found[i] for i in _pick(rng, range(len(found)), _rate(params, 0.1)))}
    return _OCR_PATTERN.sub(lambda m: _OCR[m.group()] if m.start() in chosen else m.group(), text)


_SYNONYM_GROUPS = [
    ("big", "large", "huge"),
    ("small", "little", "tiny"),
    ("fast", "quick", "rapid"),
    ("begin", "start", "commence"),
    ("end", "finish", "conclude"),
    ("buy", "purchase", "acquire"),
    ("help", "assist", "aid"),
    ("show", "display", "present"),
    ("answer", "reply", "response"),
    ("question", "query", "inquiry"),
    ("revenue", "income", "turnover"),
    ("company", "firm", "business"),
    ("car", "automobile", "vehicle"),
    ("house", "home", "residence"),
    ("happy", "glad", "pleased"),
    ("sad", "unhappy", "sorrowful"),
    ("smart", "clever", "intelligent"),
    ("easy", "simple", "effortless"),
    ("hard", "difficult", "tough"),
    ("rich", "wealthy", "affluent"),
    ("use", "utilize", "employ"),
    ("get", "obtain", "receive"),
    ("give", "provide", "supply"),
    ("make", "create", "produce"),
    ("find", "locate", "discover"),
    ("tell", "inform", "notify"),
    ("ask", "request", "enquire"),
    ("need", "require", "want"),
    ("important", "significant", "crucial"),
    ("correct", "right", "accurate"),
    ("wrong", "incorrect", "mistaken"),
    ("price", "cost", "charge"),
    ("mistake", "error", "fault"),
    ("country", "nation", "state"),
    ("city", "town", "municipality"),
    ("job", "work", "occupation"),
    ("money", "funds", "cash"),
    ("near", "close", "nearby"),
    ("often", "frequently", "regularly"),
    ("maybe", "perhaps", "possibly"),
    ("total", "sum", "aggregate"),
    ("increase", "rise", "growth"),
    ("decrease", "decline", "drop"),
    ("explain", "describe", "clarify"),
    ("choose", "select", "pick"),
    ("allow", "permit", "let"),
    ("stop", "halt", "cease"),
    ("old", "aged", "elderly"),
    ("new", "novel", "fresh"),
    ("capital", "seat of government", "capital city"),
]


_ANTONYM_PAIRS = [
    ("big", "small"),
    ("large", "small"),
    ("fast", "slow"),
    ("begin", "end"),
    ("start", "finish"),
    ("buy", "sell"),
    ("happy", "sad"),
    ("easy", "hard"),
    ("rich", "poor"),
    ("correct", "incorrect"),
    ("right", "wrong"),
    ("true", "false"),
    ("increase", "decrease"),
    ("rise", "fall"),
    ("up", "down"),
    ("high", "low"),
    ("hot", "cold"),
    ("old", "new"),
    ("open", "closed"),
    ("before", "after"),
    ("more", "less"),
    ("most", "least"),
    ("always", "never"),
    ("all", "none"),
    ("include", "exclude"),
    ("accept", "reject"),
    ("allow", "forbid"),
    ("win", "lose"),
    ("profit", "loss"),
    ("first", "last"),
    ("early", "late"),
    ("strong", "weak"),
    ("safe", "dangerous"),
    ("legal", "illegal"),
    ("possible", "impossible"),
    ("above", "below"),
    ("inside", "outside"),
    ("north", "south"),
    ("east", "west"),
    ("good", "bad"),
    ("best", "worst"),
    ("positive", "negative"),
    ("maximum", "minimum"),
    ("add", "remove"),
    ("yes", "no"),
    ("with", "without"),
    ("can", "cannot"),
]


SYNONYMS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {word: tuple(w for w in group if w != word) for group in _SYNONYM_GROUPS for word in group}
)


ANTONYMS: Mapping[str, str] = MappingProxyType({**dict(_ANTONYM_PAIRS), **{b: a for a, b in _ANTONYM_PAIRS}})


_WORD = re.compile(r"[A-Za-z]+")


def _match_case(word: str, like: str) -> str:
    if like.isupper() and len(like) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def _swap_words(text: str, rng: random.Random, table: Callable[[str], str | None], n: int) -> str:
    found = [m for m in _WORD.finditer(text) if table(m.group().lower())]
    chosen = {m.start() for m in rng.sample(found, min(n, len(found)))}
    return _WORD.sub(
        lambda m: _match_case(table(m.group().lower()) or m.group(), m.group()) if m.start() in chosen else m.group(),
        text,
    )


def synonym(text: str, rng: random.Random, **params: Any) -> str:
    n = _count(params, 1)
    return _swap_words(text, rng, lambda w: rng.choice(SYNONYMS[w]) if w in SYNONYMS else None, n)


def antonym(text: str, rng: random.Random, **params: Any) -> str:
    return _swap_words(text, rng, ANTONYMS.get, _count(params, 1))


def _unparameterised(function: Callable[[str], str]) -> Callable[..., str]:
    def perturbator(text: str, rng: random.Random, **params: Any) -> str:
        if params:
            raise ValueError(f"this perturbation takes no parameters; got {', '.join(sorted(params))}")
        return function(text)

    return perturbator


PERTURBATORS: Mapping[str, Callable[..., str]] = MappingProxyType(
    {
        "typos": typos,
        "char_swap": char_swap,
        "char_delete": char_delete,
        "uppercase": _unparameterised(str.upper),
        "lowercase": _unparameterised(str.lower),
        "titlecase": _unparameterised(str.title),
        "whitespace": whitespace,
        "punctuation": punctuation,
        "word_swap": word_swap,
        "ocr": ocr,
        "synonym": synonym,
        "antonym": antonym,
        "base16": _unparameterised(lambda t: base64.b16encode(t.encode("utf-8")).decode("ascii")),
        "base64": _unparameterised(lambda t: base64.b64encode(t.encode("utf-8")).decode("ascii")),
        "rot13": _unparameterised(lambda t: codecs.encode(t, "rot13")),
        "copy": _unparameterised(lambda t: t),
    }
)


@dataclass(frozen=True)
class Perturbation:
    """A named perturbation with its parameters; ``id`` is how it shows in test ids and reports."""

    name: str
    params: Mapping[str, Any] = field(default_factory=dict)
    label: str | None = None

    def __post_init__(self) -> None:
        if self.name not in PERTURBATORS and self.name != "paraphrase":
            known = ", ".join(sorted([*PERTURBATORS, "paraphrase"]))
            raise ValueError(f"unknown perturbation {self.name!r}; known perturbations: {known}")
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))
        if self.name == "copy":
            if set(self.params) - {"n"}:
                raise ValueError(f"copy takes only n (the number of duplicates); got {', '.join(sorted(self.params))}")
        elif self.name == "paraphrase":
            if self.params:
                raise ValueError(f"perturb 'paraphrase' takes no parameters; got {', '.join(sorted(self.params))}")
        else:
            perturb("Check the parameters.", self.name, **self.params)  # bad parameters fail here, at collection

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted((k, repr(v)) for k, v in self.params.items())), self.label))

    @property
    def id(self) -> str:
        if self.label:
            return self.label
        if not self.params:
            return self.name
        return self.name + "(" + ",".join(f"{k}={v}" for k, v in sorted(self.params.items())) + ")"

    def apply(self, text: str, seed: int = 0, judge: Any = None) -> str:
        return perturb(text, self.name, seed=seed, judge=judge, **self.params)


def perturbation(name: str, *, label: str | None = None, **params: Any) -> Perturbation:
    """A perturbation with parameters, for the marker: ``perturbation("typos", rate=0.1)``."""
    return Perturbation(name, params, label)


def parse_perturbations(items: Sequence[Any], *, where: str = "llmeval_perturb") -> list[Perturbation]:
    """Strings and `Perturbation` objects as perturbations; a clear error names a bad one."""
    out: list[Perturbation] = []
    for item in items:
        if isinstance(item, Perturbation) and item.name == "copy" and "n" in item.params:
            n = item.params["n"]
            if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 100:
                raise ValueError(f"{where}: copy takes n, the number of duplicates, 1 to 100; got {n!r}")
            out.extend(Perturbation("copy", label=f"copy{i}") for i in range(1, n + 1))
        elif isinstance(item, Perturbation):
            out.append(item)
        elif isinstance(item, str):
            try:
                out.append(Perturbation(item))
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None
        else:
            raise TypeError(f"{where}: a perturbation must be a name or perturbation(name, **params); got {item!r:.60}")
    ids = [p.id for p in out]
    if len(set(ids)) != len(ids) or "original" in ids:
        raise ValueError(f"{where}: perturbation ids must be unique and not 'original'; got {ids} (use label=...)")
    return out


def perturb(text: str, name: str, *, seed: int = 0, judge: Any = None, **params: Any) -> str:
    """``text`` perturbed by ``name`` with ``params``; the same seed gives the same text everywhere."""
    if not isinstance(text, str):
        raise TypeError(f"perturb: argument 'text' must be a str, got {type(text).__name__}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"perturb: argument 'seed' must be an int, got {seed!r}")
    if name == "paraphrase":
        return paraphrase(text, judge=judge, seed=seed, **params)
    function = PERTURBATORS.get(name)
    if function is None:
        known = ", ".join(sorted([*PERTURBATORS, "paraphrase"]))
        raise ValueError(f"perturb: unknown perturbation {name!r}; known perturbations: {known}")
    rng = random.Random(f"{seed}\x1f{name}\x1f{text}")
    try:
        return function(text, rng, **params)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"perturb {name!r}: {exc}") from None


_PARAPHRASE = """Paraphrase the text below: keep its meaning, its facts and its language; change the wording.
Reply with JSON only: {{"paraphrase": "..."}}.

Text: {text}
"""


def paraphrase(text: str, *, judge: Any = None, seed: int = 0, **params: Any) -> str:
    """A paraphrase written by the session's judge (recorded and replayed like any verdict).

    ``judge`` is a `JudgeRunner` (inside a test,
    ``pytest_llmeval.perturb`` and the ``llmeval_perturb`` fixture pass the session's). Without a judge this raises
    `CheckUnavailable`, which the fixture turns into a skip.
    """
    if params:
        raise ValueError(f"perturb 'paraphrase' takes no parameters; got {', '.join(sorted(params))}")
    if judge is None:
        raise CheckUnavailable(
            "llmeval judge unavailable: the paraphrase perturbation needs a judge (set --llmeval-judge-model)"
        )
    schema = {
        "type": "object",
        "properties": {"paraphrase": {"type": "string", "minLength": 1}},
        "required": ["paraphrase"],
    }
    value = judge.ask(
        evaluator="perturb.paraphrase",
        version="1",
        template=_PARAPHRASE,
        messages=[{"role": "user", "content": _PARAPHRASE.format(text=text)}],
        schema=schema,
        repeat=seed,
        what="paraphrase perturbation",
    )
    return str(value["paraphrase"])
