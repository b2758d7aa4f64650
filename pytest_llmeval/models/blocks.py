"""Embeddings shared by the xdist workers of one run: each block of cases encoded once, by one worker.

pytest-xdist hands a worker its tests a few at a time, so a worker alone never sees
far enough ahead to encode in large batches, and two workers each encode the
sentences their cases share. For a test function parametrized from ``cases(...)``,
the cases are cut into blocks by their place in the collection (`block_bounds()`:
32, 64, 128, then 256 cases). A worker about to check a case whose block it lacks:

- loads the block if another worker has written it;
- claims it (a file created exclusively) and encodes it, for every worker, if nobody has;
- while another worker is still encoding it, claims and encodes the next unclaimed
  block instead of waiting idle, and waits only when none is left.

A block is written as a checked embedding shard
(`EmbeddingStore`: signature, dimension, unit vectors,
checksum) in a folder the controller makes for the run and removes at its end. A
block whose claimer died, that could not be planned or encoded, or whose shard does
not check out, is given up: its tests encode their own sentences, as without sharing.
"""

from __future__ import annotations

import contextlib
import os
import socket
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np


__all__ = ["SharedBlocks", "block_bounds", "block_of", "FIRST", "MOST"]


FIRST = 32


MOST = 256


def block_bounds(count: int, first: int = FIRST, most: int = MOST) -> list[tuple[int, int]]:
    """The ``[start, end)`` positions of the blocks of ``count`` cases: ``first``, doubling, at most ``most``."""
    if first < 1 or most < first:
        raise ValueError(f"block sizes: 'first' must be at least 1 and 'most' at least 'first'; got {first}, {most}")
    bounds, start, size = [], 0, first
    while start < count:
        bounds.append((start, min(start + size, count)))
        start, size = start + size, min(size * 2, most)
    return bounds


def block_of(bounds: list[tuple[int, int]], position: int) -> int:
    """The index of the block holding ``position``."""
    for index, (start, end) in enumerate(bounds):
        if start <= position < end:
            return index
    raise IndexError(f"position {position} is in no block (of {bounds[-1][1] if bounds else 0} cases)")


class SharedBlocks:
    """The blocks of one plan (check, parameters, fields read, test function) in the run's shared folder.

    Args:
        folder: the run's shared folder (made by the controller).
        plan: a name for the plan, the same in every worker.
        embedder: the check's embedder (its signature names and checks the shards).
    """

    def __init__(self, folder: str, plan: str, embedder: Any) -> None:
        self.plan = plan
        self.embedder = embedder
        self.claims = os.path.join(folder, "claims")
        self.host = socket.gethostname()

    def _store(self) -> Any:
        from .stores import EmbeddingStore

        # The signature as it is now (a load may re-key it); a block's shard lies beside its claim, whichever model
        # wrote it.
        return EmbeddingStore(self.claims, self.embedder.signature, exact=True)

    def _path(self, block: int, suffix: str) -> str:
        return os.path.join(self.claims, f"{self.plan}-{block}{suffix}")

    def claim(self, block: int) -> bool:
        """Claim ``block`` for this process; ``False`` when another process has."""
        os.makedirs(self.claims, exist_ok=True)
        try:
            descriptor = os.open(self._path(block, ".claim"), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            return False
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(f"{os.getpid()} {self.host}")
        return True

    def save(self, block: int, vectors: dict[str, np.ndarray]) -> None:
        """Write the claimed ``block``'s vectors for the other workers (nothing to write: it is given up)."""
        if not vectors:
            self.give_up(block)
            return
        self._store().save(vectors, name=os.path.basename(self._path(block, ".npz")))

    def give_up(self, block: int) -> None:
        """Tell the other workers not to wait for ``block``: its tests encode their own sentences."""
        with contextlib.suppress(OSError):
            os.makedirs(self.claims, exist_ok=True)
            with open(self._path(block, ".none"), "w", encoding="utf-8"):
                pass

    def load(self, block: int) -> dict[str, np.ndarray] | None:
        """The vectors of ``block`` if it is written; ``{}`` if this worker cannot use them (given up, unreadable,
        another model's)."""
        shard = self._path(block, ".npz")
        if os.path.exists(shard):
            writer = _writer(shard)
            if (
                writer is not None
                and writer != self.embedder.signature
                and not self.embedder.stats().get("loaded", True)
            ):
                with contextlib.suppress(Exception):  # the signature is a prediction until the model loads: settle it
                    self.embedder.model  # noqa: B018
            if writer is not None and writer != self.embedder.signature:
                return {}  # vectors of another model or precision: this worker's tests encode their own
            vectors = self._store().read(shard)
            if vectors is None:  # altered: deleted, and given up for every worker
                self.give_up(block)
            return vectors or {}
        if os.path.exists(self._path(block, ".none")):
            return {}
        return None

    def abandoned(self, block: int) -> bool:
        """Whether ``block``'s claimer on this machine has exited without writing it."""
        try:
            with open(self._path(block, ".claim"), encoding="utf-8") as handle:
                pid_text, _, host = handle.read().partition(" ")
        except OSError:
            return False
        if host != self.host or not pid_text.isdigit():
            return False  # being written, or another machine's: wait (bounded by the caller)
        try:
            os.kill(int(pid_text), 0)
        except ProcessLookupError:
            return True
        except OSError:
            return False
        try:  # Linux: a worker that has exited but is not yet reaped is a zombie
            with open(f"/proc/{pid_text}/stat", encoding="utf-8") as handle:
                return handle.read().rpartition(")")[2].split()[0] == "Z"
        except (OSError, IndexError):
            return False


def _writer(path: str) -> str | None:
    """The signature a shard was written with; ``None`` if it cannot be read."""
    import json

    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as shard:
            return str(json.loads(str(shard["meta"]))["signature"])
    except Exception:  # noqa: BLE001 - an unreadable shard is dealt with by the full read
        return None
