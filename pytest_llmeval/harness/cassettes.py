"""Cassettes: the application's own model calls, recorded once and replayed (vcrpy), per test.

A test marked ``@pytest.mark.llmeval(record=True)``, or one that uses the ``llmeval_cassette`` fixture, runs inside a
vcrpy cassette from its set-up to its teardown: every HTTP request the code under test makes (the ``openai`` client
and anything built on it: sync, async, streamed, embeddings) is played from the cassette when it holds it, else made
and recorded, as ``--llmeval-record-mode`` says (pytest-recording's names): ``none`` (the default, as in CI: only
replay; a request with no recording fails the test, naming the request and the cassette), ``once`` (record a cassette
that does not exist yet), ``new_episodes`` (record what is new) or ``all`` (record everything again).

vcrpy does the recording: its cassettes (YAML, one file a test in ``cassettes/<module>/`` beside the test file, each
draw of a repeated test its own) and its matchers, with one of ours: a request matches on its method, URL and body,
the body read as JSON without the fields that change from call to call (``VOLATILE_FIELDS``). What never reaches a
cassette: the plugin's own requests (the judge's and the embedding server's, which say so in the ``CLIENT_HEADER``
header and have their own caches), credentials (``SECRET_HEADERS``, key-like query parameters) and the values of
``record.secrets`` environment variables (the judge's and embedding server's key variables too), written as
``<redacted>``; headers that only describe the client are left out, so a cassette reads as the exchange.

Each record of a test in a cassette says where its answer came from, in its tags: ``answers`` ``replayed`` (every
model call played from the cassette), ``live`` (made and recorded now) or ``mixed``, and ``answer_models``, the models
the requests named.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Generator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..models.config import CLIENT_HEADER
from .deferring import context_key

if TYPE_CHECKING:
    from .session import EvalSession

__all__ = [
    "Cassettes",
    "RECORD_MODES",
    "FIXTURE",
    "VOLATILE_FIELDS",
    "request_key",
    "cassette_path",
    "llmeval_cassette",
    "provenance",
]


RECORD_MODES = ("none", "once", "new_episodes", "all")


#: The fixture that puts a test in a cassette (it returns the vcrpy cassette).
FIXTURE = "llmeval_cassette"

#: Headers that carry credentials or session state: never written.
SECRET_HEADERS = (
    "authorization",
    "proxy-authorization",
    "api-key",
    "x-api-key",
    "x-goog-api-key",
    "openai-organization",
    "openai-project",
    "cookie",
    "set-cookie",
)

#: Query parameters that carry keys (Gemini's ``key``, Azure's ``api-key``): never written.
SECRET_QUERY = ("key", "api-key", "api_key", "access_token", "token")

#: Request body fields that change from call to call without changing the answer: left out of a request's key.
VOLATILE_FIELDS = ("user", "metadata", "request_id", "timestamp", "idempotency_key")

_NOISE = re.compile(
    r"^(x-stainless-.*|user-agent|x-request-id|openai-processing-ms|date|cf-ray|x-ratelimit-.*|req-.*)$", re.I
)

_stash = pytest.StashKey[tuple[Any, Any]]()  # the test's cassette: (its context manager, the cassette)


def request_key(body: bytes | str | None) -> str:
    """What identifies a request's body: its JSON without `VOLATILE_FIELDS`, keys sorted, hashed (else the bytes')."""
    raw = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else (body or b"")
    try:
        data = json.loads(raw)
    except ValueError:
        return hashlib.sha256(raw).hexdigest()
    if isinstance(data, dict):
        data = {key: value for key, value in data.items() if key not in VOLATILE_FIELDS}
    return hashlib.sha256(
        json.dumps(data, sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass")
    ).hexdigest()


def _same_body(first: Any, second: Any) -> None:
    if request_key(first.body) != request_key(second.body):
        raise AssertionError("the request bodies differ (volatile fields aside)")


def cassette_path(item: pytest.Item) -> Path:
    """``cassettes/<module>/<test name>.yaml`` beside the test file (a parametrized test's or draw's id in the name)."""
    name = re.sub(r"[^\w.-]+", "_", item.name).strip("_") or "test"
    return item.path.parent / "cassettes" / item.path.stem / f"{name[:150]}.yaml"


def _secrets(names: tuple[str, ...]) -> list[str]:
    values = [os.environ.get(name, "") for name in dict.fromkeys(names)]
    return sorted({value for value in values if len(value) >= 6}, key=len, reverse=True)


def _scrub(text: Any, secrets: list[str]) -> Any:
    if isinstance(text, bytes):
        for secret in secrets:
            text = text.replace(secret.encode(), b"<redacted>")
    elif isinstance(text, str):
        for secret in secrets:
            text = text.replace(secret, "<redacted>")
    return text


class _Serializer:
    """vcrpy's YAML with one line a value: a long body is not folded across lines, so a review's diff shows what
    changed."""

    @staticmethod
    def serialize(data: Mapping[str, Any]) -> str:
        import yaml

        return str(yaml.safe_dump(dict(data), width=2**31, allow_unicode=True, sort_keys=False))

    @staticmethod
    def deserialize(text: str) -> Any:
        from vcr.serializers import yamlserializer

        return yamlserializer.deserialize(text)


class Cassettes:
    """One per run and process (registered as the plugin ``llmeval-cassettes``)."""

    def __init__(self, session: EvalSession) -> None:
        self.session = session
        self._vcr: Any = None

    def wants(self, item: pytest.Item) -> bool:
        for marker in item.iter_markers("llmeval"):
            if "record" in marker.kwargs:
                return bool(marker.kwargs["record"])
        return FIXTURE in getattr(item, "fixturenames", ())

    def _recorder(self) -> Any:
        if self._vcr is None:
            try:
                import vcr
            except ImportError as exc:
                raise pytest.UsageError(
                    "llmeval cassettes need vcrpy: pip install 'pytest-llm-verdict[record]'"
                ) from exc
            settings = self.session.settings
            secrets = _secrets(
                (*settings.record_secrets, settings.judge_api_key_env, settings.embedding_api_key_env, "OPENAI_API_KEY")
            )

            def request(found: Any) -> Any:
                if any(name.lower() == CLIENT_HEADER.lower() for name in found.headers):
                    return None  # the plugin's own request: not the application's, never recorded
                for name in [name for name in found.headers if _NOISE.match(name)]:
                    del found.headers[name]
                for name, value in list(found.headers.items()):
                    found.headers[name] = _scrub(value, secrets)
                found.uri = _scrub(found.uri, secrets)
                found.body = _scrub(found.body, secrets)
                return found

            def response(found: dict[str, Any]) -> dict[str, Any]:
                headers = found.get("headers") or {}
                for name in [name for name in headers if _NOISE.match(name) or name.lower() in SECRET_HEADERS]:
                    del headers[name]
                body = found.get("body") or {}
                if "string" in body:
                    body["string"] = _scrub(body["string"], secrets)
                return found

            made = vcr.VCR(
                record_mode=settings.record_mode,
                filter_headers=[(h, "<redacted>") for h in SECRET_HEADERS],
                filter_query_parameters=[(q, "<redacted>") for q in SECRET_QUERY],
                before_record_request=request,
                before_record_response=response,
                decode_compressed_response=True,
                serializer="llmeval",
                match_on=("method", "scheme", "host", "port", "path", "query", "llmeval_body"),
            )
            made.register_matcher("llmeval_body", _same_body)
            made.register_serializer("llmeval", _Serializer)
            self._vcr = made
        return self._vcr

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, Any, Any]:
        missing = None
        if self.wants(item):
            try:
                recorder = self._recorder()
            except pytest.UsageError as exc:
                # Raised once the other plugins have set the test up: raised here, before them, their teardown
                # would fail too (pytest's logging plugin misses its stash key), two errors for one missing extra.
                missing = exc
            else:
                manager = recorder.use_cassette(str(cassette_path(item)))
                cassette = manager.__enter__()
                item.stash[_stash] = (manager, cassette)
                context, before = item.stash.get(context_key, None), len(cassette.data)
                if context is not None:
                    context.source = lambda: provenance(cassette, before)
        result = yield
        if missing is not None:
            raise missing
        return result

    @pytest.hookimpl(wrapper=True, trylast=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, Any, Any]:
        try:
            return (yield)
        finally:
            found = item.stash.get(_stash, None)
            if found is not None:
                found[0].__exit__(None, None, None)  # writes what was recorded

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report: pytest.TestReport = yield
        miss = _miss(call.excinfo.value if call.excinfo is not None else None)
        if miss is not None and report.failed:
            report.longrepr = _miss_message(miss, self.session.settings.record_mode)
        return report


@pytest.fixture(name=FIXTURE)
def llmeval_cassette(request: pytest.FixtureRequest) -> Any:
    """The vcrpy cassette the test runs in (``play_count``, ``data``, ``requests``): the test's model calls are recorded
    and replayed as ``--llmeval-record-mode`` says."""
    found = request.node.stash.get(_stash, None)
    return None if found is None else found[1]


def provenance(cassette: Any, before: int) -> dict[str, str]:
    """Where a test's answers came from: ``answers`` (replayed, live or mixed) and ``answer_models`` (from the
    requests)."""
    recorded = list(range(before, len(cassette.data)))
    played = [index for index, count in getattr(cassette, "play_counts", {}).items() if count]
    if not recorded and not played:
        return {}
    models = set()
    for index in (*played, *recorded):
        try:
            body = json.loads(cassette.data[index][0].body or b"{}")
        except (ValueError, IndexError, TypeError):
            continue
        if isinstance(body, dict) and isinstance(body.get("model"), str):
            models.add(body["model"])
    source = "mixed" if recorded and played else "live" if recorded else "replayed"
    return {"answers": source, **({"answer_models": ",".join(sorted(models))} if models else {})}


def _miss(exc: BaseException | None) -> Any:
    """The vcrpy miss in ``exc``'s chain (the request had no recording and the record mode may not add one), or
    ``None``."""
    seen = 0
    while exc is not None and seen < 20:
        if type(exc).__name__ == "CannotOverwriteExistingCassetteException":
            return exc
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None


def _miss_message(miss: Any, mode: str) -> str:
    request = getattr(miss, "failed_request", None)
    cassette = getattr(miss, "cassette", None)
    what = f"{getattr(request, 'method', '?')} {getattr(request, 'uri', '?')}"
    try:
        body = json.loads(getattr(request, "body", None) or b"{}")
    except (ValueError, TypeError):
        body = {}
    detail = ""
    if isinstance(body, Mapping):
        messages = body.get("messages") or body.get("input") or body.get("prompt")
        last = messages[-1] if isinstance(messages, list) and messages else messages
        text = last.get("content") if isinstance(last, Mapping) else last
        detail = f" (model {body.get('model')!r}" + (f", {str(text)[:120]!r}" if text else "") + ")"
    where = getattr(cassette, "_path", None) or "its cassette"
    # once records only a cassette that does not exist yet: where one exists, only new_episodes adds a request to it
    how = (
        "--llmeval-record-mode=new_episodes (the cassette exists: the new request is added to it)"
        if isinstance(where, str) and os.path.exists(where)
        else "--llmeval-record-mode=once (no cassette yet)"
    )
    return (
        f"llmeval: no recording of {what}{detail} in the cassette {where} (record mode {mode}); record it with "
        f"{how}, then commit the cassette"
    )
