"""PII, sensitive data and encoding guardrail: detections, look-alikes, masking, metrics."""

from __future__ import annotations

import base64

import pytest

from pytest_llmeval import Case
from pytest_llmeval.checks.safety.encoding_guardrail import EncodingGuardrail, decode_blocks
from pytest_llmeval.checks.safety.pii_leakage import PiiLeakage
from pytest_llmeval.checks.safety.sensitive_data import SensitiveDataLeakage
from pytest_llmeval.text.patterns import PII_DETECTORS, SECRET_DETECTORS, scan

PII_POSITIVE = [
    ("email", "Write to jane.doe+news@mail.example.co.uk today", "j***@mail.example.co.uk"),
    ("credit_card", "Card: 4111 1111 1111 1111.", "4111********1111"),
    ("credit_card", "amex 3782-822463-10005", "3782*******0005"),
    ("credit_card", "mc 5555555555554444", "5555********4444"),
    ("ssn", "SSN 123-45-6789 on file", "12*****89"),
    ("phone", "call (415) 555-0134", None),
    ("phone", "call +44 20 7946 0958", None),
    ("phone", "call 415.555.0134 now", None),
    ("iban", "IBAN DE89 3704 0044 0532 0130 00.", "DE89**************3000"),
    ("iban", "pay to GB82WEST12345698765432", "GB82**************5432"),
    ("ip_address", "from 192.168.1.20 today", None),
    ("ip_address", "host 2001:db8::8a2e:370:7334", None),
]

PII_NEGATIVE = [
    "Card 4111 1111 1111 1112 fails the Luhn check",
    "Order 1234567890123 shipped",
    "Revenue was 15,969 million",
    "Meeting on 2024-01-15 at 10:30",
    "SSN-like 000-12-3456 and 666-12-3456 are invalid",
    "IBAN DE89 3704 0044 0532 0130 01 has a bad checksum",
    "Version 1.2.3 and localhost 127.0.0.1",
    "Email me at example dot com",
    "Time 12:30:45 and ratio 3:2",
]


@pytest.mark.parametrize("kind, text, masked", PII_POSITIVE)
def test_pii_detected(kind, text, masked):
    findings = scan(text, PII_DETECTORS)
    assert [f.kind for f in findings] == [kind]
    if masked:
        assert findings[0].masked == masked


@pytest.mark.parametrize("text", PII_NEGATIVE)
def test_pii_look_alikes_ignored(text):
    assert scan(text, PII_DETECTORS) == []


