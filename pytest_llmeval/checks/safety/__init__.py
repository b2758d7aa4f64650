"""Safety checks: personal data and secrets (patterns, Presidio), data smuggled out in encodings, toxicity, bias,
sexism, stereotypes, prompt injection and contact information.
"""
