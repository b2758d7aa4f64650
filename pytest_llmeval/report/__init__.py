"""Report writers: JSON (everything), Markdown (for $GITHUB_STEP_SUMMARY), HTML (one self-contained file).

All writes are atomic: a report is written to a temporary file beside its
target and renamed over it, so a crash never leaves half a report.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["write_reports", "atomic_write", "FORMATS"]


def _json(report: dict[str, Any]) -> Iterable[str]:
    from .jsonfile import chunks

    return chunks(report)  # streamed: a report of tens of thousands of results is never one string in memory


def _markdown(report: dict[str, Any]) -> str:
    from .markdown import render

    return render(report)


def _html(report: dict[str, Any]) -> str:
    from .html import render

    return render(report)


#: Extension -> renderer.
FORMATS: dict[str, Callable[[dict[str, Any]], str | Iterable[str]]] = {".json": _json, ".md": _markdown, ".html": _html}


def atomic_write(path: str, text: str | Iterable[str]) -> None:
    """Write ``text`` (a string, or its pieces in order) to ``path`` via a temporary file and :func:`os.replace`.

    Any ``str`` is written: a lone surrogate that no writer escaped becomes U+FFFD.
    """
    from ..text import replace_surrogates

    pieces = [text] if isinstance(text, str) else text
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".llmeval-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            for piece in pieces:
                stream.write(replace_surrogates(piece))
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def write_reports(report: dict[str, Any], path: str) -> list[str]:
    """Write ``report`` to ``path``: one file by extension, or all formats into a directory."""
    extension = os.path.splitext(path)[1].lower()
    if extension in FORMATS:
        targets = [(path, FORMATS[extension])]
    elif extension:
        raise ValueError(f"unknown report extension {extension!r}; use .json, .md, .html or a directory")
    else:
        targets = [(os.path.join(path, f"report{ext}"), render) for ext, render in FORMATS.items()]
    written = []
    for target, render in targets:
        atomic_write(target, render(report))
        written.append(target)
    return written
