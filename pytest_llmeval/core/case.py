"""The inputs of one check.

A `Case` mirrors one row of an evaluation dataset (the format of seed 002:
``input`` with the question and conversation history, ``expected_output``,
``metadata``), extended with what the system under test produced: the actual
answer, the retrieved context and the model's name.

>>> case = Case(actual="Paris", expected="Paris", question="Capital of France?")
>>> case.expected
('Paris',)
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any

__all__ = [
    "Case",
    "CASE_FIELDS",
    "CaseFileError",
    "ROW_KEYS",
    "load_cases",
    "read_cases",
    "read_case_rows",
    "parse_case_rows",
    "row_fields",
    "check_fields",
    "beside_caller",
]


#: What each field of a case means, used in error messages.
CASE_FIELDS: Mapping[str, str] = MappingProxyType(
    {
        "question": "the question or prompt sent to the model",
        "actual": "the actual answer produced by the model",
        "expected": "the expected answer (ground truth), one or several",
        "context": "the retrieved context, as ordered chunks",
        "conditions": 'a text-matching condition such as \'"15,969" AND NOT "Real"\'',
        "history": "the conversation history, as {'role', 'content'} messages",
        "model": "the name of the model under test",
        "case_id": "the id of the test case",
        "metadata": "free-form metadata",
    }
)


def _optional_text(owner: str, name: str, value: object) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"{owner}: argument {name!r} must be a str or None, got {type(value).__name__}")


def _json_value(value: object) -> object:
    """What JSON writes for a value it has no type for: a mapping as a dict, a set as a list, else its text."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def _record_text(owner: str, name: str, record: Mapping[Any, Any]) -> str:
    """A record given as a context chunk (a dict), as its JSON text."""
    try:
        return json.dumps(dict(record), ensure_ascii=False, default=_json_value)
    except (TypeError, ValueError, RecursionError) as exc:
        raise TypeError(f"{owner}: argument {name!r} is a mapping that cannot be written as JSON: {exc}") from None


