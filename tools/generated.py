"""Generated blocks: the text between a start and an end marker line of a file, written from the code by a script
(``tools/check_index.py``, ``tools/docs_pages.py``) and compared with it by a test."""

from __future__ import annotations

import pathlib
import re

__all__ = ["read", "rewrite"]


def _pattern(start: str, end: str) -> re.Pattern[str]:
    return re.compile(rf"({re.escape(start)}\n)(.*?)(^[ ]*{re.escape(end)})", re.S | re.M)


def read(path: pathlib.Path, start: str, end: str) -> str | None:
    """The block's text (no trailing newline), or ``None`` when the file or its markers are missing."""
    if not path.exists():
        return None
    match = _pattern(start, end).search(path.read_text(encoding="utf-8"))
    return None if match is None else match.group(2).removesuffix("\n")


def rewrite(path: pathlib.Path, start: str, end: str, content: str) -> bool:
    """Put ``content`` between the markers; whether the file changed."""
    old = path.read_text(encoding="utf-8")
    new = _pattern(start, end).sub(lambda m: m.group(1) + content + "\n" + m.group(3), old)
    if new != old:
        path.write_text(new, encoding="utf-8")
    return new != old
