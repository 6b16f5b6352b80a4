"""Language models (Chapter 5): n-gram counts and smoothing, the fixed-window neural LM,
the RNN and LSTM LM with truncated BPTT, the interpolation of a neural LM with an
n-gram LM, sampling and perplexity.

Import from the topic modules (``from course_lib.lm.ngram import KneserNey``).
"""
