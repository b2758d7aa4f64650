"""Operational metrics of the model under test: latency, tokens and cost."""
