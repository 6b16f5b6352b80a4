"""Speech (Chapter 10): log-mel features, CTC loss and decoders, data synthesis, models.

Import from the topic modules (``from course_lib.speech.ctc import ctc_loss``); each
module's docstring names its lecture, papers and shape legend (B batch, T frames,
S label length, C classes incl. the blank, F frequency bins, M mel bands, N samples).
"""
