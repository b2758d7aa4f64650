"""Perturbators: reproducible on every machine, each doing what it says; the dataset loader; Hypothesis strategies."""

from __future__ import annotations

import base64
import json

import pytest

from pytest_llmeval import CaseFileError, Perturbation, cases, load_cases, perturb, perturbation, read_cases
from pytest_llmeval.text.perturbators import ANTONYMS, PERTURBATORS, SYNONYMS, parse_perturbations

TEXT = "What was the revenue in Brazil in 2023? Please answer briefly."

# Fixed outputs: random.Random seeded with a string hashes it with SHA-512, so these hold on every machine and Python.
EXPECTED = {
    "typos": "What was the r3vemue in Brazil in 2023? Please answer briefly.",
    "char_swap": "What was the revenue in Brazil in 2023? Plesae answer brielfy.",
    "char_delete": "What was the revenue in Brazil in 2023? lease answer briefl.",
    "whitespace": "What was the revenue in Brazil   in \t 2023? Please answer briefly.",
    "punctuation": "What was the revenue in, Brazil in 2023 Please answer briefly.",
    "word_swap": "What was the revenue in Brazil in 2023? Please briefly. answer",
    "ocr": "What was thc revenue in Brazil in 2O23? Please answer briefly.",
    "synonym": "What was the turnover in Brazil in 2023? Please answer briefly.",
    "uppercase": TEXT.upper(),
    "lowercase": TEXT.lower(),
    "titlecase": TEXT.title(),
    "rot13": "Jung jnf gur erirahr va Oenmvy va 2023? Cyrnfr nafjre oevrsyl.",
    "copy": TEXT,
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_same_seed_same_text_everywhere(name):
    assert perturb(TEXT, name, seed=1729) == EXPECTED[name]


def test_seeds_and_texts_vary_the_noise():
    outputs = {perturb(TEXT, "typos", seed=s) for s in range(20)}
    assert len(outputs) > 10 and TEXT not in outputs
    assert perturb("a b c d e f", "word_swap", seed=3, n=2) != perturb("a b c d e f", "word_swap", seed=4, n=2)


def test_rates_bound_the_damage():
    long = TEXT * 10
    changed = sum(a != b for a, b in zip(long, perturb(long, "typos", seed=1, rate=0.1)))
    letters = sum(ch.isalpha() for ch in long)
    assert changed == round(letters * 0.1)
    assert perturb(TEXT, "typos", rate=0.0) == TEXT
    for name in ("typos", "char_swap", "char_delete", "ocr", "whitespace", "punctuation"):
        assert perturb("", name) == ""


def test_encodings_round_trip():
    assert base64.b16decode(perturb(TEXT, "base16")).decode() == TEXT
    assert base64.b64decode(perturb(TEXT, "base64")).decode() == TEXT
    assert perturb(perturb(TEXT, "rot13"), "rot13") == TEXT


def test_word_lists():
    assert (
        perturb("The big company had a large increase in revenue.", "antonym", seed=1, n=2)
        == "The small company had a large decrease in revenue."
    )
    assert perturb("Prices Increase", "antonym", n=5) == "Prices Decrease"
    # every antonym leads back: to the word itself, or to one of its synonyms (big -> small -> large)
    back = {word: ANTONYMS.get(ANTONYMS[word]) for word in ANTONYMS}
    assert all(back[word] == word or back[word] in SYNONYMS.get(word, ()) for word in ANTONYMS), {
        w: b for w, b in back.items() if b != w
    }
    assert all(word not in SYNONYMS[word] for word in SYNONYMS) and len(SYNONYMS) >= 100
    assert perturb("Nothing to swap here.", "synonym") == "Nothing to swap here."


def test_bad_perturbations_are_named():
    with pytest.raises(ValueError, match="unknown perturbation 'typo'; known perturbations: antonym, base16"):
        perturb(TEXT, "typo")
    with pytest.raises(
        ValueError, match="perturb 'typos': perturbation parameter 'rate' must be a number between 0 and 1; got 2"
    ):
        perturb(TEXT, "typos", rate=2)
    with pytest.raises(ValueError, match="takes no parameters; got rate"):
        perturb(TEXT, "uppercase", rate=0.1)
    with pytest.raises(TypeError, match="argument 'text' must be a str, got bytes"):
        perturb(b"x", "typos")
    with pytest.raises(ValueError, match="perturbation ids must be unique and not 'original'"):
        parse_perturbations(["typos", "typos"])
    assert [
        p.id for p in parse_perturbations(["typos", perturbation("typos", rate=0.2), perturbation("copy", n=2)])
    ] == ["typos", "typos(rate=0.2)", "copy1", "copy2"]
    assert set(PERTURBATORS) >= {"typos", "ocr", "synonym", "antonym", "base64", "rot13", "copy"}
    assert Perturbation("uppercase").apply("abc") == "ABC"


# -- datasets ------------------------------------------------------------------------------

ROWS = [
    {
        "id": "q1",
        "input": {"question": "Capital of France?"},
        "expected_output": {"answer": "Paris"},
        "metadata": {"category": "geo"},
        "model": "m",
        "actual_output": "Paris",
    },
    {
        "id": "q1-typos",
        "input": {"question": "Capitl of France?"},
        "expected_output": {"answer": "Paris"},
        "model": "m",
        "actual_output": "Lyon",
        "perturbation_of": "q1",
        "perturbation": "typos",
    },
]


def test_jsonl_json_csv_and_yaml_load_alike(tmp_path):
    (tmp_path / "c.jsonl").write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    (tmp_path / "c.json").write_text(json.dumps(ROWS))
    (tmp_path / "c.csv").write_text(
        "id,question,expected,model,actual,category,perturbation_of,perturbation\n"
        "q1,Capital of France?,Paris,m,Paris,geo,,\n"
        'q1-typos,Capitl of France?,"[""Paris""]",m,Lyon,,q1,typos\n'
    )
    yaml = pytest.importorskip("yaml")
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(ROWS))
    loaded = {suffix: load_cases(tmp_path / f"c.{suffix}") for suffix in ("jsonl", "json", "csv", "yaml")}
    for suffix, found in loaded.items():
        assert [(c.case_id, c.question, c.expected, c.actual, c.metadata.get("perturbation_of")) for c in found] == [
            ("q1", "Capital of France?", ("Paris",), "Paris", None),
            ("q1-typos", "Capitl of France?", ("Paris",), "Lyon", "q1"),
        ], suffix
    assert loaded["csv"][0].metadata["category"] == "geo"


