"""The Transformer (CS224N lecture 8; Vaswani et al., 2017). Chapter 8.

attention (scaled dot-product, multi-head), masks, positional (sinusoidal, learned),
layers (encoder/decoder, pre/post-LN, FFN), model (encoder-decoder with KV cache, decoded by
:mod:`course_lib.decoding`), train (schedule, experiments), bugs (debugging section),
complexity (against recurrence and convolution, Table 1), ablation (residuals, FFN),
extrapolation (positions past the training length), label_smoothing.
"""

from course_lib.transformer.attention import (
    MultiHeadAttention,
    heads_loop,
    scaled_dot_product_attention,
)
from course_lib.transformer.layers import DecoderLayer, EncoderLayer, FeedForward
from course_lib.transformer.masks import causal_mask, decoder_mask, padding_mask
from course_lib.transformer.model import DecodeState, Transformer, TransformerConfig
from course_lib.transformer.positional import (
    LearnedPositionalEncoding,
    SinusoidalPositionalEncoding,
    SinusoidSteps,
    shift_matrix,
    sinusoidal_encoding,
    sinusoidal_steps,
    wavelengths,
)

__all__ = [
    "DecodeState",
    "DecoderLayer",
    "EncoderLayer",
    "FeedForward",
    "LearnedPositionalEncoding",
    "MultiHeadAttention",
    "SinusoidSteps",
    "SinusoidalPositionalEncoding",
    "Transformer",
    "TransformerConfig",
    "causal_mask",
    "decoder_mask",
    "heads_loop",
    "padding_mask",
    "scaled_dot_product_attention",
    "shift_matrix",
    "sinusoidal_encoding",
    "sinusoidal_steps",
    "wavelengths",
]
