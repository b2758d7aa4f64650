"""Caches on disk: shard files of (text hash, value) for one signature (a model, a parser).

Each process writes what it computed as one shard (a temporary file, then a
rename), so xdist workers never write the same file. A shard that cannot be read,
that belongs to another signature, or whose checksum does not match its contents
is deleted and its values are computed again: a store is a cache, never trusted
over the model that fills it.

- `EmbeddingStore`: sentence vectors (``.npz``), under ``embeddings/``;
- `ParseStore`: parsed texts (tokens, sentences, entities; ``.json``), under ``parses/``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    import numpy as np


__all__ = ["ShardStore", "EmbeddingStore", "ParseStore", "text_key"]


def text_key(text: str) -> str:
    """The key of any ``str`` (lone surrogates too) in a store: its SHA-256 (kept for short texts, looked up often)."""
    return _short_key(text) if len(text) <= 2000 else _key(text)


def _key(text: str) -> str:
    from ..text.basics import utf8

    return hashlib.sha256(utf8(text)).hexdigest()


_short_key = lru_cache(maxsize=1 << 14)(_key)


class ShardStore:
    """Values on disk for one signature, as shard files in one folder (see the module docstring).

    Subclasses set `FOLDER` and `SUFFIX` and implement `_write()` and `_read()`.
    """

    FOLDER: ClassVar[str] = ""
    SUFFIX: ClassVar[str] = ""

    def __init__(
        self, directory: str, signature: str, *, exact: bool = False
    ) -> None:  # exact: shards right in directory
        self.signature = signature
        digest = hashlib.sha256(signature.encode()).hexdigest()[:20]
        self.directory = directory if exact else os.path.join(directory, self.FOLDER, digest)
        self.rejected = 0

    def load(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        if not os.path.isdir(self.directory):
            return values
        for entry in sorted(os.listdir(self.directory)):
            if entry.endswith(self.SUFFIX):
                values.update(self.read(os.path.join(self.directory, entry)) or {})
        return values

    def read(self, path: str) -> dict[str, Any] | None:
        """The values of one shard; ``None`` (and the file deleted) if it is unreadable, foreign or altered."""
        try:
            return self._read(path)
        except Exception:  # noqa: BLE001 - any unreadable shard is rebuilt
            self.rejected += 1
            with contextlib.suppress(OSError):
                os.unlink(path)
            return None

    def save(self, new: dict[str, Any], name: str | None = None) -> str | None:
        """Write ``new`` as one shard (named ``name``, else a name of its own); returns its path."""
        if not new:
            return None
        os.makedirs(self.directory, exist_ok=True)
        name = name or f"shard-{os.getpid()}-{time.time_ns()}{self.SUFFIX}"
        temporary = os.path.join(self.directory, f".{name}.tmp")
        with open(temporary, "wb") as handle:
            self._write(handle, new)
        final = os.path.join(self.directory, name)
        os.replace(temporary, final)
        return final

    def compact(self) -> None:
        """Merge all shards into one (call from the controller when no worker writes)."""
        shards = (
            [e for e in os.listdir(self.directory) if e.endswith(self.SUFFIX)] if os.path.isdir(self.directory) else []
        )
        if len(shards) < 8:
            return
        values = self.load()
        remaining = [e for e in os.listdir(self.directory) if e.endswith(self.SUFFIX)]
        if self.save(values):
            for entry in remaining:
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(self.directory, entry))

    def _write(self, handle: Any, values: dict[str, Any]) -> None:
        raise NotImplementedError

    def _read(self, path: str) -> dict[str, Any]:
        raise NotImplementedError


class EmbeddingStore(ShardStore):
    """Sentence vectors of one embedding model: ``keys`` (text hashes), ``vectors`` (float32, unit length) and
    ``meta`` (format, signature, dimension, SHA-256 of keys and vectors) in each ``.npz`` shard; a shard of another
    dimension than the first one read, or with vectors that are not finite unit vectors, is rejected."""

    FOLDER = "embeddings"
    SUFFIX = ".npz"
    FORMAT = 2  # 2: a SHA-256 of keys and vectors in every shard

    def __init__(self, directory: str, signature: str, *, exact: bool = False) -> None:
        super().__init__(directory, signature, exact=exact)
        self._dims: set[int] = set()

    def load(self) -> dict[str, np.ndarray]:
        self._dims = set()
        return super().load()

    def _write(self, handle: Any, values: dict[str, Any]) -> None:
        import numpy as np

        keys = np.array(list(values), dtype="U64")
        matrix = np.stack([values[k] for k in values]).astype(np.float32)
        meta = json.dumps(
            {
                "format": self.FORMAT,
                "signature": self.signature,
                "dim": int(matrix.shape[1]),
                "sha256": _shard_digest(keys, matrix),
            }
        )
        np.savez(handle, keys=keys, vectors=matrix, meta=np.array(meta))

    def _read(self, path: str) -> dict[str, Any]:
        import numpy as np

        with np.load(path, allow_pickle=False) as shard:
            meta = json.loads(str(shard["meta"]))
            keys = shard["keys"]
            matrix = shard["vectors"]
        if (
            meta.get("format") != self.FORMAT
            or meta.get("signature") != self.signature
            or matrix.ndim != 2
            or len(keys) != len(matrix)
            or matrix.dtype != np.float32
            or meta.get("dim") != matrix.shape[1]
            or (self._dims and matrix.shape[1] not in self._dims)
            or meta.get("sha256") != _shard_digest(keys, matrix)
            or not np.isfinite(matrix).all()
            or (len(matrix) and float(np.abs(np.linalg.norm(matrix, axis=1) - 1.0).max()) > 1e-2)
        ):
            raise ValueError("foreign, altered or inconsistent shard")
        self._dims.add(int(matrix.shape[1]))
        return dict(zip(keys.tolist(), matrix))


def _shard_digest(keys: Any, matrix: Any) -> str:
    """SHA-256 of a shard's keys and vectors: a vector altered on disk is caught, not trusted."""
    digest = hashlib.sha256()
    digest.update("\n".join(str(k) for k in keys.tolist()).encode())
    digest.update(matrix.tobytes())
    return digest.hexdigest()


class ParseStore(ShardStore):
    """Parsed texts of one parser (see `pytest_llmeval.facts.syntax`): one JSON object per ``.json`` shard with the
    format, the signature, the entries (text hash to parse) and a SHA-256 of the entries as written."""

    FOLDER = "parses"
    SUFFIX = ".json"
    FORMAT = 1

    def _write(self, handle: Any, values: dict[str, Any]) -> None:
        entries = json.dumps(values, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
        digest = hashlib.sha256(entries.encode("utf-8", "surrogatepass")).hexdigest()
        head = json.dumps({"format": self.FORMAT, "signature": self.signature, "sha256": digest})
        # The header on the first line, the entries on the second: the checksum covers them as written.
        handle.write(head.encode() + b"\n" + entries.encode("utf-8", "surrogatepass"))

    def _read(self, path: str) -> dict[str, Any]:
        with open(path, "rb") as handle:
            head, _, body = handle.read().partition(b"\n")
        meta = json.loads(head)
        if (
            meta.get("format") != self.FORMAT
            or meta.get("signature") != self.signature
            or meta.get("sha256") != hashlib.sha256(body).hexdigest()
        ):
            raise ValueError("foreign or altered shard")
        entries = json.loads(body.decode("utf-8", "surrogatepass"))
        if not isinstance(entries, dict):
            raise ValueError("not a parse shard")
        return entries
