"""The judge's spend limit (``judge.spend_limit``): the new judge calls, their tokens or their US dollars one run may
spend. It is not ``judge.budget``, which is the seconds one request may take.

Before each new call the ledger is asked (`SpendLedger.reserve`): below the limit the call is counted at once, so two
workers never both take the last one; at or past it no call is made. A call's tokens and cost are added when it
returns (`SpendLedger.settle`), so under a token or dollar limit the call that crosses it completes and none starts
after it. Verdicts replayed from the cache cost nothing and are never counted against it.

Under ``pytest -n`` the workers share one ledger: a small JSON file in the run's shared folder, read and written
under an exclusive ``fcntl`` lock; in one process (or where ``fcntl`` is missing) a thread lock guards counts in
memory.

>>> parse_spend_limit("200 calls"), parse_spend_limit("5 USD"), parse_spend_limit("$2.5"), parse_spend_limit("")
((200.0, 'calls'), (5.0, 'usd'), (2.5, 'usd'), None)
>>> ledger = SpendLedger((2, "calls"))
>>> ledger.reserve(), ledger.reserve(), ledger.reserve()
(None, None, 'judge spend limit reached (2 calls of 2 calls)')
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["UNITS", "parse_spend_limit", "describe_limit", "SpendLedger"]

#: What a spend limit counts.
UNITS = ("calls", "tokens", "usd")

_LIMIT = re.compile(r"^\s*(\$)?\s*(\d+(?:\.\d+)?)\s*(calls?|tokens?|usd|\$)?\s*$", re.IGNORECASE)


def parse_spend_limit(text: str) -> tuple[float, str] | None:
    """``"200 calls"``, ``"50000 tokens"``, ``"5 USD"`` or ``"$5"`` as (amount, unit); ``None`` for an empty text.
    ``ValueError`` naming what is expected otherwise."""
    if not str(text).strip():
        return None
    found = _LIMIT.match(str(text))
    unit = None if found is None else ("usd" if found.group(1) else (found.group(3) or "").lower().rstrip("s"))
    if found is None or not unit or (found.group(1) and found.group(3) and found.group(3) != "$"):
        raise ValueError(f"expected a number and a unit, as '200 calls', '50000 tokens' or '5 USD'; got {text!r}")
    unit = {"call": "calls", "token": "tokens", "$": "usd", "usd": "usd"}[unit]
    return float(found.group(2)), unit


def describe_limit(limit: tuple[float, str]) -> str:
    """``200 calls``, ``50000 tokens``, ``5.00 USD``."""
    amount, unit = limit
    return f"{amount:.2f} USD" if unit == "usd" else f"{amount:g} {unit}"


class SpendLedger:
    """What the run spent on new judge calls, and whether the next may be made under ``limit`` (``None``: no limit).

    ``path``: the file the workers of one run share; ``None`` keeps the counts in this process."""

    def __init__(self, limit: tuple[float, str] | None, path: str | None = None) -> None:
        self.limit = limit
        self.path = path
        self._lock = threading.Lock()
        self._totals = {"calls": 0.0, "tokens": 0.0, "usd": 0.0}
        self.refused = 0  # calls this process did not make for the limit

    @contextlib.contextmanager
    def _shared(self) -> Iterator[dict[str, float]]:
        """The totals, under the thread lock and, with a file, the file's exclusive lock; written back after."""
        with self._lock:
            if self.path is None:
                yield self._totals
                return
            try:
                import fcntl
            except ImportError:  # no fcntl (Windows): this process's counts only
                yield self._totals
                return
            with open(self.path, "a+", encoding="utf-8") as stream:
                fcntl.flock(stream.fileno(), fcntl.LOCK_EX)
                try:
                    stream.seek(0)
                    text = stream.read()
                    try:
                        found = json.loads(text) if text.strip() else {}
                    except ValueError:
                        found = {}
                    totals = {unit: float(found.get(unit, 0.0)) for unit in UNITS}
                    yield totals
                    stream.seek(0)
                    stream.truncate()
                    stream.write(json.dumps(totals))
                    stream.flush()
                    os.fsync(stream.fileno())
                finally:
                    fcntl.flock(stream.fileno(), fcntl.LOCK_UN)

    def reserve(self) -> str | None:
        """Count one new call, or say why it may not be made (the limit is reached)."""
        if self.limit is None:
            return None
        amount, unit = self.limit
        with self._shared() as totals:
            if totals[unit] >= amount:
                self.refused += 1
                spent = f"{totals[unit]:.4f} USD" if unit == "usd" else f"{totals[unit]:g} {unit}"
                return f"judge spend limit reached ({spent} of {describe_limit(self.limit)})"
            totals["calls"] += 1
        return None

    def settle(self, tokens: int, usd: float) -> None:
        """Add a finished call's tokens and cost."""
        if self.limit is None:
            return
        with self._shared() as totals:
            totals["tokens"] += tokens
            totals["usd"] += usd

    def totals(self) -> dict[str, Any]:
        """What the run spent so far (all workers, with a shared file), and the limit."""
        if self.limit is None:
            return {}
        with self._shared() as totals:
            return {**{unit: round(value, 6) for unit, value in totals.items()}, "limit": describe_limit(self.limit)}
