"""The claim verifier tier: a tiny verifier trained here in seconds by the same code the shipped one was trained with
(`pytest_llmeval.models.verifier.train`), then the real loading, claim splitting, window choice and batching, and the
verifier deciding groundedness's unverified answers in pytest runs. The shipped verifier's quality is measured in
benchmarks/, never here; here it only has to load and read."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("transformers")

from tests.conftest import WORDS, _vocab  # noqa: E402

from pytest_llmeval.models import verifier as v  # noqa: E402
from pytest_llmeval.models.cache import ModelCache  # noqa: E402
from pytest_llmeval.models.config import ModelLoadError  # noqa: E402

PAIRS = [
    ("the cat sat on the mat .", "the cat sat on the mat .", 1),
    ("the cat sat on the mat .", "the dog ran .", 0),
    ("the dog ran .", "the dog ran .", 1),
    ("the dog ran .", "the cat sat .", 0),
] * 4


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    """A random two-layer BERT over the test vocabulary: the encoder a verifier starts from."""
    from transformers import BertConfig, BertForSequenceClassification

    folder = tmp_path_factory.mktemp("base")
    _vocab(folder)
    BertForSequenceClassification(
        BertConfig(
            vocab_size=len(WORDS),
            hidden_size=16,
            num_hidden_layers=2,
            num_attention_heads=2,
            intermediate_size=32,
            max_position_embeddings=128,
            num_labels=1,
        )
    ).save_pretrained(folder)
    return folder


def trained(base, folder, *, fail_below: float, pass_at: float, pick=None) -> tuple[str, dict]:
    """A verifier trained from ``base`` on `PAIRS` in a few steps, with the card's thresholds given."""
    run = v.train(PAIRS, base, folder, layers=1, batch_size=4, seed=3, checkpoints=2, pick=pick, log=lambda line: None)
    v.write_card(
        folder, {"version": "test", "base": "random", "thresholds": {"fail_below": fail_below, "pass_at": pass_at}}
    )
    return str(folder), run


def test_windows_claims_and_the_question_before_a_short_claim():
    context = ["The museum opens at 9 a.m. It closes at 5 p.m.", "Entry is free for children under 12."]
    # A window inside the one before it is not read twice.
    assert v.windows(context, words=11) == [
        "The museum opens at 9 a.m. It closes at 5 p.m.",
        "Entry is free for children under 12.",
    ]
    found = v.windows(context, words=0)
    assert v.best_windows("Children under 12 get in for free.", found, 1) == [2]
    assert v.best_windows("x", found[:1], 3) == [0]
    assert v.hypothesis("At 9 a.m.", "When does it open?") == "When does it open? At 9 a.m."
    assert (
        v.hypothesis("The museum opens every day of the week at 9 a.m.", "When?")
        == "The museum opens every day of the week at 9 a.m."
    )
    skip = lambda sentence, question: sentence.startswith("I hope")  # noqa: E731
    assert v.claims_of("It opens at 9. I hope this helps!", None, skip) == ["It opens at 9."]
    assert v.claims_of("  ", None) == [] and v.claims_of("...", None) == []


def test_training_keeps_the_best_checkpoint_and_saves_half_precision_weights(base, tmp_path):
    figures = iter([0.9, 0.1])
    folder, run = trained(
        base, tmp_path / "verifier", fail_below=0.1, pass_at=0.9, pick=lambda model, tokenizer: next(figures)
    )
    assert run["checkpoints"] == [0.9, 0.1] and run["kept"] == 1 and run["layers"] == 1 and run["steps"] == 4
    from safetensors import safe_open

    with safe_open(f"{folder}/model.safetensors", "pt") as weights:
        assert {weights.get_tensor(k).dtype for k in weights.keys()} == {torch.float16}
    card = v.VerifierCard.read(folder)
    assert (card.version, card.fail_below, card.pass_at) == ("test", 0.1, 0.9) and len(card.digest) == 64


