"""Judge checks of an answer's quality: correctness against a reference, grades and buckets, summaries, rubrics
(Prometheus, G-Eval, a DAG, your own prompt), language mismatch and SelfCheckGPT.
"""
