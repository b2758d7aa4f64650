"""JSON validity and JSON Schema compliance (catalog: JSON Schema Evaluator)."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from ...kit import check, check_kwargs
from ...kit import Case
from ...kit import Evaluator, MetricSpec, Score, package_version
from ...kit import require_type
from ...kit import Result
from ...kit.text import utf8

__all__ = ["assert_json", "JsonSchema", "json_path"]


def assert_json(
    actual: str,
    schema: Any = None,
    *,
    context: Any = None,
    strip_fences: bool = True,
    allow_remote_refs: bool = False,
    **kwargs: Any,
) -> Result:
    """The answer parses as JSON and follows ``schema`` (a JSON Schema; ``None`` or ``{}``: any JSON).

    ``$ref`` resolves inside the schema only; ``allow_remote_refs=True`` lets it fetch URLs. With
    ``context`` (retrieved JSON fragments), ``invalid_retrieved_json`` is the share that fails too.
    """
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {
        "schema": {} if schema is None else schema,
        "strip_fences": strip_fences,
        "allow_remote_refs": allow_remote_refs,
    }
    return check(JsonSchema, actual=actual, context=context, params=params, **kwargs)


_FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```\s*$", re.DOTALL)


_MAX_ERRORS = 10


def _refuse_remote(uri: str) -> Any:
    """The registry's retrieval: refuses, so no ``$ref`` reaches the network unless the user opts in."""
    from referencing.exceptions import NoSuchResource

    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # attrs class: mypy sees no fields


def _timed_pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Any:
    """The ``pattern`` keyword under the time limit of user regular expressions (conditions.REGEX_TIMEOUT)."""
    from jsonschema.exceptions import ValidationError

    from ...kit.text import compile_user_regex, search_user_regex

    if not validator.is_type(instance, "string"):
        return
    try:
        compiled = compile_user_regex(pattern)
    except re.error:
        return  # check_schema accepted it for another dialect; leave it to jsonschema's own keyword
    if search_user_regex(compiled, instance, f"the schema pattern {pattern!r}") is None:
        yield ValidationError(f"{instance!r:.200} does not match {pattern!r}")


def json_path(parts: Any) -> str:
    """``['items', 0, 'price']`` -> ``$.items[0].price``."""
    path = "$"
    for part in parts:
        path += (
            f"[{part}]"
            if isinstance(part, int)
            else (f".{part}" if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(part)) else f"[{json.dumps(part)}]")
        )
    return path


