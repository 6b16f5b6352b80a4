"""Language models (Chapter 5): n-gram counts and smoothing, the fixed-window neural LM,
the RNN LM with truncated BPTT, sampling and perplexity.

Import from the topic modules (``from course_lib.lm.ngram import KneserNey``).
"""
