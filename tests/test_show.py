import pytest

from course_lib.show import show_source, strip_docstring
from course_lib.training import fit


def test_show_source_is_the_library_code():
    code = show_source(fit)
    assert "def fit(" in code.data and "clip_grad_norm_" in code.data


def test_strip_docstring_removes_only_the_docstring():
    text = strip_docstring('def f(x):\n    """Doc\n    more."""\n    return x\n')
    assert text == "def f(x):\n    return x\n"
    assert "Train ``model``" not in show_source(fit, docstring=False).data


def test_show_source_rejects_builtins():
    with pytest.raises(TypeError, match="show_source"):
        show_source(len)


def test_the_listings_chapters_show_stay_short():
    """DESIGN point 11: a shown method is about 20 lines of the lecture's equations."""
    import ast
    import inspect

    from course_lib.backprop import Value
    from course_lib.lm.ngram_counts import NGramCounts
    from course_lib.lm.rnn_lm import train_tbptt
    from course_lib.parsing import static_oracle
    from course_lib.rnn.stacked import RecurrentNet
    from course_lib.transformer.attention import MultiHeadAttention

    shown = [
        MultiHeadAttention.forward,
        RecurrentNet.forward,
        train_tbptt,
        NGramCounts.__init__,
        static_oracle,
        Value.__matmul__,
    ]
    for fn in shown:
        node = ast.parse(strip_docstring(inspect.getsource(fn))).body[0]
        body = node.end_lineno - node.body[0].lineno + 1
        assert body <= 25, f"{fn.__qualname__}: {body} lines of body"
