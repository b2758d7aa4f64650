"""The ``sensitive_data`` check: Regex suite for secrets: PEM keys and certificates, provider API keys, cloud keys,
tokens, product keys, passwords."""

from __future__ import annotations

from typing import Any

from ...kit import check, check_kwargs
from ...kit import Result
from ...kit.text import SECRET_DETECTORS
from .leakage import PatternLeakage, leak_metric_specs

__all__ = ["assert_no_sensitive_data", "SensitiveDataLeakage"]


def assert_no_sensitive_data(
    actual: str,
    *,
    context: Any = None,
    kinds: Any = None,
    allow: Any = (),
    evaluate_context: bool = True,
    **kwargs: Any,
) -> Result:
    """No private key, certificate, API key, cloud key, token, product key or password in the answer (or context)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {"kinds": kinds, "allow": allow, "evaluate_context": evaluate_context}
    return check(SensitiveDataLeakage, actual=actual, context=context, params=params, **kwargs)


class SensitiveDataLeakage(PatternLeakage):
    """Regex suite for secrets: PEM keys and certificates, provider API keys, cloud keys, tokens, product keys,
    passwords.

    Parameters: as `PiiLeakage`; the kinds are those of
    `pytest_llmeval.text.patterns.SECRET_DETECTORS`.
    """

    name = "sensitive_data"
    helper = "assert_no_sensitive_data"
    description = "No keys, tokens, certificates or passwords in answer or context"
    detectors = SECRET_DETECTORS
    what = "sensitive data"
    metrics = leak_metric_specs("sensitive data")
