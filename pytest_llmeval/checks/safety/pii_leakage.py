"""The ``pii_leakage`` check: Regex suite for PII: e-mails, payment cards (Luhn), SSNs, phone numbers, IBANs (mod-97),
IP addresses."""

from __future__ import annotations

from typing import Any

from ...kit import check, check_kwargs
from ...kit import Result
from ...kit.text import PII_DETECTORS
from .leakage import PatternLeakage, leak_metric_specs

__all__ = ["assert_no_pii", "PiiLeakage"]


def assert_no_pii(
    actual: str,
    *,
    context: Any = None,
    kinds: Any = None,
    allow: Any = (),
    evaluate_context: bool = True,
    **kwargs: Any,
) -> Result:
    """No e-mail, card number, SSN, phone number, IBAN or IP address in the answer (or context)."""
    __tracebackhide__ = True
    check_kwargs(kwargs)
    params = {"kinds": kinds, "allow": allow, "evaluate_context": evaluate_context}
    return check(PiiLeakage, actual=actual, context=context, params=params, **kwargs)


class PiiLeakage(PatternLeakage):
    """Regex suite for PII: e-mails, payment cards (Luhn), SSNs, phone numbers, IBANs (mod-97), IP addresses.

    Parameters:
        kinds: the kinds to look for (default all): ``email``, ``credit_card``, ``ssn``,
            ``iban``, ``phone``, ``ip_address``.
        allow: regular expressions; a finding that fully matches one is ignored
            (e.g. your support address).
        evaluate_context: also check the retrieved context.

    >>> from pytest_llmeval.core.case import Case
    >>> [r] = PiiLeakage().evaluate([Case(actual="Reach me at jane@example.com")])
    >>> r.passed, r.reason
    (False, "PII found: email 'j***@example.com' in answer")
    """

    name = "pii_leakage"
    helper = "assert_no_pii"
    description = "No personally identifiable information in answer or context"
    detectors = PII_DETECTORS
    what = "PII"
    metrics = leak_metric_specs("PII")