@pytest.mark.parametrize(
    ("fail_below", "pass_at", "verdict"), [(1.0, 1.0, "fail"), (0.0, 0.0, "pass"), (0.0, 1.0, "unverified")]
)
def test_the_card_thresholds_decide_and_the_reading_names_claim_window_and_score(
    base, tmp_path, fail_below, pass_at, verdict
):
    folder, _ = trained(base, tmp_path / "verifier", fail_below=fail_below, pass_at=pass_at)
    verifier = v.Verifier(ModelCache(device="cpu"), folder)
    [reading] = verifier.detect([(["The cat sat on the mat.", "The dog ran."], None, "The dog ran. The cat sat.")])
    assert reading.verdict == verdict and 0 <= reading.support <= 1
    assert [claim for claim, _ in reading.claims] == ["The dog ran.", "The cat sat."]
    assert reading.support == min(score for _, score in reading.claims)
    assert set(reading.closest) == {"The cat sat on the mat. The dog ran."}
    worst = min(range(2), key=lambda i: reading.claims[i][1])
    said = f"claim {worst + 1} {reading.claims[worst][0]!r}"
    expected = {
        "fail": f"{said} is not supported by the context (verifier ",
        "pass": "every claim is supported by the context (least: ",
        "unverified": f"{said} is neither supported nor contradicted clearly (verifier ",
    }[verdict]
    assert reading.reason.startswith(expected) and "closest: '" in reading.reason
    assert verifier.label == f"verifier test card {verifier.card.digest[:12]}"
    assert reading.to_dict()["claims"][0]["closest"] in reading.closest


def test_batches_give_what_one_by_one_gives_and_nothing_to_read_is_unverified(base, tmp_path):
    folder, _ = trained(base, tmp_path / "verifier", fail_below=0.0, pass_at=1.0)
    verifier = v.Verifier(ModelCache(device="cpu"), folder)
    verifier.batch_size = 2
    items = [
        (["The cat sat on the mat."], None, "The cat sat."),
        (["The dog ran."], "The dog?", "Ran."),
        (["The dog ran. The cat sat on the mat. " * 8], None, "The mat. The dog. The cat."),
    ] * 2
    together = verifier.detect(items)
    alone = [verifier.detect([item])[0] for item in items]
    assert [r.claims for r in together] == [r.claims for r in alone]
    assert [r.support for r in together] == pytest.approx([r.support for r in alone], abs=1e-5)
    assert verifier.detect([([], None, "The cat sat.")])[0].reason.startswith(
        "no prose context to read the answer against"
    )
    verifier.record = lambda text: {} if text.startswith("{") else None
    assert verifier.detect([(['{"cat": "sat"}'], None, "The cat sat.")])[0].verdict == "unverified"
    assert verifier.detect([(["the cat ."], None, " ")])[0].verdict == "unverified"


def test_a_folder_without_a_card_or_weights_names_what_it_needs(base, tmp_path):
    with pytest.raises(ModelLoadError, match="card.json"):
        v.Verifier(ModelCache(device="cpu"), base)
    with pytest.raises(ModelLoadError, match="tools/train_verifier.py"):
        v.Verifier(ModelCache(device="cpu"), tmp_path)
    (tmp_path / "config.json").write_text("{}")
    (tmp_path / "card.json").write_text(json.dumps({"version": "1", "thresholds": {"fail_below": 0.9, "pass_at": 0.1}}))
    with pytest.raises(ModelLoadError, match="fail_below <= pass_at"):
        v.Verifier(ModelCache(device="cpu"), tmp_path)


def test_a_run_reads_a_verifier_card_once(base, tmp_path):
    """Every check call of a run with the verifier on gets the same Verifier: its card is read and hashed once."""
    from pytest_llmeval.checks.embedding.groundedness import Groundedness
    from pytest_llmeval.run.check import verifier_for

    folder, _ = trained(base, tmp_path / "v", fail_below=0.1, pass_at=0.9)
    models = ModelCache(device="cpu")
    first = verifier_for(Groundedness(), folder, models)
    assert first is not None and verifier_for(Groundedness(), folder, models) is first
    assert (
        verifier_for(Groundedness(), "off", models) is None
        and verifier_for(Groundedness(), folder, ModelCache()) is not first
    )


def test_the_shipped_verifier_loads_offline_and_reads_a_claim():
    card = v.VerifierCard.read(v.SHIPPED)
    assert (v.SHIPPED / "model.safetensors").stat().st_size <= 50 * 2**20
    assert card.fail_below <= card.pass_at and set(card.data["training"]) and card.data["development_auc"]
    [reading] = v.Verifier(ModelCache(device="cpu")).detect(
        [(["The museum closes at 5 p.m."], None, "The museum closes at 5 p.m.")]
    )
    assert 0 <= reading.support <= 1 and reading.claims[0][0] == "The museum closes at 5 p.m."


REWORDED = "Youngsters under twelve are admitted at no cost."
MUSEUM = "The Harbour Museum opens at 9 a.m. and closes at 5 p.m. Entry is free for children under 12."


