"""Regular-expression detectors for PII and secrets, with validation and masking.

Each detector has a ``kind`` name, a pattern and, where formats allow, a
validator that removes look-alikes (the Luhn check for card numbers, mod-97 for
IBANs, octet ranges for IP addresses). `scan()` returns `Finding`
objects whose ``masked`` text is safe to print in a test report.

>>> [f.kind for f in scan("Mail jane.doe@example.com or call 415-555-0134", PII_DETECTORS)]
['email', 'phone']
>>> scan("card 4111 1111 1111 1111", PII_DETECTORS)[0].masked
'4111********1111'
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

__all__ = ["Detector", "Finding", "PII_DETECTORS", "SECRET_DETECTORS", "scan", "mask", "kinds_of"]


@dataclass(frozen=True)
class Detector:
    kind: str
    description: str
    pattern: re.Pattern[str]
    validate: Callable[[str], bool] | None = None
    group: int = 0


@dataclass(frozen=True)
class Finding:
    kind: str
    start: int
    end: int
    masked: str

    def to_dict(self, where: str) -> dict[str, object]:
        return {"kind": self.kind, "where": where, "start": self.start, "end": self.end, "masked": self.masked}


def mask(value: str, keep: int = 2) -> str:
    """Hide the middle of ``value``: ``'sk-abcdef123'`` -> ``'sk*******23'``."""
    compact = re.sub(r"[\s-]", "", value) if len(value) < 40 else value
    if len(compact) <= keep * 2 + 1:
        return "*" * len(compact)
    return compact[:keep] + "*" * min(len(compact) - 2 * keep, 24) + compact[-keep:]


def _mask_email(value: str) -> str:
    local, _, domain = value.partition("@")
    return f"{local[:1]}***@{domain}"


def _mask_card(value: str) -> str:
    digits = re.sub(r"\D", "", value)
    return digits[:4] + "*" * (len(digits) - 8) + digits[-4:]


def _luhn(value: str) -> bool:
    digits = [int(d) for d in re.sub(r"\D", "", value)]
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for index, digit in enumerate(reversed(digits)):
        if index % 2:
            digit *= 2
            if digit > 9:
                digit -= 9
        total += digit
    return total % 10 == 0


# Issuer prefixes and the lengths their card numbers have.
_CARD_RULES: tuple[tuple[re.Pattern[str], frozenset[int]], ...] = (
    (re.compile(r"^4"), frozenset({13, 16, 19})),  # Visa
    (re.compile(r"^(?:5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720))"), frozenset({16})),  # Mastercard
    (re.compile(r"^3[47]"), frozenset({15})),  # American Express
    (re.compile(r"^3(?:0[0-5]|[689])"), frozenset({14, 16, 19})),  # Diners Club
    (re.compile(r"^6(?:011|5|4[4-9]|22)"), frozenset({16, 17, 18, 19})),  # Discover
    (re.compile(r"^35(?:2[89]|[3-8])"), frozenset({16, 17, 18, 19})),  # JCB
    (re.compile(r"^62"), frozenset({16, 17, 18, 19})),  # UnionPay
)


def _card(value: str) -> bool:
    digits = re.sub(r"\D", "", value)
    if len(set(digits)) < 2 or not _luhn(digits):
        return False
    return any(prefix.match(digits) and len(digits) in lengths for prefix, lengths in _CARD_RULES)


# IBAN lengths by country (ISO 13616 registry), for the common countries.
_IBAN_LENGTHS = {
    "AD": 24,
    "AE": 23,
    "AL": 28,
    "AT": 20,
    "AZ": 28,
    "BA": 20,
    "BE": 16,
    "BG": 22,
    "BH": 22,
    "BR": 29,
    "CH": 21,
    "CR": 22,
    "CY": 28,
    "CZ": 24,
    "DE": 22,
    "DK": 18,
    "DO": 28,
    "EE": 20,
    "EG": 29,
    "ES": 24,
    "FI": 18,
    "FO": 18,
    "FR": 27,
    "GB": 22,
    "GE": 22,
    "GI": 23,
    "GL": 18,
    "GR": 27,
    "GT": 28,
    "HR": 21,
    "HU": 28,
    "IE": 22,
    "IL": 23,
    "IQ": 23,
    "IS": 26,
    "IT": 27,
    "JO": 30,
    "KW": 30,
    "KZ": 20,
    "LB": 28,
    "LI": 21,
    "LT": 20,
    "LU": 20,
    "LV": 21,
    "MC": 27,
    "MD": 24,
    "ME": 22,
    "MK": 19,
    "MR": 27,
    "MT": 31,
    "MU": 30,
    "NL": 18,
    "NO": 15,
    "PK": 24,
    "PL": 28,
    "PS": 29,
    "PT": 25,
    "QA": 29,
    "RO": 24,
    "RS": 22,
    "SA": 24,
    "SE": 24,
    "SI": 19,
    "SK": 24,
    "SM": 27,
    "TN": 24,
    "TR": 26,
    "UA": 29,
    "VG": 24,
    "XK": 20,
}


def _iban(value: str) -> bool:
    compact = re.sub(r"\s", "", value).upper()
    expected = _IBAN_LENGTHS.get(compact[:2])
    if expected is not None and len(compact) != expected:
        return False
    if expected is None and not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(number) % 97 == 1


def _ipv4(value: str) -> bool:
    try:
        address = ipaddress.IPv4Address(value)
    except ValueError:
        return False
    return not (address.is_unspecified or address.is_loopback)


def _ipv6(value: str) -> bool:
    try:
        address = ipaddress.IPv6Address(value)
    except ValueError:
        return False
    return value.count(":") >= 2 and not (address.is_unspecified or address.is_loopback)


def _phone(value: str) -> bool:
    digits = re.sub(r"\D", "", value)
    return 10 <= len(digits) <= 15 and len(set(digits)) > 2


def _mixed(value: str) -> bool:
    return bool(re.search(r"[A-Z]", value)) and bool(re.search(r"\d", value))


_B = r"(?<![\w@.+-])"  # left boundary that does not split words, emails or numbers


_E = r"(?![\w@-]|\.\w)"  # right boundary


PII_DETECTORS: tuple[Detector, ...] = (
    Detector(
        "email",
        "e-mail address",
        re.compile(
            r"(?<![\w.+-])[A-Za-z0-9._%+-]+@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}\b"
        ),
    ),
    Detector("credit_card", "payment card number (Luhn-checked)", re.compile(_B + r"(?:\d[ -]?){12,18}\d" + _E), _card),
    Detector(
        "ssn",
        "US social security number",
        re.compile(_B + r"(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}" + _E),
    ),
    Detector(
        "iban",
        "international bank account number (mod-97 checked)",
        re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"),
        _iban,
    ),
    Detector(
        "phone",
        "phone number",
        # Not part of a longer run of digit groups (account numbers, IBANs, card numbers).
        re.compile(
            r"(?<![\d][ .-])(?:"
            + _B
            + r"(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?|\d{2,4}[ .-])\d{3,4}[ .-]\d{3,4}"
            + _E
            + r"|"
            + _B
            + r"\+\d{1,3}[ .-]?\d{6,12}"
            + _E
            + r")(?![ .-]\d)"
        ),
        _phone,
    ),
    Detector("ip_address", "IPv4 address", re.compile(r"(?<![\w.])(?:\d{1,3}\.){3}\d{1,3}(?![\w]|\.\d)"), _ipv4),
    Detector(
        "ip_address",
        "IPv6 address",
        # A run of hex digits and colons no longer than an address (39 characters), validated by
        # ipaddress: one bounded repetition, so the scan is linear (nested ones backtrack exponentially).
        re.compile(r"(?<![\w:])[0-9A-Fa-f:]{2,39}(?![\w:])"),
        _ipv6,
    ),
)


SECRET_DETECTORS: tuple[Detector, ...] = (
    Detector("private_key", "PEM private key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")),
    Detector("certificate", "PEM certificate", re.compile(r"-----BEGIN (?:TRUSTED |X509 )?CERTIFICATE-----")),
    Detector("anthropic_api_key", "Anthropic API key", re.compile(r"\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{20,}")),
    Detector(
        "sk_api_key",
        "sk- secret key (OpenAI, H2O.ai h2oGPTe and other OpenAI-style APIs)",
        re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}(?![\w-])"),
    ),
    Detector(
        "github_token",
        "GitHub token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{60,255})\b"),
    ),
    Detector("gitlab_token", "GitLab personal access token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    Detector("slack_token", "Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    Detector("stripe_key", "Stripe secret key", re.compile(r"\b(?:sk|rk)_live_[A-Za-z0-9]{20,}")),
    Detector("google_api_key", "Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![\w-])")),
    Detector("huggingface_token", "Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}\b")),
    Detector("sendgrid_key", "SendGrid API key", re.compile(r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b")),
    Detector("aws_access_key_id", "AWS access key id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    Detector(
        "aws_secret_access_key",
        "AWS secret access key (assigned)",
        re.compile(r"(?i)aws_?secret_?(?:access_?)?key[\"']?\s*[:=]\s*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"),
        group=1,
    ),
    Detector(
        "azure_storage_key", "Azure storage account key", re.compile(r"AccountKey=([A-Za-z0-9+/]{86}==)"), group=1
    ),
    Detector(
        "gcp_service_account",
        "Google Cloud service-account key file",
        re.compile(r"\"private_key_id\"\s*:\s*\"([0-9a-f]{40})\""),
        group=1,
    ),
    Detector("jwt", "JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}")),
    Detector("windows_product_key", "Windows product key", re.compile(r"\b[A-Z0-9]{5}(?:-[A-Z0-9]{5}){4}\b"), _mixed),
    Detector(
        "password",
        "password assignment",
        re.compile(r"(?i)\b(?:password|passwd|pwd)\b[\"']?\s*[:=]\s*[\"']?([^\s\"',;]{6,})"),
        group=1,
    ),
)


def _masked(kind: str, value: str) -> str:
    if kind == "email":
        return _mask_email(value)
    if kind == "credit_card":
        return _mask_card(value)
    if kind in ("private_key", "certificate"):
        return value
    return mask(value, keep=4 if len(value) > 16 else 2)


def scan(text: str, detectors: Sequence[Detector], *, allow: Iterable[re.Pattern[str]] = ()) -> list[Finding]:
    """Every span of ``text`` a detector flags, in order; overlapping hits keep the first detector's."""
    allowed = tuple(allow)
    findings: list[Finding] = []
    taken: list[tuple[int, int]] = []
    for detector in detectors:
        for match in detector.pattern.finditer(text):
            value = match.group(detector.group)
            start, end = match.span(detector.group)
            if detector.validate is not None and not detector.validate(value):
                continue
            if any(pattern.fullmatch(value) or pattern.fullmatch(match.group(0)) for pattern in allowed):
                continue
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            taken.append((start, end))
            findings.append(Finding(detector.kind, start, end, _masked(detector.kind, value)))
    findings.sort(key=lambda f: f.start)
    return findings


def kinds_of(detectors: Sequence[Detector]) -> tuple[str, ...]:
    """The distinct kinds, in declaration order."""
    return tuple(dict.fromkeys(d.kind for d in detectors))
