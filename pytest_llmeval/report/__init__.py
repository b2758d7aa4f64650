"""Report writers: JSON (everything), Markdown (for $GITHUB_STEP_SUMMARY), HTML (one self-contained file).

All writes are atomic: a report is written to a temporary file beside its
target and renamed over it, so a crash never leaves half a report. A report
gets the mode any new file gets (0666 less the umask), not the temporary file's 0600.
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .rows import ReportView

__all__ = ["write_reports", "writes_html", "atomic_write", "current_umask", "ReportsNotWritten", "FORMATS"]


_PROC_STATUS = "/proc/self/status"  # Linux: its "Umask:" line reads the umask without setting it


_umask_lock = threading.Lock()


def _json(report: dict[str, Any], model: Callable[[], ReportView]) -> Iterable[str]:
    from .jsonfile import chunks

    return chunks(report)  # streamed: a report of tens of thousands of results is never one string in memory


def _markdown(report: dict[str, Any], model: Callable[[], ReportView]) -> str:
    from .markdown import render

    return render(model())


def _html(report: dict[str, Any], model: Callable[[], ReportView]) -> str:
    from .html import render
    from .view import view

    drawn = model()
    return render(drawn if drawn.charts is not None else view(report))  # a model built for the terminal has none


def _comment(report: dict[str, Any], model: Callable[[], ReportView]) -> str:
    from .github import render_comment

    return render_comment(model())


#: Extension -> renderer: the JSON report is the dict itself, the others render its report model.
FORMATS: dict[str, Callable[[dict[str, Any], Callable[[], ReportView]], str | Iterable[str]]] = {
    ".json": _json,
    ".md": _markdown,
    ".html": _html,
}


def writes_html(path: str) -> bool:
    """Whether `write_reports` writes an HTML report for ``path`` (a ``.html`` file, or a directory of every format):
    only then does the report model need its charts."""
    return os.path.splitext(path)[1].lower() in ("", ".html")


class ReportsNotWritten(Exception):
    """Some reports could not be written; ``written`` are those that were, ``failed`` the others with their errors."""

    def __init__(self, written: list[str], failed: list[tuple[str, Exception]]) -> None:
        self.written = written
        self.failed = failed
        super().__init__("could not write " + "; ".join(f"{path}: {error}" for path, error in failed))


def current_umask() -> int:
    """The process's umask, read from ``/proc`` where it can be (setting it to read it races with other threads)."""
    try:
        with open(_PROC_STATUS, encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _umask_lock:  # no /proc (macOS, old kernels): set it and put it back at once
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def atomic_write(path: str, text: str | Iterable[str]) -> None:
    """Write ``text`` (a string, or its pieces in order) to ``path`` via a temporary file and `os.replace()`.

    Any ``str`` is written: a lone surrogate that no writer escaped becomes U+FFFD. The file gets
    mode ``0o666`` less the umask, as `open()` would give a new file.
    """
    from ..text.basics import replace_surrogates

    pieces = [text] if isinstance(text, str) else text
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".llmeval-", suffix=".tmp", dir=directory)
    try:
        # mkstemp's 0600 would hide the report from CI artifacts and groups
        os.chmod(temporary, 0o666 & ~current_umask())
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


def write_reports(report: dict[str, Any], path: str, model: ReportView | None = None) -> list[str]:
    """Write ``report`` to ``path``: one file by extension, or all formats into a directory; the files written.

    The Markdown and HTML reports and the comment render ``model``, the report model of ``report`` (`.view.view()`
    builds it when none is given, once for all of them). Every file that can be written is: `ReportsNotWritten` then
    names each one that could not (a model that cannot be built costs the files that need it, not the JSON report).
    """
    built: list[ReportView] = [model] if model is not None else []

    def the_model() -> ReportView:
        if not built:
            from .view import view

            built.append(view(report))
        return built[0]

    extension = os.path.splitext(path)[1].lower()
    if extension in FORMATS:
        targets = [(path, FORMATS[extension])]
    elif extension:
        raise ValueError(f"unknown report extension {extension!r}; use .json, .md, .html or a directory")
    else:
        targets = [(os.path.join(path, f"report{ext}"), render) for ext, render in FORMATS.items()]
        targets.append((os.path.join(path, "comment.md"), _comment))
    written: list[str] = []
    failed: list[tuple[str, Exception]] = []
    for target, render in targets:
        try:
            atomic_write(target, render(report, the_model))
        except Exception as exc:  # noqa: BLE001 - a full disk may still take the smaller reports
            failed.append((target, exc))
        else:
            written.append(target)
    if failed:
        raise ReportsNotWritten(written, failed)
    return written
