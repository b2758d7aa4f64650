"""The verdict cache: every judge reply recorded once, replayed in CI at zero cost.

A verdict's key is the SHA-256 of a canonical JSON of everything that could change
it: evaluator name and version, the prompt template's hash, the judge's model and
parameters, the inputs, and the repeat index. Each verdict is one small, readable,
diff-friendly JSON file (``<cache>/verdicts/<2 hex>/<key>.json``) meant to be
committed; writes go to a temporary file and are renamed into place, so xdist
workers never corrupt each other's entries (two writers of one key write the same
content).

Modes: ``record`` (read through, ask the judge on a miss, record), ``replay`` (a miss
fails that check with a message naming it: for CI), ``off``. A file that cannot be
read, whose key does not match its content, or that is valid JSON of another shape
or format version (``format``: 1), a reply included (a field this version does not
know), is reported, not trusted, asked again and rewritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections.abc import Mapping
from typing import Any

from .base import JudgeReply
from ..core.errors import VerdictMissing

__all__ = ["VerdictCache", "ReplayMiss", "verdict_key", "MODES"]


MODES = ("record", "replay", "off")


#: Version of a verdict file's layout; a file of another version (or none of ours) is not trusted.
VERDICT_FORMAT = 1


_FIELDS = {"format", "key", "request", "reply"}


def _check_entry(entry: Any, key: str) -> None:
    """Raise ``ValueError`` saying why a verdict file's content cannot be trusted."""
    if not isinstance(entry, dict):
        raise ValueError(f"not a verdict: a JSON {type(entry).__name__}")
    unknown = sorted(set(entry) - _FIELDS)
    if unknown:
        raise ValueError(f"unknown field(s) {', '.join(map(repr, unknown))} (written by a newer version?)")
    if entry.get("format", VERDICT_FORMAT) != VERDICT_FORMAT:
        raise ValueError(f"verdict format {entry.get('format')!r}, this version reads {VERDICT_FORMAT}")
    if not isinstance(entry.get("request"), dict) or not isinstance(entry.get("reply"), dict):
        raise ValueError("the request and the reply must be JSON objects")
    if entry.get("key") != key or verdict_key(entry["request"]) != key:
        raise ValueError("key does not match the content")
    try:
        JudgeReply.from_record(entry["reply"])
    except ValueError as exc:
        raise ValueError(f"reply: {exc}") from None


class ReplayMiss(VerdictMissing):
    """Replay-only mode and no recorded verdict for this request."""


def verdict_key(request: Mapping[str, Any]) -> str:
    from ..text.basics import utf8

    canonical = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    return hashlib.sha256(utf8(canonical)).hexdigest()


class VerdictCache:
    def __init__(self, directory: str | None, mode: str = "record") -> None:
        if mode not in MODES:
            raise ValueError(f"verdict cache mode must be one of {', '.join(MODES)}; got {mode!r}")
        self.directory = None if directory is None else os.path.join(directory, "verdicts")
        self.mode = mode if directory is not None else "off"
        self.hits = 0
        self.misses = 0
        self.corrupt: list[str] = []
        self._lock = threading.Lock()  # a check's requests may look up verdicts from several threads

    def _path(self, key: str) -> str:
        assert self.directory is not None
        return os.path.join(self.directory, key[:2], f"{key}.json")

    def get(self, request: Mapping[str, Any], *, what: str) -> Mapping[str, Any] | None:
        """The recorded reply for ``request``; ``None`` to ask the judge; `ReplayMiss` in replay mode."""
        if self.mode == "off":
            return None
        key = verdict_key(request)
        path = self._path(key)
        if os.path.exists(path):
            try:
                with open(path, encoding="utf-8") as handle:
                    entry = json.load(handle)
                _check_entry(entry, key)
                with self._lock:
                    self.hits += 1
                reply: dict[str, Any] = entry["reply"]  # a JSON object: _check_entry made sure
                return reply
            except (OSError, ValueError) as exc:
                with self._lock:
                    self.corrupt.append(f"{path}: {exc}")
        with self._lock:
            self.misses += 1
        if self.mode == "replay":
            raise ReplayMiss(
                f"{what}: no recorded judge verdict (replay-only mode, key {key[:12]}); run once with "
                f"-o llmeval_judge_cache=record and a judge configured, then commit the cache"
            )
        return None

    def put(self, request: Mapping[str, Any], reply: Mapping[str, Any]) -> None:
        if self.mode != "record":
            return
        key = verdict_key(request)
        path = self._path(key)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        from ..text.basics import escape_surrogates

        entry = {"format": VERDICT_FORMAT, "key": key, "request": request, "reply": reply}
        text = escape_surrogates(json.dumps(entry, indent=2, sort_keys=True, ensure_ascii=False, default=str))
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".verdict-", suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text + "\n")
        os.replace(temporary, path)

    def stats(self) -> dict[str, Any]:
        return {"mode": self.mode, "hits": self.hits, "misses": self.misses, "corrupt": list(self.corrupt)}
