"""Checks scored by a pretrained language model: perplexity, GPTScore, BLEURT, MoverScore, and NLI hallucination
and summarization.
"""
