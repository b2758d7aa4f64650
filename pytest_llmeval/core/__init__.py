"""The record and its contract: the evaluator base, the case a check reads, the immutable result and its
signature, recording on the running test, the registry of names, and ``assert_check`` / ``evaluate``.
"""
