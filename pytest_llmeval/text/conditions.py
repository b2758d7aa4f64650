"""The boolean condition language of the text-matching evaluator.

A condition combines quoted strings (substring search) and ``regexp("...")``
patterns (`re.search()`) with ``AND``, ``OR``, ``NOT`` and parentheses::

    ("Rio" OR "rio") AND regexp("15,?969 [Mm]il") AND NOT "Real"

Precedence from loosest to tightest: ``OR``, ``AND``, ``NOT``. Keywords are
case-insensitive. Strings take double or single quotes; inside them ``\\"`` (or
``\\'``) is a quote and ``\\\\`` a backslash, and every other backslash is kept,
so ``regexp("\\d{3}")`` is the regular expression ``\\d{3}``.

It is a real recursive-descent parser (never ``eval``); a syntax error or an
invalid regular expression raises `ConditionSyntaxError` pointing at the
position.

>>> cond = parse_condition('"15,969" AND NOT "Real"')
>>> cond.matches("Brazil revenue was 15,969 million")
True
>>> cond.matches("Real revenue was 15,969")
False
>>> cond.explain("Real revenue was 15,969")
['found forbidden "Real" at 0: \\'Real revenue was 15,969\\'']
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["Condition", "ConditionSyntaxError", "parse_condition", "compile_user_regex", "search_user_regex"]


_EXCERPT = 30


class ConditionSyntaxError(ValueError):
    """A condition that does not parse; ``position`` is the 0-based offset."""

    def __init__(self, message: str, source: str, position: int) -> None:
        self.source = source
        self.position = position
        pointer = " " * position + "^"
        super().__init__(f"{message} at position {position}\n  {source}\n  {pointer}")


#: Seconds a user's regular expression may search one text before the check stops with an error.
REGEX_TIMEOUT = 2.0


class RegexTimeoutError(ValueError):
    """A user's regular expression ran past `REGEX_TIMEOUT` on one text."""


def compile_user_regex(pattern: str) -> Any:
    """Compile a pattern the user wrote, with Python's ``re`` syntax, searchable under a time limit.

    The ``regex`` package (a dependency of nltk, so always present) runs it and
    honours a timeout; ``re.error`` is raised for a bad pattern, as ``re.compile``
    would. Without ``regex`` the pattern runs on ``re``, without a limit.
    """
    try:
        import regex
    except ImportError:  # pragma: no cover - nltk requires regex
        return re.compile(pattern)
    re.compile(pattern)  # the same errors, with positions, as Python's own syntax
    try:
        return regex.compile(pattern, flags=regex.VERSION0)
    except regex.error:
        return re.compile(pattern)  # a construct only re accepts: no limit, still correct


def search_user_regex(compiled: Any, text: str, display: str) -> Any:
    """``compiled.search(text)``, stopped after `REGEX_TIMEOUT` seconds with a clear error."""
    if isinstance(compiled, re.Pattern):
        return compiled.search(text)
    try:
        return compiled.search(text, timeout=REGEX_TIMEOUT)
    except TimeoutError:
        raise RegexTimeoutError(
            f"{display} ran longer than {REGEX_TIMEOUT:g} s on a text of {len(text):,} characters and was stopped: "
            "the pattern backtracks catastrophically (nested repetition such as (a+)+ or (a|aa)*); rewrite it "
            "with a single bounded repetition"
        ) from None


@dataclass(frozen=True)
class _Term:
    text: str
    regex: Any  # a compiled user pattern, or None: plain substring
    display: str  # the term as written in the condition

    def __str__(self) -> str:
        return self.display

    def find(self, haystack: str) -> tuple[int, int] | None:
        if self.regex is not None:
            match = search_user_regex(self.regex, haystack, self.display)
            return None if match is None else match.span()
        start = haystack.find(self.text)
        return None if start < 0 else (start, start + len(self.text))


@dataclass(frozen=True)
class _Not:
    child: _Node

    def __str__(self) -> str:
        return f"NOT {_wrap(self.child)}"


@dataclass(frozen=True)
class _And:
    children: tuple[_Node, ...]

    def __str__(self) -> str:
        return " AND ".join(_wrap(c) for c in self.children)


@dataclass(frozen=True)
class _Or:
    children: tuple[_Node, ...]

    def __str__(self) -> str:
        return " OR ".join(_wrap(c) for c in self.children)


_Node = _Term | _Not | _And | _Or


def _wrap(node: _Node) -> str:
    return f"({node})" if isinstance(node, (_And, _Or)) else str(node)


def _evaluate(node: _Node, text: str) -> bool:
    if isinstance(node, _Term):
        return node.find(text) is not None
    if isinstance(node, _Not):
        return not _evaluate(node.child, text)
    if isinstance(node, _And):
        return all(_evaluate(c, text) for c in node.children)
    return any(_evaluate(c, text) for c in node.children)


def _excerpt(text: str, start: int, end: int) -> str:
    left = max(0, start - _EXCERPT)
    right = min(len(text), end + _EXCERPT)
    snippet = text[left:right]
    return ("..." if left else "") + snippet + ("..." if right < len(text) else "")


def _explain(node: _Node, text: str, want: bool) -> list[str]:
    """Leaf-level reasons why ``node`` does not evaluate to ``want`` on ``text``."""
    if _evaluate(node, text) == want:
        return []
    if isinstance(node, _Term):
        if want:
            return [f"missing {node}"]
        span = node.find(text)
        assert span is not None
        return [f"found forbidden {node} at {span[0]}: {_excerpt(text, *span)!r}"]
    if isinstance(node, _Not):
        return _explain(node.child, text, not want)
    reasons: list[str] = []
    for child in node.children:
        reasons.extend(_explain(child, text, want))
    return reasons


