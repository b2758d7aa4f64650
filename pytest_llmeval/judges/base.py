"""The judge protocol: messages in, text (and parsed JSON) out.

A `Judge` answers one chat request. `extract_json()` reads JSON out of
a reply tolerantly (a bare object, a fenced block, or the first balanced object in
prose), so small open-weight judges that wrap their JSON in words still parse.
A reply cut off by the token limit (``finish_reason == "length"``) is a parse
failure, never a verdict. A judge that got no reply in time raises `JudgeTimeout`,
which the session's runner counts to stop asking a judge that hangs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol
from ..core.errors import ScoringError

__all__ = ["Judge", "JudgeReply", "JudgeError", "JudgeTimeout", "JudgeParseError", "extract_json"]


Message = Mapping[str, str]


class JudgeError(ScoringError):
    """The judge could not be reached or refused the request (after retries)."""


class JudgeTimeout(JudgeError):
    """The judge gave no reply in time (after retries, or with its time budget spent)."""


class JudgeParseError(ValueError):
    """The judge answered, but not with what the check asked for."""


@dataclass(frozen=True)
class JudgeReply:
    text: str
    finish_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> JudgeReply:
        """The reply a verdict file recorded; ``ValueError`` naming the field that this version cannot read.

        >>> JudgeReply.from_record({"text": "yes", "confidence": 0.9})
        Traceback (most recent call last):
        ...
        ValueError: unknown field(s) 'confidence' (written by a newer version?)
        """
        unknown = sorted(set(record) - set(_REPLY_TYPES))
        if unknown:
            raise ValueError(f"unknown field(s) {', '.join(map(repr, unknown))} (written by a newer version?)")
        if "text" not in record:
            raise ValueError("'text' is missing")
        for name, (kind, what) in _REPLY_TYPES.items():
            if name in record and (isinstance(record[name], bool) or not isinstance(record[name], kind)):
                raise ValueError(f"{name!r} must be {what}; got {type(record[name]).__name__}")
        return cls(**record)

    def json(self) -> Any:
        """The reply's JSON; `JudgeParseError` if there is none or the reply was truncated."""
        if self.finish_reason == "length":
            raise JudgeParseError(
                "the judge's reply was cut off at the token limit (finish_reason=length); raise max_tokens"
            )
        return extract_json(self.text)


#: The fields of a recorded reply: their types, and how a wrong one is named.
_REPLY_TYPES: dict[str, tuple[type, str]] = {
    "text": (str, "a string"),
    "finish_reason": (str, "a string"),
    "model": (str, "a string"),
    "prompt_tokens": (int, "an integer"),
    "completion_tokens": (int, "an integer"),
    "extra": (dict, "a JSON object"),
}


class Judge(Protocol):
    """Anything that answers a chat request."""

    name: str

    def complete(
        self,
        messages: Sequence[Message],
        *,
        schema: Mapping[str, Any] | None = None,
        temperature: float | None = None,
        logprobs: int = 0,
    ) -> JudgeReply:
        """One reply; ``temperature`` overrides the judge's for this request (sampling), ``logprobs`` > 0 asks
        for that many alternatives per token in ``extra["top_logprobs"]`` (a judge that cannot may ignore it)."""
        ...

    def signature(self) -> Mapping[str, Any]:
        """Model and parameters that change verdicts (never the API key)."""
        ...


_FENCED = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


#: An object or array opening that can start a JSON value: '{' before a key or '}', '[' before a value or ']'.
_OPENING = re.compile(r"\{(?=\s*[\"}])|\[(?=\s*[\]\[{\"\-0-9tfn])")


#: Candidate openings tried before a reply is declared to hold no JSON.
MAX_JSON_STARTS = 100


def extract_json(text: str) -> Any:
    """The JSON value in ``text``: the whole text, a fenced block, or the first balanced ``{...}`` / ``[...]``.

    >>> extract_json('Sure! ```json\\n{"verdict": "yes"}\\n``` Hope that helps.')
    {'verdict': 'yes'}
    >>> extract_json('The answer is {"score": 4} overall.')
    {'score': 4}
    """
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCED.finditer(text)]
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except (ValueError, RecursionError):
            pass
    decoder = json.JSONDecoder()
    # Only openings that can start a value are tried, and at most MAX_JSON_STARTS of them: each failed
    # attempt costs time in the length of the text, so a megabyte of "{ " must not try them all.
    for attempt, opening in enumerate(_OPENING.finditer(text)):
        if attempt == MAX_JSON_STARTS:
            break
        try:
            value, _ = decoder.raw_decode(text, opening.start())
            return value
        except (ValueError, RecursionError):
            continue
    raise JudgeParseError(f"no JSON in the judge's reply: {text[:200]!r}")
