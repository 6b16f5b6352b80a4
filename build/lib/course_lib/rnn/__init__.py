"""Recurrent networks from scratch (Chapters 5 and 6): cells, wrappers and taggers.

Import from the topic modules (``from course_lib.rnn.rnn_cell import RNN``); each module's
docstring names its lecture, papers and shape legend (B batch, T time, D input width,
H hidden width).
"""
