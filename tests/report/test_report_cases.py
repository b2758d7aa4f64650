"""Dataset rows spelled as the seeds spell their columns load; a row with an unknown key is refused."""

from __future__ import annotations

import json

import pytest

from pytest_llmeval import Case, CaseFileError, load_cases, read_cases


def _jsonl(path, *rows):
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_seed_002_spelling_loads_the_expected_answer(tmp_path):
    # seed 002's dataset table: "input", "expected output", "metadata"
    row = {
        "input": {
            "question": "What is the capital of Australia?",
            "conversation_history": [{"role": "user", "content": "Capital of France?"}],
        },
        "expected output": {"answer": "Canberra"},
        "metadata": {"category": "Geography", "difficulty": "Easy"},
    }
    [case] = load_cases(_jsonl(tmp_path / "seed.jsonl", row))
    assert case.expected == ("Canberra",)
    assert case.question == "What is the capital of Australia?" and case.history[0]["content"] == "Capital of France?"
    assert case.metadata == {"category": "Geography", "difficulty": "Easy"}


@pytest.mark.parametrize(
    "spelling, field, value, seen",
    [
        ("expected output", "expected", "Canberra", ("Canberra",)),  # seeds 002, 004
        ("Expected answer", "expected", "Canberra", ("Canberra",)),  # seed 000
        ("actual output", "actual", "Canberra.", "Canberra."),  # seed 004
        ("Actual answer", "actual", "Canberra.", "Canberra."),  # seed 000
        ("actual-output", "actual", "Canberra.", "Canberra."),
        ("retrieval context", "context", ["Canberra is the capital."], ("Canberra is the capital.",)),  # seed 004
        ("retrieval_context", "context", ["Canberra is the capital."], ("Canberra is the capital.",)),
        ("Retrieved context", "context", ["Canberra is the capital."], ("Canberra is the capital.",)),  # seed 000
        ("retrieved contexts", "context", ["Canberra is the capital."], ("Canberra is the capital.",)),  # seed 001
        ("Question", "question", "Capital of Australia?", "Capital of Australia?"),
        ("conversation history", "history", [{"role": "user", "content": "hi"}], None),
        ("case_id", "case_id", "au", "au"),
        ("answer", "expected", "Canberra", ("Canberra",)),  # README: expected_output.answer (or expected, answer)
    ],
)
def test_seed_spellings_are_aliases(tmp_path, spelling, field, value, seen):
    row = {spelling: value} if field == "case_id" else {"id": "au", spelling: value}
    [case] = load_cases(_jsonl(tmp_path / "rows.jsonl", row))
    got = getattr(case, field)
    if field == "history":
        assert got[0]["content"] == "hi"
    else:
        assert got == seen
    assert getattr(Case.from_record(row), field) == got


def test_spellings_load_alike_in_every_file_type(tmp_path):
    yaml = pytest.importorskip("yaml")
    row = {
        "id": "au",
        "input": "Capital of Australia?",
        "expected output": "Canberra",
        "actual output": "Canberra.",
        "retrieval context": ["Canberra is the capital."],
    }
    _jsonl(tmp_path / "c.jsonl", row)
    (tmp_path / "c.json").write_text(json.dumps([row]))
    (tmp_path / "c.yaml").write_text(yaml.safe_dump([row]))
    (tmp_path / "c.csv").write_text(
        "id,input,expected output,actual output,retrieval context\n"
        'au,Capital of Australia?,Canberra,Canberra.,"[""Canberra is the capital.""]"\n'
    )
    for suffix in ("jsonl", "json", "yaml", "csv"):
        [case] = load_cases(tmp_path / f"c.{suffix}")
        assert (case.case_id, case.question, case.expected, case.actual, case.context) == (
            "au",
            "Capital of Australia?",
            ("Canberra",),
            "Canberra.",
            ("Canberra is the capital.",),
        ), suffix
        assert "expected output" not in case.metadata, suffix


@pytest.mark.parametrize(
    "name, text, where",
    [
        (
            "bad.jsonl",
            '{"id": "a", "expected": "x"}\n\n{"id": "b", "expected_outptu": {"answer": "x"}}\n',
            r"bad.jsonl:3",
        ),
        ("bad.json", '[{"id": "a"}, {"id": "b", "expected_outptu": "x"}]', r"bad.json: row 1"),
    ],
)
def test_unknown_key_is_refused_naming_key_row_and_accepted_keys(tmp_path, name, text, where):
    (tmp_path / name).write_text(text)
    with pytest.raises(ValueError, match=where + r": not a valid case: unknown key 'expected_outptu'") as info:
        load_cases(tmp_path / name)
    assert isinstance(info.value, CaseFileError)
    message = str(info.value)
    for accepted in (
        "'input'",
        "'expected_output'",
        "'actual_output'",
        "'retrieved_context'",
        "'metadata'",
        "'expected output'",
    ):
        assert accepted in message


def test_unknown_key_in_yaml_names_its_line(tmp_path):
    pytest.importorskip("yaml")
    (tmp_path / "bad.yaml").write_text("- id: a\n- id: b\n  expectd: x\n")
    with pytest.raises(CaseFileError, match=r"bad.yaml:2: not a valid case: unknown key 'expectd'"):
        read_cases(tmp_path / "bad.yaml")


def test_from_record_refuses_unknown_and_doubled_keys():
    with pytest.raises(ValueError, match=r"unknown key 'notes'.*accepted keys"):
        Case.from_record({"actual": "x", "notes": "y"})
    with pytest.raises(ValueError, match=r"'expected output' and 'expected_output' both give the 'expected' field"):
        Case.from_record({"expected_output": "a", "expected output": "b"})


def test_csv_keeps_other_columns_as_metadata(tmp_path):
    (tmp_path / "c.csv").write_text("id,expected output,category\nq1,Paris,geo\n")
    [case] = load_cases(tmp_path / "c.csv")
    assert case.expected == ("Paris",) and dict(case.metadata) == {"category": "geo"}


def test_csv_columns_that_fill_one_field_twice_are_refused(tmp_path):
    (tmp_path / "c.csv").write_text("id,expected,expected output\nq1,Paris,Lyon\n")
    with pytest.raises(
        CaseFileError, match=r"c.csv:2: not a valid case: columns 'expected' and 'expected output' both give"
    ):
        read_cases(tmp_path / "c.csv")
