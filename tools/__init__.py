"""Generators of the tables in the docs and the package (``python tools/docs_pages.py --write``,
``python tools/check_index.py --write``); a test fails when what they write is stale."""
