"""Text helpers every layer uses: sentence splitting and normalisation, the PII and secret patterns, the condition
language of ``assert_matches``, and the seeded perturbations of robustness tests.
"""
