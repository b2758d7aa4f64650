"""Lexical checks: the condition language, JSON Schema, exact match, edit distance, ROUGE, BLEU and METEOR."""
