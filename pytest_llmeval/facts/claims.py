r"""The sentences of an answer that claim nothing about its source, and the lead-ins that frame those that do.

An LLM's answer says more than its claims: it names its sources ("Based on the provided passages, ..."), echoes the
prompt
("Here is a summary of the article in 94 words:"), signs off ("I hope this helps!") and says what the sources lack ("The
passages do not mention the price."). Read as claims, such sentences fail as sharing nothing with the context. Regular
expressions written from how models phrase them tell them apart (case-insensitive; whitespace runs read as one space,
curly
apostrophes as straight ones; no nested quantifiers, so any model output is read in linear time): `framing()` (a
lead-in that frames a claim, and the claim left to check), `non_claim()` (why a sentence claims nothing),
`refusal()` (the sources lack the answer: neither a hallucination nor a confirmed fact) and `markdown_sentences()`.
The expressions themselves are in `pytest_llmeval.facts.phrasing` (sources, lead-ins, refusals) and
`pytest_llmeval.facts.asides` (echoes, talk about the sources, closings, openers, self-assessments, hedges).

>>> framing("Based on the provided passages, the tower is 330 m tall.")
('Based on the provided passages', 'the tower is 330 m tall.')
>>> non_claim("Let me know if you have any further questions."), refusal("The passages do not mention the price.")
('closing', True)
>>> markdown_sentences("## Hours\n- **Mon-Fri:** 9 am - 5 pm\n- Closed on *Sundays*.")
['Hours:', 'Mon-Fri: 9 am - 5 pm', 'Closed on Sundays.']
"""

from __future__ import annotations

import re

from .asides import ABOUT, ASSESSMENTS, CLOSINGS, ECHOES, HEDGES, OPENERS
from .markdown import markdown_sentences, plain_spaces as _norm
from .names import FUNCTION_WORDS
from .phrasing import CITATION, FRAMES, NAMES_SOURCE, REFUSALS, SOURCE_LACKS, TRAILING, UNKNOWN

__all__ = ["framing", "non_claim", "refusal", "markdown_sentences", "REASONS"]

#: What `non_claim()` answers, besides ``None``.
REASONS = ("refusal", "prompt echo", "heading", "about the sources", "closing", "opener", "self-assessment", "hedge")

_I = re.IGNORECASE


_WORDY = re.compile(r"[^\W_]")


def framing(sentence: str) -> tuple[str, str] | None:
    """The framing of a claim and the claim it frames, or ``None`` when the sentence has none.

    A lead-in about the sources ("Based on the provided passages,", "According to passage [2],", "The context states
    that",
    "As mentioned in the text,"), a label ("Answer:"), a note ("Please note that"), a hedge ("I'm not sure, but"), an
    attribution at the end or citation marks ("[1]", "(Passage 2)"): several are joined by ``", "``. A sentence that
    names no source is not framed ("Based in Paris, the firm employs 300 people.").

    >>> framing("According to passage [2], it is clear that the museum opens at 9 am.")
    ('According to passage [2], it is clear that', 'the museum opens at 9 am.')
    >>> framing("The tower is 330 m tall, according to the article."), framing(
    ...     "Based in Paris, the firm employs 300 people.")
    (('according to the article', 'The tower is 330 m tall.'), None)
    """
    rest, leads = _norm(sentence), []
    for _ in range(6):
        for pattern in FRAMES:
            match = pattern.match(rest)
            if match and _WORDY.search(match.group("rest")):
                leads.append(match.group("lead").rstrip(" ,:;–—-"))
                rest = match.group("rest").strip()
                break
        else:
            break
    trailing = TRAILING.match(rest)
    if trailing and _WORDY.search(trailing.group("rest")):
        leads.append(trailing.group("lead") or trailing.group("lead2"))
        rest = trailing.group("rest").rstrip(" ,") + trailing.group("end")
    cited = CITATION.sub("", rest)
    if cited != rest and _WORDY.search(cited):
        leads.extend(m.group(0).strip() for m in CITATION.finditer(rest))
        rest = cited
    return (", ".join(leads), rest) if leads else None


def refusal(sentence: str) -> bool:
    """Whether the sentence says that the sources lack the answer: neither a hallucination nor a confirmed fact.

    "The passages do not mention ...", "There is no information in the text about ...", "I could not find ... in the
    provided documents", "I don't know.", also after a lead-in ("Based on the passages, I cannot determine ..."); not a
    sentence about the world ("The museum does not open on Mondays.", "The company is not listed on the exchange.").

    >>> refusal("Unfortunately, the provided context does not contain information about parking.")
    True
    >>> refusal("The museum does not open on Mondays."), refusal("There is no evidence that it causes cancer.")
    (False, False)
    """
    text = _norm(sentence)
    framed = framing(text)
    return _refuses(text) or (framed is not None and (_refuses(framed[1]) or _lacks(framed)))


def _refuses(text: str) -> bool:
    return bool(REFUSALS.search(text) or UNKNOWN.match(text))


