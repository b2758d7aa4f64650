"""Embedding checks: groundedness, answer accuracy, semantic similarity, relevancy, context ranking, BERTScore,
self-consistency, questions drift and step alignment.
"""
