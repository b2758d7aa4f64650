"""How test ids name the draws of a repeated test and a test's perturbation siblings (records carry both)."""

from __future__ import annotations

__all__ = ["draw_id", "sibling_id", "without_id_part", "as_in_ids"]


def draw_id(draw: int) -> str:
    """The test-id part of one draw of a repeated test: ``test_x[q1-draw2]``."""
    return f"draw{draw}"


def as_in_ids(label: str, escape: bool) -> str:
    """The id text pytest writes for ``label``: non-ASCII escaped, as ``ascii_escaped`` does, unless disabled."""
    return label.encode("unicode_escape").decode("ascii") if escape else label


def sibling_id(nodeid: str, label: str, *, escape: bool = True) -> str:
    """The node id a test's perturbation siblings share: their id without the perturbation's part.

    The plugin parametrizes the perturbation last, so its id ends the test id:
    ``test_x[q1-typos]`` -> ``test_x[q1]``, ``test_x[typos]`` -> ``test_x``.

    >>> sibling_id("t.py::test_x[a-b-heavy-upper]", "heavy-upper")
    't.py::test_x[a-b]'
    >>> sibling_id("t.py::test_x[min\\\\xfasculas]", "minúsculas")
    't.py::test_x'
    """
    shown = as_in_ids(label, escape)
    if nodeid.endswith(f"-{shown}]"):
        return nodeid[: -len(shown) - 2] + "]"
    if nodeid.endswith(f"[{shown}]"):
        return nodeid[: -len(shown) - 2]
    return without_id_part(nodeid, shown)


def without_id_part(nodeid: str, part: str) -> str:
    """``test_x[q1-typos]`` without ``typos`` (the last such part, which may hold dashes: ``gpt-4o``), or the id
    unchanged."""
    base, bracket, ids = nodeid.partition("[")
    if not bracket or not ids.endswith("]"):
        return nodeid
    inner = ids[:-1]
    if inner == part:
        return base
    if inner.endswith(f"-{part}"):
        return f"{base}[{inner[: -len(part) - 1]}]"
    if inner.startswith(f"{part}-"):
        return f"{base}[{inner[len(part) + 1 :]}]"
    if f"-{part}-" in inner:
        head, _, tail = inner.rpartition(f"-{part}-")
        return f"{base}[{head}-{tail}]"
    parts = ids[:-1].split("-")
    if part in parts:
        index = len(parts) - 1 - parts[::-1].index(part)
        parts.pop(index)
    return f"{base}[{'-'.join(parts)}]" if parts else base
