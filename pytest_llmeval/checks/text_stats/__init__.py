"""Text statistics: counts of words, sentences, syllables and tokens, readability (Flesch, Dale-Chall), reading
time, Japanese characters, and looping.
"""
