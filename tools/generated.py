"""Generated blocks: the text between a start and an end marker line of a file, written from the code by a script
(``tools/check_index.py``, ``tools/docs_pages.py``) and compared with it by a test."""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

__all__ = ["read", "rewrite", "formatted"]

ROOT = pathlib.Path(__file__).resolve().parent.parent


def formatted(code: str) -> str:
    """Python ``code`` as ``ruff format`` writes it with the project's settings (the test command checks every file
    with it); a fragment indented by ``n`` levels is formatted at that depth."""
    depth = (len(code) - len(code.lstrip(" "))) // 4
    wrapped = "".join(f"{'    ' * level}if True:\n" for level in range(depth)) + code + "\n"
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", str(ROOT / "generated.py"), "-"],
        input=wrapped,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    return "\n".join(done.split("\n")[depth:]).rstrip("\n")


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