def _lacks(framed: tuple[str, str]) -> bool:
    """A lead-in that names the sources, then "there is no indication that ...": the sources lack it."""
    return bool(NAMES_SOURCE.search(framed[0]) and SOURCE_LACKS.match(framed[1]))


_WH = re.compile(r"^\W*(?:what|who|whom|whose|which|when|where|why|how)\b", _I)
_LETTERS = re.compile(r"[^\W\d_]+")
_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|none|nothing|cannot)\b|n't\b", _I)
_GLUE = frozenset(
    {"the", "a", "an", "is", "are", "was", "were", "be", "been", "it", "this", "that", "these", "those", "by"}
)


def _restates(text: str, question: str) -> bool:
    """The sentence is the question, or only the question's words as a statement ("The Eiffel Tower was designed" for
    "Who designed the Eiffel Tower?"): never for a yes-or-no or either-or question, whose statement answers it."""
    if _norm(text).rstrip(" ?.!:").casefold() == _norm(question).rstrip(" ?.!:").casefold():
        return True
    if (
        not _WH.match(question)
        or re.search(r"\bor\b", question, _I)
        or re.search(r"\d", text)
        or _NEGATION.search(text)
    ):
        return False
    own, asked = (
        {
            w.casefold().removesuffix("s")
            for w in _LETTERS.findall(t)
            if len(w) > 2 and w.casefold() not in FUNCTION_WORDS
        }
        for t in (text, question)
    )
    # Every word of the sentence, function words too, is the question's ("... won the cup once" answers "how many
    # times").
    added = {w.casefold() for w in _LETTERS.findall(text)} - {w.casefold() for w in _LETTERS.findall(question)} - _GLUE
    return not added and len(own) >= 2 and own <= asked and len(own) >= 0.75 * len(asked)


_HEADING_MD = re.compile(r"^ {0,3}#{1,6}(?: |$)|^(?:\*\*|__)[^*_]{1,150}(?:\*\*|__) ?:?$")
_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|will|would|can|could|does|do|did)\b", _I)
_INTRO = re.compile(
    r"\b(?:are|include|includes|including|follows|following|below|these|is|were|was|contain|contains|as|like|list|"
    r"steps|"
    r"points|options|here|of|such|are as|following items|are listed)\W*$",
    _I,
)


def _heading(text: str) -> bool:
    """A Markdown heading of few words, or a short line ending with ``:`` ("Key points:", "The main ingredients
    are:")."""
    if _HEADING_MD.match(text):
        return len(text.split()) <= 11
    if not text.endswith(":") or text.endswith("::"):
        return False
    words = text[:-1].split()
    return (
        len(words) <= 4
        or (len(words) <= 8 and not re.search(r"\d", text) and not _VERB.search(text))
        or (len(words) <= 14 and bool(_INTRO.search(text[:-1])))
    )


_DIGIT = re.compile(r"\d")
_OTHERS = (("closing", CLOSINGS), ("self-assessment", ASSESSMENTS), ("hedge", HEDGES))


def _reason(text: str, question: str | None) -> str | None:
    if _refuses(text):
        return "refusal"
    if ECHOES.search(text) or (question and _restates(text, question)):
        return "prompt echo"
    if ABOUT.search(text):
        return "about the sources"
    if _heading(text):
        return "heading"
    if _DIGIT.search(text.replace("100%", "")):
        return None  # a number, a date, an address: a fact to check, however the sentence is phrased
    if OPENERS.search(text) and not (question and not _WH.match(question)):
        return "opener"  # "Sure!" answers a yes-or-no question
    return next((reason for reason, pattern in _OTHERS if pattern.search(text)), None)


def non_claim(sentence: str, question: str | None = None) -> str | None:
    """Why the sentence claims nothing about the source (one of `REASONS`), or ``None``.

    ``refusal`` (`refusal()`), ``prompt echo`` ("Here is a summary in 94 words:", "The question asks about ...", the
    answer's length or format, the ``question`` itself or only its words), ``heading`` ("## Summary", "Key points:"),
    ``about the sources`` ("The passages are not relevant to the question.", "Let me analyze the passages."), and, with
    no number in it, ``opener`` ("Great question!"), ``closing`` ("I hope this helps!"), ``self-assessment`` ("I can
    confidently answer the question.") or ``hedge`` ("Prices may vary."). A framed claim is a claim ("Please note that
    the
    store closes at 5 pm."), but what a lead-in frames is read too ("Please note that this may be outdated." is a
    hedge).

    >>> non_claim("Here is a summary of the article in 94 words:"), non_claim("Passage 2 says the tower is 330 m tall.")
    ('prompt echo', None)
    >>> non_claim("Therefore, I can confidently answer the question."), non_claim("## Key points")
    ('self-assessment', 'heading')
    """
    text = _norm(sentence)
    if not _WORDY.search(text):
        return None
    reason = _reason(text, question)
    if reason is None:
        framed = framing(text)
        if framed:
            reason = "refusal" if _lacks(framed) else _reason(framed[1], question)
    return reason