@pytest.mark.parametrize("verdict", ["pass", "fail"])
def test_the_verifier_decides_groundedness_unverified_answers_in_a_run(pytester, base, tmp_path, verdict):
    folder, _ = trained(
        base,
        tmp_path / "verifier",
        fail_below=1.0 if verdict == "fail" else 0.0,
        pass_at=1.0 if verdict == "fail" else 0.0,
    )
    pytester.makepyfile(
        f"from pytest_llmeval import assert_grounded\n\n"
        f"def test_reworded():\n    assert_grounded({REWORDED!r}, [{MUSEUM!r}])\n\n"
        f"def test_wrong_age():\n    assert_grounded('Entry is free for children under 15.', [{MUSEUM!r}])\n"
    )
    result = pytester.runpytest("-p", "no:randomly", f"--llmeval-verifier={folder}", "--llmeval-report=out.json")
    result.assert_outcomes(**({"passed": 1, "failed": 1} if verdict == "pass" else {"failed": 2}))
    result.stdout.fnmatch_lines(
        [
            f"*1 answer the offline evidence left unverified went to the claim verifier: 1 "
            f"{'passed' if verdict == 'pass' else 'failed'}*"
        ]
    )
    if verdict == "fail":
        result.stdout.fnmatch_lines(
            [
                "*the verifier (verifier test card *) found the answer unsupported*",
                "*claim 1 'Youngsters under twelve are admitted at no cost.' is not supported by the context*",
            ]
        )
    records = {r["nodeid"].split("::")[-1]: r for r in json.loads((pytester.path / "out.json").read_text())["results"]}
    reworded, wrong = records["test_reworded"], records["test_wrong_age"]
    assert reworded["verdict"] == verdict and reworded["decided_by"] == "verifier"
    assert reworded["details"]["verifier"]["after"] == "rules"
    decision = reworded["decision"]
    assert decision["decided_by"] == "verifier" and decision["overruled"]["outcome"] == "unverified"
    assert decision["metrics"][0]["metric"] == "support"
    assert decision["metrics"][0]["threshold"] == (1.0 if verdict == "fail" else 0.0)  # the card's bound it was held to
    assert reworded["details"]["verifier"]["claims"][0]["closest"].startswith("The Harbour Museum")
    assert wrong["decided_by"] == "rules" and "verifier" not in wrong["details"]  # the rules decided it: no model call
    for record in (reworded, wrong):
        assert record["signature"]["params"]["verifier"].startswith("verifier test card ")


def test_the_option_says_what_it_expects(pytester, tmp_path):
    pytester.makepyfile("def test_nothing():\n    pass\n")
    result = pytester.runpytest(f"--llmeval-verifier={tmp_path / 'nowhere'}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--llmeval-verifier*expected on, off or a verifier folder holding card.json*"])
    assert pytester.runpytest("--llmeval-verifier=off").ret == 0


def test_a_call_switches_the_verifier_on_or_off_and_a_wrong_value_names_the_argument(pytester, base, tmp_path):
    folder, _ = trained(base, tmp_path / "verifier", fail_below=1.0, pass_at=1.0)
    pytester.makepyfile(
        f"import pytest\nfrom pytest_llmeval import assert_grounded, evaluate\n\n"
        f"def test_on():\n    assert_grounded({REWORDED!r}, [{MUSEUM!r}], verifier={folder!r})\n\n"
        f"def test_off():\n    assert_grounded({REWORDED!r}, [{MUSEUM!r}], verifier='off')\n\n"
        f"def test_wrong():\n    with pytest.raises(TypeError, match=\"argument 'verifier': expected on, off\"):\n"
        f"        evaluate('groundedness', actual='x', context=['y'], verifier=3)\n"
    )
    result = pytester.runpytest("-p", "no:randomly", "--llmeval-verifier=on", "--llmeval-report=out.json")
    outcomes = result.parseoutcomes()
    assert (outcomes["passed"], outcomes["unverified"], outcomes["failed"]) == (1, 1, 1)
    records = {r["nodeid"].split("::")[-1]: r for r in json.loads((pytester.path / "out.json").read_text())["results"]}
    assert records["test_on"]["decided_by"] == "verifier" and records["test_on"]["verdict"] == "fail"
    assert (
        records["test_off"]["verdict"] == "unverified" and "verifier" not in records["test_off"]["signature"]["params"]
    )
