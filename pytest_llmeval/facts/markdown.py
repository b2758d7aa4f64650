r"""The sentences of an answer written in Markdown (`markdown_sentences()`): list markers, emphasis, code and links
dropped, table rows read as ``Header: cell``, short headings ending with ``:``.

>>> markdown_sentences("## Hours\n- **Mon-Fri:** 9 am - 5 pm\n- Closed on *Sundays*.")
['Hours:', 'Mon-Fri: 9 am - 5 pm', 'Closed on Sundays.']
"""

from __future__ import annotations

import re

from ..text.basics import split_sentences

__all__ = ["markdown_sentences", "plain_spaces"]

_I = re.IGNORECASE


def plain_spaces(sentence: str) -> str:
    """Whitespace runs as one space, curly apostrophes straight."""
    return " ".join(sentence.replace("’", "'").split())


_MD_BLOCK = re.compile(
    r"^[ \t]*(?:#{1,6}(?:[ \t]|$)|[-*+•][ \t]+\S|\d{1,3}[.)][ \t]+\S|[a-z]\)[ \t]+\S|>|\||```|~~~|step[ \t]+\d{1,3}[ "
    r"\t]*"
    r"[:.)]|(?:[-*_][ \t]*){3,}$|={3,}[ \t]*$)",
    re.MULTILINE | _I,
)
_MD_INLINE = re.compile(r"\*\*|__|`|~~|\[[^\]\n]{1,200}\]\(|(?<![\w*])\*[^\s*]|(?<!\w)_[^\s_]|\|.*\|")
_ITEM = re.compile(r"^[ \t]*(?:[-*+•]|\d{1,3}[.)]|[a-z]\))[ \t]+(?:\[[ xX]\][ \t]+)?(?=\S)")
_STEP = re.compile(r"^[ \t]*step[ \t]+\d{1,3}[ \t]*[:.)-][ \t]*", _I)
_LABEL = re.compile(r"^[ \t]*(?:(?:\*\*|__)[^*_\n]{1,80}(?:\*\*|__)|[^\W\d_][^:\n]{0,40}:[ \t]+\S)")
_RULE = re.compile(r"^[ \t]*(?:(?:[-*_][ \t]*){3,}|={3,}[ \t]*)$")
_TABLE_SEP = re.compile(r"^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$")
_BOLD_LINE = re.compile(r"(?:\*\*|__)[^*_\n]{1,150}(?:\*\*|__) ?:?")
_INLINE = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"!?\[([^\]\n]*)\]\([^)\n]*\)", r"\1"),
        (r"<(https?://[^>\s]{1,500})>", r"\1"),
        (r"<[bB][rR] ?/?>", " "),
        (r"`+([^`\n]*)`+", r"\1"),
        (r"\*\*([^*\n]+)\*\*", r"\1"),
        (r"__([^_\n]+)__", r"\1"),
        (r"~~([^~\n]+)~~", r"\1"),
        (r"(?<![\w*\\])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*\\])\*(?![\w*])", r"\1"),
        (r"(?<![\w\\])_(?=[^\s_])([^_\n]+?)(?<=[^\s_\\])_(?!\w)", r"\1"),
        (r"\*\*([^*\n]+)\*\*", r"\1"),
        (r"\\([\\`*_{}\[\]()#+\-.!|>~])", r"\1"),
    )
)


def _inline(text: str) -> str:
    for pattern, replacement in _INLINE:
        text = pattern.sub(replacement, text)
    return text


def _cells(line: str) -> list[str]:
    inner = line.strip().removeprefix("|")
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [plain_spaces(_inline(cell)) for cell in re.split(r"(?<!\\)\|", inner)]


def _heading_text(text: str) -> str:
    text = plain_spaces(_inline(text)).rstrip("#").strip()
    return text + ":" if text and len(text.split()) <= 10 and text[-1] not in ".:!?;" else text


def _flush(prose: list[str], out: list[str]) -> list[str]:
    """Split the paragraph in ``prose`` into ``out``; the next paragraph's (empty) list."""
    if prose:
        out.extend(split_sentences(_inline(" ".join(prose))))
    return []


def markdown_sentences(text: str) -> list[str]:
    r"""The sentences of an answer written in Markdown; plain prose is `split_sentences()`'s.

    List items (``-``, ``*``, ``+``, ``1.``, ``1)``, ``Step 1:``) lose their markers, and emphasis, inline code and
    links
    theirs (``**Hours:** 10 am`` reads ``Hours: 10 am``); each item, ``Key: value`` line and paragraph is split. A
    heading
    of few words ends with ``:`` (a ``heading`` to `non_claim()`); a table row reads ``Header: cell; Header: cell``.

    >>> markdown_sentences("| Day | Hours |\n|---|---|\n| Monday | 9-5 |")
    ['Day: Monday; Hours: 9-5']
    >>> markdown_sentences("One. Two.") == split_sentences("One. Two.")
    True
    """
    if not _MD_BLOCK.search(text) and not _MD_INLINE.search(text):
        return split_sentences(text)
    out: list[str] = []
    prose: list[str] = []
    header: list[str] | None = None
    lines, fenced, item = text.splitlines(), False, False
    for index, line in enumerate(lines):
        stripped, following = line.strip(), lines[index + 1] if index + 1 < len(lines) else ""
        if stripped.startswith(("```", "~~~")):
            fenced, prose = not fenced, _flush(prose, out)
        elif fenced:
            out.extend([stripped] if stripped else [])
        elif "|" in stripped and (stripped.startswith("|") or _TABLE_SEP.match(following) or header is not None):
            prose = _flush(prose, out)
            if _TABLE_SEP.match(stripped):
                continue
            cells = _cells(stripped)
            if _TABLE_SEP.match(following):
                header = cells
                continue
            pairs = zip(header, cells) if header is not None and len(header) == len(cells) else (("", c) for c in cells)
            row = "; ".join(f"{h}: {c}" if h else c for h, c in pairs if c)
            out.extend([row] if row else [])
            continue
        elif not stripped:
            prose = _flush(prose, out)
        elif _RULE.match(line):
            # a Setext heading's underline
            last = prose.pop() if prose and re.match(r"^[ \t]*(?:=+|-+)[ \t]*$", line) else None
            prose = _flush(prose, out)
            out.extend([_heading_text(last)] if last else [])
        elif re.match(r"^ {0,3}#{1,6}(?:[ \t]|$)", line) or _BOLD_LINE.fullmatch(stripped):
            prose, heading = _flush(prose, out), _heading_text(stripped.lstrip("#"))
            out.extend([heading] if heading else [])
        elif _ITEM.match(line) or _STEP.match(line):
            _flush(prose, out)
            prose, item = [_STEP.sub("", _ITEM.sub("", line, count=1), count=1)], True
        elif line[:1] in (" ", "\t") and prose:
            prose.append(stripped)  # the continuation of a list item or a paragraph
        else:
            if item or _LABEL.match(line):  # "**Hours:** 10 am - 8 pm" lines are read one by one
                prose, item = _flush(prose, out), False
            prose.append(stripped.lstrip("> ").strip() if stripped.startswith(">") else stripped)
        header = header if "|" in stripped else None
    _flush(prose, out)
    return out
