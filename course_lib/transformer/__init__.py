"""The Transformer (CS224N lecture 8; Vaswani et al., 2017). Chapter 8.

attention (scaled dot-product, multi-head), masks, positional (sinusoidal, learned),
layers (encoder/decoder, pre/post-LN, FFN), model (encoder-decoder with KV cache),
decoding (greedy, beam), train (batches, schedule, experiments), bugs (debugging section).
"""

from course_lib.transformer.attention import (
    MultiHeadAttention,
    heads_loop,
    scaled_dot_product_attention,
)
from course_lib.transformer.decoding import beam_search, greedy_decode
from course_lib.transformer.layers import DecoderLayer, EncoderLayer, FeedForward
from course_lib.transformer.masks import causal_mask, decoder_mask, padding_mask
from course_lib.transformer.model import Transformer, TransformerConfig
from course_lib.transformer.positional import (
    LearnedPositionalEncoding,
    SinusoidalPositionalEncoding,
    shift_matrix,
    sinusoidal_encoding,
    wavelengths,
)

__all__ = [
    "DecoderLayer",
    "EncoderLayer",
    "FeedForward",
    "LearnedPositionalEncoding",
    "MultiHeadAttention",
    "SinusoidalPositionalEncoding",
    "Transformer",
    "TransformerConfig",
    "beam_search",
    "causal_mask",
    "decoder_mask",
    "greedy_decode",
    "heads_loop",
    "padding_mask",
    "scaled_dot_product_attention",
    "shift_matrix",
    "sinusoidal_encoding",
    "wavelengths",
]