class JsonSchema(Evaluator):
    """Is the answer JSON, and does it follow the schema?

    Parameters:
        schema: a JSON Schema (mapping, boolean, or JSON text); ``{}`` only checks
            that the answer parses as JSON.
        strip_fences: accept an answer wrapped in one Markdown code fence (```json ... ```).
        allow_remote_refs: fetch a ``$ref`` to an ``http(s)`` URL (default ``False``: only
            references inside the schema resolve, and nothing is fetched over the network).

    >>> from pytest_llmeval.core.case import Case
    >>> schema = {"type": "object", "required": ["price"]}
    >>> [r] = JsonSchema(schema=schema).evaluate([Case(actual='{"cost": 3}')])
    >>> r.passed, r.reason
    (False, "schema violation at $: 'price' is a required property")
    """

    name = "json_schema"
    version = "2"  # seed 000's retrieved / generated JSON metrics
    helper = "assert_json"
    description = "The answer parses as JSON and validates against a JSON Schema"
    uses = ("context",)
    defaults: ClassVar[Mapping[str, Any]] = {"schema": {}, "strip_fences": True, "allow_remote_refs": False}
    case_specific = ("schema",)
    metrics = (
        MetricSpec("valid", "1 when the answer is valid JSON that follows the schema", primary=True),
        MetricSpec("invalid", "1 when the answer is not JSON or violates the schema", higher_is_better=False),
        MetricSpec(
            "invalid_generated_json",
            "1 when the generated answer is not JSON or violates the schema (seed 000)",
            higher_is_better=False,
            threshold=None,
        ),
        MetricSpec(
            "invalid_retrieved_json",
            "share of the retrieved chunks that are not JSON or violate the schema (seed 000; only with a context)",
            higher_is_better=False,
            threshold=None,
        ),
    )

    def configure(self) -> None:
        require_type(self.name, "strip_fences", self.params["strip_fences"], bool, "True or False")
        schema = self.params["schema"]
        if isinstance(schema, str):
            try:
                schema = json.loads(schema)
            except ValueError as exc:
                raise ValueError(f"{self.name}: parameter 'schema' is a str but not JSON: {exc}") from None
        if schema is None:
            schema = {}
        if not isinstance(schema, (Mapping, bool)):
            raise TypeError(
                f"{self.name}: parameter 'schema' must be a JSON Schema (a mapping, a bool or JSON text); "
                f"got {type(schema).__name__}"
            )
        if not isinstance(self.params["allow_remote_refs"], bool):
            raise TypeError(
                f"{self.name}: parameter 'allow_remote_refs' must be True or False; got "
                f"{self.params['allow_remote_refs']!r:.80}"
            )
        import jsonschema

        validator_class = jsonschema.validators.validator_for(schema)
        try:
            validator_class.check_schema(schema)
        except jsonschema.SchemaError as exc:
            where = json_path(exc.path)
            raise ValueError(
                f"{self.name}: parameter 'schema' is not a valid JSON Schema: {exc.message} (at {where} of the schema)"
            ) from None
        self.params["schema"] = schema
        self._schema_id = hashlib.sha256(utf8(json.dumps(schema, sort_keys=True, default=str))).hexdigest()[:12]
        timed = jsonschema.validators.extend(validator_class, {"pattern": _timed_pattern})
        local: dict[str, Any] = {}
        if not self.params["allow_remote_refs"]:
            from referencing import Registry

            # No retrieval: a $ref outside the schema is an error, never a network request (Registry is an attrs
            # class: mypy sees no fields).
            local["registry"] = Registry(retrieve=_refuse_remote)  # type: ignore[call-arg]
        self._validator = timed(schema, format_checker=validator_class.FORMAT_CHECKER, **local)
        self._best_match = jsonschema.exceptions.best_match

    def backend(self) -> str:
        return package_version("jsonschema")

    def score(self, case: Case) -> Score:
        score = self._score(case.actual or "")
        metrics = {**score.metrics, "invalid_generated_json": score.metrics["invalid"], "invalid_retrieved_json": None}
        details = {**score.details, "schema_sha256": self._schema_id}
        reason = score.reason
        if case.context:
            failing = [i for i, chunk in enumerate(case.context) if self._score(chunk).metrics["invalid"]]
            metrics["invalid_retrieved_json"] = len(failing) / len(case.context)
            details["invalid_chunks"] = failing[:50]
            if failing:
                reason += f"; {len(failing)}/{len(case.context)} retrieved chunks are not valid JSON for the schema"
        return Score(metrics, reason, details)

    def _score(self, text: str) -> Score:
        if self.params["strip_fences"]:
            fenced = _FENCE.match(text)
            if fenced:
                text = fenced.group(1)
        try:
            document = json.loads(text)
        except ValueError as exc:
            error = exc if isinstance(exc, json.JSONDecodeError) else None
            where = f" (line {error.lineno}, column {error.colno})" if error else ""
            message = error.msg if error else str(exc)
            reason = "answer is empty, not JSON" if not text.strip() else f"answer is not JSON: {message}{where}"
            details: dict[str, Any] = {"stage": "parse", "error": message}
            if error:
                details.update(line=error.lineno, column=error.colno, position=error.pos)
            return Score({"valid": 0.0, "invalid": 1.0}, reason, details)
        from referencing.exceptions import Unresolvable

        try:
            errors = sorted(self._validator.iter_errors(document), key=lambda e: (list(e.absolute_path), e.message))
        except Unresolvable as exc:  # jsonschema wraps referencing's error in a subclass of it
            ref = getattr(exc, "ref", None) or str(exc)
            raise ValueError(
                f"{self.name}: the schema's $ref {ref!r} cannot be resolved inside the schema; remote references are "
                "not fetched (no network): inline the referenced schema, or pass allow_remote_refs=True"
            ) from None
        if not errors:
            return Score({"valid": 1.0, "invalid": 0.0}, "valid JSON that follows the schema", {"stage": "valid"})
        best = self._best_match(errors)
        listed = [
            {"path": json_path(e.absolute_path), "message": e.message[:300], "validator": str(e.validator)}
            for e in errors[:_MAX_ERRORS]
        ]
        reason = f"schema violation at {json_path(best.absolute_path)}: {best.message[:300]}"
        if len(errors) > 1:
            reason += f" (and {len(errors) - 1} more)"
        return Score(
            {"valid": 0.0, "invalid": 1.0}, reason, {"stage": "schema", "errors": listed, "error_count": len(errors)}
        )