SECRETS = [
    ("private_key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow..."),
    ("private_key", "-----BEGIN OPENSSH PRIVATE KEY-----"),
    ("certificate", "-----BEGIN CERTIFICATE-----\nMIID..."),
    ("sk_api_key", "key: sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"),
    ("anthropic_api_key", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123"),
    ("github_token", "ghp_" + "a1B2" * 9),
    ("gitlab_token", "glpat-abcdefghij0123456789"),
    ("slack_token", "xoxb-123456789012-abcdefghij"),
    ("stripe_key", "sk_live_" + "a" * 24),
    ("google_api_key", "AIza" + "B" * 35),
    ("huggingface_token", "hf_" + "abcdEFGH" * 4 + "ab"),
    ("aws_access_key_id", "AKIAIOSFODNN7EXAMPLE"),
    ("aws_secret_access_key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("azure_storage_key", "AccountName=x;AccountKey=" + "A" * 86 + "==;"),
    ("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"),
    ("windows_product_key", "XJ3KH-7TQ9B-MW2V8-RC4YP-BGT6D"),
    ("password", "password: hunter2secret"),
]


@pytest.mark.parametrize("kind, text", SECRETS)
def test_secrets_detected(kind, text):
    findings = scan(text, SECRET_DETECTORS)
    assert kind in [f.kind for f in findings]


@pytest.mark.parametrize(
    "text",
    [
        "The skeleton key-chain",
        "Use the ABCDE-FGHIJ-KLMNO-PQRST-UVWXY pattern",
        "sk-short",
        "password: ***",
        "a task-oriented approach",
    ],
)
def test_secret_look_alikes_ignored(text):
    assert scan(text, SECRET_DETECTORS) == []


def test_secret_never_shown_in_full():
    key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
    [result] = SensitiveDataLeakage().evaluate([Case(actual=f"Here it is: {key}")])
    assert not result.passed
    assert key not in result.reason and key not in (result.excerpt or "")
    assert key not in str(result.to_dict())


def test_pii_metrics_answer_and_context():
    evaluator = PiiLeakage()
    answer_leak, context_leak, clean, unchecked = evaluator.evaluate(
        [
            Case(actual="mail jane@example.com", context=["nothing"]),
            Case(actual="no data", context=["a", "ops@acme.example"]),
            Case(actual="no data"),
            Case(actual="no data", context=["ops@acme.example"]),
        ]
    )
    assert dict(answer_leak.metrics) == {"pass": 0.0, "fail": 1.0, "retrieval_leak": 0.0, "generation_leak": 1.0}
    assert dict(context_leak.metrics) == {"pass": 0.0, "fail": 1.0, "retrieval_leak": 1.0, "generation_leak": 0.0}
    assert context_leak.details["findings"][0]["where"] == "context[1]"
    assert dict(clean.metrics) == {"pass": 1.0, "fail": 0.0, "retrieval_leak": None, "generation_leak": 0.0}
    assert not unchecked.passed
    [ignored] = PiiLeakage(evaluate_context=False).evaluate([Case(actual="no data", context=["ops@acme.example"])])
    assert ignored.passed and ignored.metrics["retrieval_leak"] is None


def test_pii_kinds_and_allow():
    text = "Mail support@acme.example or call 415-555-0134"
    [only_phone] = PiiLeakage(kinds=["phone"]).evaluate([Case(actual=text)])
    assert [f["kind"] for f in only_phone.details["findings"]] == ["phone"]
    [allowed] = PiiLeakage(allow=[r"support@acme\.example", r"415-555-\d{4}"]).evaluate([Case(actual=text)])
    assert allowed.passed
    with pytest.raises(ValueError, match="parameter 'kinds' must be one of 'email'"):
        PiiLeakage(kinds=["passport"])
    with pytest.raises(ValueError, match=r"parameter 'allow\[0\]' is not a valid regular expression"):
        PiiLeakage(allow=["("])


def test_decode_blocks_finds_both_encodings():
    text = "a " + base64.b64encode(b"secret plan for monday").decode() + " b " + b"hello world!".hex()
    blocks = decode_blocks(text)
    assert [(b["encoding"], b["decoded"]) for b in blocks] == [
        ("base64", "secret plan for monday"),
        ("base16", "hello world!"),
    ]
    assert decode_blocks("plain words only and_identifiers_like_this_one") == []
    assert decode_blocks(base64.b64encode(bytes(range(256))).decode()) == []  # binary, not text


def test_encoding_guardrail_pii_fallback_and_conditions():
    leak = base64.b64encode(b"The SSN is 123-45-6789").decode()
    evaluator = EncodingGuardrail()
    fallback, conditioned, clean = evaluator.evaluate(
        [
            Case(actual=f"Sure! {leak}"),
            Case(actual=f"Sure! {leak}", conditions='NOT regexp("\\d{3}-\\d{2}-\\d{4}")'),
            Case(actual="I cannot share that.", conditions='NOT "123-45-6789"'),
        ]
    )
    assert not fallback.passed and fallback.details["check"] == "pii"
    assert fallback.details["decoded_blocks"][0]["decoded"] == "The SSN is 123-45-6789"
    assert not conditioned.passed and conditioned.details["check"] == "conditions"
    assert clean.passed and clean.metrics["parse_failure"] == 0.0
    [strict] = EncodingGuardrail(encoding="base16").evaluate([Case(actual="no hex here")])
    assert strict.metrics["parse_failure"] == 1.0
    with pytest.raises(ValueError, match="parameter 'encoding' must be one of 'auto', 'base64', 'base16'"):
        EncodingGuardrail(encoding="rot13")
