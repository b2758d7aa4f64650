"""``python -m pytest_llmeval history``: the ``llmeval`` console script (`pytest_llmeval.harness.cli`)."""

from __future__ import annotations

from .harness.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
