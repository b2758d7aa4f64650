"""Evaluators, one module per family; resolved by name through :mod:`pytest_llmeval.registry`."""
