"""Shared helpers for the plugin tests."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

# pytester's in-process runs forget modules first imported inside them, and
# numpy refuses to be imported twice in one process: import the evaluators'
# libraries here, once, before any in-process run.
import hypothesis.internal.observability  # noqa: F401  (hypothesis's plugin imports it at every summary)
import jsonschema  # noqa: F401
import numpy  # noqa: F401
import pytest
from nltk.translate import bleu_score  # noqa: F401
from rouge_score import rouge_scorer  # noqa: F401

try:  # the toxicity model's libraries, when installed (same reason)
    import profanity_check  # noqa: F401
    import sklearn  # noqa: F401
except ImportError:
    pass
# Our own light modules too: an in-process run that first imports one would leave the next run
# with two copies of a class (a Case that is not a Case).
import pytest_llmeval.run.check  # noqa: F401,E402
import pytest_llmeval.core.evaluator  # noqa: F401,E402
import pytest_llmeval.harness.dataset  # noqa: F401,E402
import pytest_llmeval.report  # noqa: F401,E402
import pytest_llmeval.report.aggregate  # noqa: F401,E402
import pytest_llmeval.text.perturbators  # noqa: F401,E402

try:  # spaCy and its English model, for the fact layer (same reason: its registries break on a second import)
    import spacy  # noqa: F401
except ImportError:
    pass

try:  # the judge's client (same reason)
    import openai  # noqa: F401
except ImportError:
    pass

try:  # the cassettes' recorder, which patches the HTTP clients (same reason)
    import vcr  # noqa: F401
except ImportError:
    pass


@pytest.fixture(scope="module")
def models():
    """One CPU model cache per test module, without a disk cache (a module may define its own)."""
    from pytest_llmeval.models.cache import ModelCache

    return ModelCache(device="cpu", cache_dir=None, announce=lambda line: None)


@pytest.fixture(scope="module")
def model_stack(models):
    """sentence-transformers imported and the embedded model run in this process; ask for it before ``pytester``.

    pytester removes, after its run, the modules first imported while it was set up; importing the
    model stack first keeps transformers' lazily loaded modules whole for the tests after it.
    """
    pytest.importorskip("sentence_transformers")
    models.embedder().encode(["warm up"])


@pytest.fixture
def make(models):
    """``make(name, **params)``: a registered evaluator bound to the module's model cache."""
    from pytest_llmeval import Registry

    registry = Registry(entry_points=False)

    def make(name, **params):
        evaluator = registry.create(name, **params)
        evaluator.bind(models)
        return evaluator

    return make


@pytest.fixture
def server():
    """A real OpenAI-protocol HTTP server on loopback, with scripted replies and faults (tests/judge_server.py)."""
    from tests.judge_server import ScriptedJudgeServer

    running = ScriptedJudgeServer().start()
    yield running
    running.stop()


@pytest.fixture
def junit_properties():
    """Parse a JUnit file into {testcase name: [(property, value), ...]} and the suite properties."""

    def parse(path):
        root = ET.parse(path).getroot()
        suite = root if root.tag == "testsuite" else root.find("testsuite")
        cases = {}
        for case in suite.iter("testcase"):
            props = case.find("properties")
            cases[case.get("name")] = [] if props is None else [(p.get("name"), p.get("value")) for p in props]
        suite_props = suite.find("properties")
        suite_values = {} if suite_props is None else {p.get("name"): p.get("value") for p in suite_props}
        return cases, suite_values

    return parse


@pytest.fixture
def read_json():
    def read(path):
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)

    return read


# -- tiny randomly initialised models, for the real loading and batching code paths ----------

WORDS = [
    "[PAD]",
    "[UNK]",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "the",
    "cat",
    "sat",
    "on",
    "mat",
    "dog",
    "ran",
    "ignore",
    "all",
    "previous",
    "instructions",
    "women",
    "are",
    "bad",
    "at",
    "math",
    ".",
]


def _vocab(folder):
    from transformers import BertTokenizer

    (folder / "vocab.txt").write_text("\n".join(WORDS) + "\n")
    BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder)


def tiny_classifier(folder, labels):
    """A 1-layer BERT sequence classifier with the given class names, saved to ``folder``."""
    from transformers import BertConfig, BertForSequenceClassification

    _vocab(folder)
    config = BertConfig(
        vocab_size=len(WORDS),
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=128,
        num_labels=len(labels),
        id2label=dict(enumerate(labels)),
        label2id={label: i for i, label in enumerate(labels)},
    )
    BertForSequenceClassification(config).save_pretrained(folder)
    return str(folder)


def tiny_causal_lm(folder):
    """A 1-layer GPT-2 with a word-piece vocabulary, saved to ``folder``."""
    from transformers import GPT2Config, GPT2LMHeadModel

    _vocab(folder)
    GPT2LMHeadModel(GPT2Config(vocab_size=len(WORDS), n_positions=128, n_embd=16, n_layer=1, n_head=2)).save_pretrained(
        folder
    )
    return str(folder)


def pytest_collection_modifyitems(items):
    """Mark the tests that start pytest in a subprocess or under xdist: ``-m "not subprocess"`` is the fast loop."""
    import inspect

    for item in items:
        function = getattr(item, "function", None)
        try:
            source = inspect.getsource(function) if function is not None else ""
        except (OSError, TypeError):
            continue
        if "runpytest_subprocess" in source or '"-n"' in source or "workers" in inspect.signature(function).parameters:
            item.add_marker(pytest.mark.subprocess)
