"""Facts and text structure: the checkable facts of a text (numbers, dates, names, relations), the parse they are
read from, and the offline evidence that an answer is not grounded in its context.
"""
