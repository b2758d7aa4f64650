"""Judge checks of retrieval-augmented answers: faithfulness, context precision, recall and relevancy,
hallucination, answer correctness and relevancy, RAGAS.
"""
