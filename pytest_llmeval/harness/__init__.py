"""The pytest integration behind `pytest_llmeval.plugin`: the options, the per-run session, the markers and
the hook specifications.
"""