def _texts(owner: str, name: str, value: object) -> tuple[str, ...]:
    """Normalise one text or a sequence of texts into a tuple of str; a ``context`` chunk may be a mapping (a
    record), kept as its JSON text."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if name == "context" and isinstance(value, Mapping):
        return (_record_text(owner, name, value),)
    if isinstance(value, (bytes, bytearray)) or not isinstance(value, Iterable):
        raise TypeError(f"{owner}: argument {name!r} must be a str or a sequence of str, got {type(value).__name__}")
    items = tuple(value)
    if name == "context":
        items = tuple(
            _record_text(owner, f"{name}[{i}]", v) if isinstance(v, Mapping) else v for i, v in enumerate(items)
        )
    for index, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"{owner}: argument {name!r}[{index}] must be a str, got {type(item).__name__}")
    return items


def _history(owner: str, value: object) -> tuple[Mapping[str, str], ...]:
    if value is None:
        return ()
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(
            f"{owner}: argument 'history' must be a sequence of {{'role', 'content'}} mappings, "
            f"got {type(value).__name__}"
        )
    messages = []
    for index, message in enumerate(value):
        if not isinstance(message, Mapping) or not isinstance(message.get("content"), str):
            raise TypeError(
                f"{owner}: argument 'history'[{index}] must be a mapping with a str 'content' "
                f"and a 'role', got {message!r:.80}"
            )
        messages.append(MappingProxyType({"role": str(message.get("role", "user")), "content": message["content"]}))
    return tuple(messages)


@dataclass(frozen=True)
class Case:
    """The inputs of one check; immutable.

    Args:
        actual: The actual answer produced by the model under test.
        expected: The expected answer, or several acceptable ones.
        question: The question or prompt.
        context: The retrieved context, one chunk or ordered chunks; a chunk may be a record (a mapping), kept as
            its JSON text.
        conditions: A text-matching condition (see `pytest_llmeval.text.conditions`).
        history: The conversation history before the question.
        model: The name of the model under test.
        case_id: The id of this case, used to find the most difficult case.
        metadata: Free-form metadata (category, difficulty, perturbation, ...).
    """

    actual: str | None = None
    expected: tuple[str, ...] = ()
    question: str | None = None
    context: tuple[str, ...] = ()
    conditions: str | None = None
    history: tuple[Mapping[str, str], ...] = ()
    model: str | None = None
    case_id: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        owner = "Case"
        for name in ("actual", "question", "conditions", "model", "case_id"):
            _optional_text(owner, name, getattr(self, name))
        object.__setattr__(self, "expected", _texts(owner, "expected", self.expected))
        object.__setattr__(self, "context", _texts(owner, "context", self.context))
        object.__setattr__(self, "history", _history(owner, self.history))
        if not isinstance(self.metadata, Mapping):
            raise TypeError(f"Case: argument 'metadata' must be a mapping, got {type(self.metadata).__name__}")
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))

    def has(self, name: str) -> bool:
        """Whether the field ``name`` was given (an empty string counts as given)."""
        value = getattr(self, name)
        if isinstance(value, tuple):
            return len(value) > 0
        return value is not None

    def replace(self, **changes: Any) -> Case:
        """Return a copy with some fields changed."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values.update(changes)
        return Case(**values)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict in the dataset format (seed 002) this class reads."""
        record: dict[str, Any] = {
            "id": self.case_id,
            "input": {"question": self.question, "conversation_history": [dict(m) for m in self.history]},
            "expected_output": {"answer": list(self.expected)},
            "metadata": dict(self.metadata),
            "retrieved_context": list(self.context),
            "conditions": self.conditions,
            "model": self.model,
            "actual_output": self.actual,
        }
        return record

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Case:
        """Build a case from one dataset row.

        Accepts the seed-002 layout (``input.question``, ``input.conversation_history``,
        ``expected_output.answer``, ``metadata``) plus ``id``, ``retrieved_context``,
        ``conditions``, ``model`` and ``actual_output`` (a string, or a mapping with
        ``answer``). Flat keys (``question``, ``expected``, ``context``, ``actual``) work too,
        and so do the seeds' spellings (``expected output``, ``Expected answer``,
        ``retrieval context``; see `ROW_KEYS`). An unknown key raises ``ValueError``.

        >>> Case.from_record({"input": {"question": "2+2?"}, "expected output": {"answer": "4"},
        ...                   "actual_output": "4", "model": "m"}).expected
        ('4',)
        """
        if not isinstance(record, Mapping):
            raise TypeError(f"Case.from_record: a record must be a mapping, got {type(record).__name__}")
        row = row_fields(record)
        inp = row.get("input") or {}
        if isinstance(inp, str):
            inp = {"question": inp}
        if not isinstance(inp, Mapping):
            raise TypeError(
                f"'input' must be a mapping (question, conversation_history) or a str, got {type(inp).__name__}"
            )
        expected_output: Any = row.get("expected")
        if isinstance(expected_output, Mapping):
            expected_output = expected_output.get("answer")
        actual = row.get("actual")
        if isinstance(actual, Mapping):
            actual = actual.get("answer")
        metadata = row.get("metadata") or {}
        if isinstance(metadata, Mapping) and any(
            row.get(k) is not None and k not in metadata for k in _PERTURBATION_KEYS
        ):
            metadata = {**{k: row[k] for k in _PERTURBATION_KEYS if row.get(k) is not None}, **metadata}
        return cls(
            actual=actual,
            expected=expected_output,
            question=inp.get("question", row.get("question")),
            context=row.get("context", ()),
            conditions=row.get("conditions"),
            history=inp.get("conversation_history", row.get("history")),
            model=row.get("model"),
            case_id=None if row.get("id") is None else str(row.get("id")),
            metadata=metadata,
        )


#: The keys a dataset row may have, by the field each fills (the first is the seed-002 name).
#: Case, spaces and hyphens do not matter: ``expected output`` (seed 002), ``Expected answer``
#: (seed 000) and ``retrieval context`` (seed 004) are ``expected_output``, ``expected_answer``
#: and ``retrieval_context``.
ROW_KEYS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "id": ("id", "case_id"),
        "input": ("input",),
        "question": ("question",),
        "history": ("history", "conversation_history"),
        "expected": ("expected_output", "expected", "expected_answer", "answer"),
        "actual": ("actual_output", "actual", "actual_answer"),
        "context": ("retrieved_context", "context", "retrieval_context", "retrieved_contexts"),
        "conditions": ("conditions",),
        "model": ("model",),
        "metadata": ("metadata",),
        "perturbation": ("perturbation",),
        "perturbation_of": ("perturbation_of",),
    }
)


_ALIASES = {alias: name for name, aliases in ROW_KEYS.items() for alias in aliases}


_PERTURBATION_KEYS = ("perturbation", "perturbation_of")


def _row_key(key: object) -> str | None:
    """The field a row key fills (``'Expected output'`` -> ``'expected'``), or ``None``."""
    if not isinstance(key, str):
        return None
    return _ALIASES.get("_".join(key.replace("-", " ").replace("_", " ").lower().split()))


def row_fields(record: Mapping[Any, Any]) -> dict[str, Any]:
    """``record`` keyed by the fields its keys fill; an unknown or doubled key raises ``ValueError``."""
    out: dict[str, Any] = {}
    given: dict[str, Any] = {}
    for key, value in record.items():
        name = _row_key(key)
        if name is None:
            accepted = ", ".join("/".join(repr(a) for a in aliases) for aliases in ROW_KEYS.values())
            raise ValueError(
                f"unknown key {key!r}; accepted keys: {accepted} (case, spaces and hyphens aside: "
                "'expected output' is 'expected_output')"
            )
        if name in given:
            raise ValueError(f"{key!r} and {given[name]!r} both give the {name!r} field; keep one")
        given[name] = key
        out[name] = value
    return out


class CaseFileError(ValueError):
    """A dataset row that is not a valid case; the message starts with ``file:line``."""


def _csv_cell(value: str) -> Any:
    text = value.strip()
    if text.startswith("[") and text.endswith("]"):
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text


def _csv_records(path: str) -> Iterable[tuple[str, Any]]:
    import csv

    with open(path, encoding="utf-8-sig", newline="") as handle:  # -sig: spreadsheets write a byte-order mark
        reader = csv.DictReader(handle)
        if not reader.fieldnames:
            return
        start = reader.line_num + 1
        for row in reader:
            where = f"{path}:{start}"  # where the row starts (a quoted cell may span lines)
            start = reader.line_num + 1
            if None in row:
                yield where, ValueError(f"more cells than the {len(reader.fieldnames)} columns of the header")
                continue
            record: dict[str, Any] = {"metadata": {}}
            columns: dict[str, str] = {}
            clash = ""
            for column, value in row.items():
                if value is None or value.strip() == "":
                    continue
                key = _row_key(column)
                if key is None or key == "metadata":  # other columns are metadata
                    record["metadata"][column.strip()] = value.strip()
                    continue
                if key in columns:
                    clash = clash or f"columns {columns[key]!r} and {column.strip()!r} both give the {key!r} field"
                columns[key] = column.strip()
                record[key] = _csv_cell(value) if key in ("expected", "context", "history") else value.strip()
            if clash:
                yield where, ValueError(clash)
                continue
            yield where, record


def _yaml_records(path: str) -> Iterable[tuple[str, Any]]:
    try:
        import yaml
    except ImportError as exc:
        raise ImportError(f"{path}: reading YAML cases needs PyYAML: pip install 'pytest-llm-verdict[yaml]'") from exc
    with open(path, encoding="utf-8-sig") as handle:
        text = handle.read()
    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise CaseFileError(f"{path}{line}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if data is None:
        return
    if not isinstance(data, list):
        raise CaseFileError(f"{path}:1: a YAML case file must be a list of rows, got a {type(data).__name__}")
    for item, item_node in zip(data, node.value):
        yield f"{path}:{item_node.start_mark.line + 1}", item


def _json_records(path: str, whole: bool) -> Iterable[tuple[str, Any]]:
    with open(path, encoding="utf-8-sig") as handle:
        if whole:
            try:
                data = json.load(handle)
            except ValueError as exc:
                raise CaseFileError(f"{path}:{getattr(exc, 'lineno', 1)}: not valid JSON: {exc}") from None
            if not isinstance(data, list):
                raise CaseFileError(f"{path}:1: a JSON case file must be a list of rows, got a {type(data).__name__}")
            for index, item in enumerate(data):
                yield f"{path}: row {index}", item
            return
        for number, line in enumerate(handle, start=1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            try:
                yield f"{path}:{number}", json.loads(text)
            except ValueError as exc:
                yield f"{path}:{number}", ValueError(f"not valid JSON: {exc}")


def check_fields(case: Case) -> dict[str, Any]:
    """The case fields a helper or `evaluate()` takes, of those ``case`` has (its id aside)."""
    fields: dict[str, Any] = {
        "actual": case.actual,
        "expected": list(case.expected),
        "question": case.question,
        "context": list(case.context),
        "conditions": case.conditions,
        "history": list(case.history),
        "model": case.model,
        "metadata": dict(case.metadata),
    }
    return {name: value for name, value in fields.items() if value is not None and value != [] and value != {}}


def read_cases(path: str | os.PathLike[str]) -> list[tuple[str, Case]]:
    """Cases with where each came from (``file:line``), from JSON Lines, JSON, CSV or YAML (see `read_case_rows()`)."""
    return [(where, case) for where, case, _ in read_case_rows(path)]


def read_case_rows(path: str | os.PathLike[str], extra: tuple[str, ...] = ()) -> list[tuple[str, Case, dict[str, Any]]]:
    """Cases with where each came from (``file:line``), from JSON Lines, JSON, CSV or YAML, and the row's ``extra`` keys
    (a labeled row's ``label`` and ``check``, say; a CSV's extra columns too).

    Rows use the seed-002 layout (see `Case.from_record()`; a key outside `ROW_KEYS`
    is an error, except that CSV keeps other columns as metadata); a row may name the row
    it perturbs (``perturbation_of``, its id) and how (``perturbation``), kept in the
    case's metadata. A bad row raises `CaseFileError` naming the file and line:
    rows are never skipped silently (blank lines and ``#`` comments in JSON Lines are
    not rows).
    """
    path = os.fspath(path)
    suffix = os.path.splitext(path)[1].lower()
    if suffix == ".csv":
        rows = _csv_records(path)
    elif suffix in (".yaml", ".yml"):
        rows = _yaml_records(path)
    elif suffix in (".jsonl", ".json", ".ndjson", ""):
        rows = _json_records(path, whole=suffix == ".json")
    else:
        raise CaseFileError(f"{path}: unknown case file type {suffix!r}; expected .jsonl, .json, .csv, .yaml or .yml")
    return parse_case_rows(rows, extra)


def parse_case_rows(
    rows: Iterable[tuple[str, Any]], extra: tuple[str, ...] = ()
) -> list[tuple[str, Case, dict[str, Any]]]:
    """``(where, row)`` pairs as `read_case_rows()` reads them from a file: cases, each with where it came from and its
    ``extra`` keys; a bad row raises `CaseFileError` naming where it came from."""
    out: list[tuple[str, Case, dict[str, Any]]] = []
    for where, record in rows:
        if isinstance(record, Exception):
            raise CaseFileError(f"{where}: not a valid case: {record}")
        try:
            if not isinstance(record, Mapping):
                raise TypeError(f"a row must be a mapping of fields, got {type(record).__name__}")
            found = {key: record[key] for key in extra if key in record}
            if extra and isinstance(record.get("metadata"), Mapping):  # a CSV keeps its other columns as metadata
                found.update(
                    {key: record["metadata"][key] for key in extra if key in record["metadata"] and key not in found}
                )
                record = {**record, "metadata": {k: v for k, v in record["metadata"].items() if k not in found}}
            record = row_fields({k: v for k, v in record.items() if k not in found})
            metadata = dict(record.get("metadata") or {})
            for key in _PERTURBATION_KEYS:
                if record.get(key) is not None:
                    metadata[key] = record[key]
                if isinstance(metadata.get(key), int) and not isinstance(metadata[key], bool):
                    metadata[key] = str(metadata[key])  # like a numeric id
                if key in metadata and (not isinstance(metadata[key], str) or not metadata[key]):
                    raise TypeError(f"{key!r} must be a non-empty str, got {metadata[key]!r}")
            if ("perturbation" in metadata) != ("perturbation_of" in metadata):
                raise ValueError(
                    "a perturbed row needs both 'perturbation_of' (the id of the row it perturbs) and 'perturbation'"
                )
            out.append((where, Case.from_record({**record, "metadata": metadata}), found))
        except (ValueError, TypeError) as exc:
            raise CaseFileError(f"{where}: not a valid case: {exc}") from None
    return out


def beside_caller(path: str | os.PathLike[str], depth: int = 2) -> str | os.PathLike[str]:
    """``path``, or the same relative path beside the file that called `cases()`, when only that exists."""
    if os.path.isabs(path) or os.path.exists(path):
        return path
    import sys

    frame = sys._getframe(depth)
    caller = frame.f_globals.get("__file__")
    if caller:
        beside = os.path.join(os.path.dirname(os.path.abspath(caller)), os.fspath(path))
        if os.path.exists(beside):
            return beside
    return path


def load_cases(path: str | os.PathLike[str]) -> list[Case]:
    """Read cases from a JSON Lines, JSON, CSV or YAML file (see `read_cases()`).

    A relative path that does not exist from the working directory is looked up
    beside the calling file. A bad row raises `CaseFileError` (a
    ``ValueError``) naming the file and the line.
    """
    return [case for _, case in read_cases(beside_caller(path))]


def as_sequence(value: Sequence[Case] | Case) -> Sequence[Case]:
    """Accept one case or a sequence of cases."""
    return (value,) if isinstance(value, Case) else value