@pytest.mark.parametrize(
    "name, text, message",
    [
        ("bad.jsonl", '{"id": "a"}\n{oops\n', r"bad.jsonl:2: not a valid case: not valid JSON"),
        ("bad.csv", "id,question\na,q\nb,q,extra\n", r"bad.csv:3: not a valid case: more cells than the 2 columns"),
        (
            "bad.yaml",
            "- id: a\n  expected: [1, {x: 2}]\n",
            r"bad.yaml:1: not a valid case: Case: argument 'expected'\[0\] must be a str",
        ),
        ("bad2.yaml", "- id: a\n- [unclosed\n", r"bad2.yaml:\d+: not valid YAML"),
        (
            "half.jsonl",
            '{"id": "a"}\n{"id": "b", "perturbation": "typos"}\n',
            r"half.jsonl:2: .*needs both 'perturbation_of'",
        ),
        ("bad.txt", "x", r"unknown case file type '.txt'"),
    ],
)
def test_bad_rows_name_file_and_line(tmp_path, name, text, message):
    if name.endswith(".yaml"):
        pytest.importorskip("yaml")
    (tmp_path / name).write_text(text)
    with pytest.raises(CaseFileError, match=message):
        read_cases(tmp_path / name)


def test_cases_become_tagged_params_with_readable_ids(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n")
    params = cases(path)
    assert [p.id for p in params] == ["m-q1", "m-q1-typos"]
    original, perturbed = (p.marks[0].kwargs for p in params)
    assert original == {"case": "q1", "model": "m", "category": "geo"}
    assert perturbed == {"case": "q1", "model": "m", "perturbation": "typos"}
    assert params[1].values[0].case_id == "q1"
    path.write_text("\n".join(json.dumps(r) for r in [ROWS[0], ROWS[0]]) + "\n")
    with pytest.raises(CaseFileError, match=r"c.jsonl:2: duplicate case 'q1' for model 'm' \(first at .*c.jsonl:1\)"):
        cases(path)
    path.write_text(json.dumps({**ROWS[1], "perturbation_of": "nope"}) + "\n")
    with pytest.raises(CaseFileError, match=r"c.jsonl:1: perturbation_of 'nope' names no original"):
        cases(path)


def test_hypothesis_strategies_give_reproducible_perturbed_text():
    hypothesis = pytest.importorskip("hypothesis")
    from hypothesis import given, settings

    from pytest_llmeval.strategies import perturbations, perturbed

    seen = []

    @settings(max_examples=30, derandomize=True, database=None)
    @given(perturbed(TEXT, names=["typos", "uppercase", "ocr"]))
    def check(text):
        assert isinstance(text, str) and text
        seen.append(text)

    check()
    assert len(set(seen)) > 3 and any(t == TEXT.upper() for t in seen)

    @settings(max_examples=10, derandomize=True, database=None)
    @given(perturbations(["typos"], max_rate=0.1))
    def rates(p):
        assert p.name == "typos" and 0 < p.params["rate"] <= 0.1

    rates()
    with pytest.raises(ValueError, match="argument 'names' must list perturbations"):
        perturbations(["typo"])
    assert hypothesis


def test_review_edge_cases(tmp_path):
    assert all(perturb("one two three", "word_swap", seed=s, n=2) != "one two three" for s in range(30))
    assert hash(perturbation("typos", rate=0.1)) == hash(perturbation("typos", rate=0.1))
    with pytest.raises(ValueError, match="copy takes only n"):
        perturbation("copy", rate=1)
    (tmp_path / "bom.csv").write_text("\ufeffid,question,model\nq1,Q?,m\n", encoding="utf-8")
    assert load_cases(tmp_path / "bom.csv")[0].case_id == "q1"
    (tmp_path / "multi.csv").write_text('id,question\nq1,"two\nlines"\nq2,x,extra\n')
    with pytest.raises(CaseFileError, match=r"multi.csv:4: not a valid case"):
        read_cases(tmp_path / "multi.csv")
    (tmp_path / "upper.JSON").write_text(json.dumps(ROWS, indent=2))
    assert len(load_cases(tmp_path / "upper.JSON")) == 2
    (tmp_path / "null.jsonl").write_text('{"id": "a", "input": null}\n{"id": "b", "input": 3}\n')
    with pytest.raises(CaseFileError, match=r"null.jsonl:2: not a valid case: 'input' must be a mapping"):
        read_cases(tmp_path / "null.jsonl")
    (tmp_path / "num.jsonl").write_text(
        '{"id": 1, "model": "m"}\n{"id": 2, "model": "m", "perturbation_of": 1, "perturbation": "x"}\n'
    )
    assert cases(tmp_path / "num.jsonl")[1].marks[0].kwargs["case"] == "1"
    (tmp_path / "other.jsonl").write_text(
        '{"id": "q", "model": "a"}\n{"model": "b", "perturbation_of": "q", "perturbation": "x"}\n'
    )
    with pytest.raises(
        CaseFileError, match=r"other.jsonl:2: perturbation_of 'q' names no original \(unperturbed\) row for model 'b'"
    ):
        cases(tmp_path / "other.jsonl")
    from pytest_llmeval.strategies import perturbations

    with pytest.raises(ValueError, match="'max_rate' must be between 0.01 and 1"):
        perturbations(["typos"], max_rate=0.005)