class Condition:
    """A parsed condition; evaluate it with `matches()`, see why with `explain()`."""

    def __init__(self, source: str, root: _Node) -> None:
        self.source = source
        self._root = root

    def __repr__(self) -> str:
        return f"Condition({self.source!r})"

    def __str__(self) -> str:
        return str(self._root)

    def matches(self, text: str) -> bool:
        """Whether ``text`` satisfies the condition."""
        return _evaluate(self._root, text)

    def explain(self, text: str) -> list[str]:
        """Why ``text`` fails the condition: the terms that decided it (empty when it passes)."""
        return _explain(self._root, text, True)


_KEYWORDS = ("AND", "OR", "NOT")


_FUNCTIONS = ("REGEXP", "REGEX")


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.raw: dict[int, str] = {}
        self.tokens = list(self._tokenize(source))
        self.index = 0

    def error(self, message: str, position: int) -> ConditionSyntaxError:
        return ConditionSyntaxError(message, self.source, position)

    def _tokenize(self, source: str) -> Iterator[tuple[str, str, int]]:
        i = 0
        n = len(source)
        while i < n:
            ch = source[i]
            if ch.isspace():
                i += 1
            elif ch in "()":
                yield (ch, ch, i)
                i += 1
            elif ch in "\"'":
                start = i
                i += 1
                chars = []
                while i < n and source[i] != ch:
                    if source[i] == "\\" and i + 1 < n and source[i + 1] in (ch, "\\"):
                        chars.append(source[i + 1])
                        i += 2
                    else:
                        chars.append(source[i])
                        i += 1
                if i >= n:
                    raise self.error("unterminated string", start)
                i += 1
                yield ("STR", "".join(chars), start)
                self.raw[start] = source[start:i]
            elif ch.isalpha() or ch == "_":
                start = i
                while i < n and (source[i].isalnum() or source[i] == "_"):
                    i += 1
                word = source[start:i]
                upper = word.upper()
                if upper in _KEYWORDS:
                    yield (upper, word, start)
                elif upper in _FUNCTIONS:
                    yield ("REGEXP", word, start)
                else:
                    raise self.error(f'unexpected word {word!r}: strings must be quoted, e.g. "{word}"', start)
            else:
                raise self.error(f"unexpected character {ch!r}", i)

    def shown(self, token: tuple[str, str, int]) -> str:
        """A token as written (strings keep their quotes)."""
        return self.raw.get(token[2], token[1])

    def peek(self) -> tuple[str, str, int] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self, kind: str, what: str) -> tuple[str, str, int]:
        token = self.peek()
        if token is None:
            raise self.error(f"expected {what} but the condition ended", len(self.source))
        if token[0] != kind:
            raise self.error(f"expected {what}, found {self.shown(token)!r}", token[2])
        self.index += 1
        return token

    def parse(self) -> _Node:
        if not self.tokens:
            raise self.error("empty condition", 0)
        node = self.parse_or()
        token = self.peek()
        if token is not None:
            raise self.error(f"unexpected {self.shown(token)!r}; expected AND, OR or the end", token[2])
        return node

    def parse_or(self) -> _Node:
        children = [self.parse_and()]
        while (token := self.peek()) is not None and token[0] == "OR":
            self.index += 1
            children.append(self.parse_and())
        return children[0] if len(children) == 1 else _Or(tuple(children))

    def parse_and(self) -> _Node:
        children = [self.parse_not()]
        while (token := self.peek()) is not None and token[0] == "AND":
            self.index += 1
            children.append(self.parse_not())
        return children[0] if len(children) == 1 else _And(tuple(children))

    def parse_not(self) -> _Node:
        token = self.peek()
        if token is not None and token[0] == "NOT":
            self.index += 1
            return _Not(self.parse_not())
        return self.parse_atom()

    def parse_atom(self) -> _Node:
        token = self.peek()
        if token is None:
            raise self.error("expected a string, regexp(...) or '(' but the condition ended", len(self.source))
        kind, value, position = token
        if kind == "STR":
            self.index += 1
            return _Term(value, None, self.raw[position])
        if kind == "REGEXP":
            self.index += 1
            self.take("(", "'(' after regexp")
            _, pattern, at = self.take("STR", "a quoted pattern inside regexp(...)")
            self.take(")", "')' closing regexp(...)")
            try:
                compiled = compile_user_regex(pattern)
            except re.error as exc:
                offset = at + 1 + (exc.pos or 0)
                raise self.error(f"invalid regular expression {pattern!r}: {exc.msg}", offset) from None
            return _Term(pattern, compiled, f"regexp({self.raw[at]})")
        if kind == "(":
            self.index += 1
            node = self.parse_or()
            self.take(")", "')'")
            return node
        raise self.error(f"expected a string, regexp(...) or '(', found {self.shown(token)!r}", position)


def parse_condition(source: str) -> Condition:
    """Parse ``source`` into a `Condition`.

    Raises:
        TypeError: ``source`` is not a str.
        ConditionSyntaxError: the condition does not parse, or holds an invalid regular expression.
    """
    if not isinstance(source, str):
        raise TypeError(f"condition must be a str, got {type(source).__name__}")
    return Condition(source, _Parser(source).parse())
