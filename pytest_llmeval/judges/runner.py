"""The session's judge: configuration, the verdict cache, and what to do when no judge can answer.

With no judge configured, a judge check is skipped with a reason
(:class:`JudgeUnavailable`), never an error. With ``--llmeval-offline``, recorded
verdicts are replayed and a check that would need a new one is skipped. In replay-only mode a missing
verdict fails the check (:class:`~pytest_llmeval.judges.cache.ReplayMiss`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from .base import JudgeParseError, JudgeReply
from .cache import VerdictCache

__all__ = ["JudgeRunner", "JudgeUnavailable", "SKIP_PREFIX"]

#: Every skip for want of a judge starts with this, so the controller can count them.
SKIP_PREFIX = "llmeval judge unavailable"


class JudgeUnavailable(RuntimeError):
    """No judge can answer (none configured, or offline) and no verdict is recorded."""


class JudgeRunner:
    def __init__(self, judge: Any | None, cache: VerdictCache, *, offline: bool = False, why_none: str = "no judge configured") -> None:
        self.judge = judge
        self.cache = cache
        self.offline = offline
        self.why_none = why_none
        self.parse_failures = 0

    def ask(
        self,
        *,
        evaluator: str,
        version: str,
        template: str,
        messages: Sequence[Mapping[str, str]],
        schema: Mapping[str, Any] | None = None,
        repeat: int = 0,
        what: str = "",
    ) -> Any:
        """The parsed JSON verdict for ``messages``, from the cache or the judge."""
        if self.judge is None:
            # The judge's model is part of every verdict's key: without one, nothing can be looked up either.
            raise JudgeUnavailable(f"{SKIP_PREFIX}: {self.why_none}; {what or evaluator} needs a verdict")
        judge_signature = dict(self.judge.signature())
        request = {
            "evaluator": evaluator,
            "version": version,
            "template_sha256": hashlib.sha256(template.encode()).hexdigest(),
            "judge": judge_signature,
            "messages": [dict(m) for m in messages],
            "schema": schema,
            "repeat": repeat,
        }
        recorded = self.cache.get(request, what=what or evaluator)
        if recorded is not None:
            reply = JudgeReply(**recorded)
        else:
            if self.offline:
                raise JudgeUnavailable(f"{SKIP_PREFIX}: offline (--llmeval-offline); {what or evaluator} needs a new verdict")
            reply = self.judge.complete(messages, schema=schema)
            self.cache.put(request, {"text": reply.text, "finish_reason": reply.finish_reason, "model": reply.model,
                                     "prompt_tokens": reply.prompt_tokens, "completion_tokens": reply.completion_tokens})
        try:
            return reply.json()
        except JudgeParseError:
            self.parse_failures += 1
            raise

    def stats(self) -> dict[str, Any]:
        out = {"configured": self.judge is not None, "offline": self.offline, "parse_failures": self.parse_failures,
               "cache": self.cache.stats()}
        if self.judge is not None and hasattr(self.judge, "stats"):
            out.update(self.judge.stats())
        return out

