"""The attention recogniser (Chapter 10): Chapter 7's Seq2Seq over CTC's front end."""

import pytest
import torch
import torch.nn.functional as F

from course_lib.seq2seq.model import Seq2Seq, Seq2SeqConfig
from course_lib.seq2seq.train import seq2seq_loss
from course_lib.speech.attention_recognizer import (
    BOS,
    CHARACTERS,
    EOS,
    AttentionRecognizer,
    decode_characters,
    encode_characters,
    recognise_characters,
    spell_digits,
    unspell,
)
from course_lib.speech.models import CTCRecognizer
from course_lib.speech.train import pad_batch, train_attention_recognizer


def _model(seed=0):
    torch.manual_seed(seed)
    return AttentionRecognizer(8, d_emb=12, d_hidden=16, dropout=0.0).eval()


def test_spelling_round_trips_and_rejects_what_is_not_a_digit_string():
    assert spell_digits("4170") == "four one seven zero"
    assert unspell("four one seven zero") == "4170"
    assert unspell("four ome seven") == "4?7"  # a misspelt word is a wrong digit
    for bad, why in (
        ("", "non-empty"),
        ("4a", "outside the alphabet 0-9"),
        (417, "non-empty string"),
    ):
        with pytest.raises(ValueError, match=why):
            spell_digits(bad)
    assert CHARACTERS[0] == " " and len(CHARACTERS) == 16
    ids = encode_characters("nine two")
    assert ids[0] == BOS and ids[-1] == EOS and decode_characters(ids) == "nine two"
    with pytest.raises(ValueError, match="need characters"):
        encode_characters("nine 2")


def test_the_front_end_is_ctcs():
    model = _model()
    ctc = CTCRecognizer(8, 12, 16)
    ctc.conv1.load_state_dict(model.conv1.state_dict())
    ctc.conv2.load_state_dict(model.conv2.state_dict())
    x, lengths = torch.randn(3, 37, 8), torch.tensor([37, 20, 9])
    torch.testing.assert_close(model._front_end(x, lengths), ctc._front_end(x, lengths))
    assert (
        model.output_lengths(lengths).tolist() == ctc.output_lengths(lengths).tolist()
    )


def test_encode_vectors_is_what_encode_runs_after_the_embedding():
    torch.manual_seed(0)
    s2s = Seq2Seq(Seq2SeqConfig(11, 13, d_emb=6, d_hidden=8, dropout=0.0)).eval()
    src, lens = torch.tensor([[4, 5, 6, 7], [8, 9, 0, 0]]), torch.tensor([4, 2])
    a, b = s2s.encode(src, lens), s2s.encode_vectors(s2s.src_embed(src), lens)
    for x, y in zip(a, b, strict=True):
        torch.testing.assert_close(x, y)


def test_teacher_forced_loss_equals_the_decoders_step_by_step_log_probability():
    """seq2seq_loss on a batch = −Σ_t log P(y_t | y_<t, x) from the decoding protocol
    (start, step), summed per utterance and divided by the number of target tokens;
    padding in the batch changes nothing."""
    model = _model()
    frames = [torch.randn(41, 8), torch.randn(23, 8)]
    ys = [encode_characters("one two"), encode_characters("six")]
    x, lengths = pad_batch(frames)
    tgt = torch.nn.utils.rnn.pad_sequence([torch.tensor(y) for y in ys], True)
    with torch.no_grad():
        loss = seq2seq_loss(model, (x, lengths, tgt))
        total = 0.0
        for f, y in zip(frames, ys, strict=True):  # each utterance alone, unpadded
            state = model.start(f[None], torch.tensor([len(f)]))
            for prev, nxt in zip(y[:-1], y[1:], strict=False):
                log_p, state = model.step(torch.tensor([prev]), state)  # (1, V)
                total -= log_p[0, nxt].item()
    n_tokens = sum(len(y) - 1 for y in ys)
    assert loss.item() == pytest.approx(total / n_tokens, rel=1e-5)


def test_bad_frames_get_a_clear_error():
    with pytest.raises(ValueError, match=r"log-mel frames \(B, T, M=8\)"):
        _model().encode(torch.randn(2, 10, 5), torch.tensor([10, 4]))


def test_training_fits_a_few_utterances_and_greedy_decoding_reads_them_back():
    torch.manual_seed(1)
    frames = [torch.randn(30 + 6 * i, 8) for i in range(4)]
    texts = ["one", "two", "six", "nine"]
    model = AttentionRecognizer(8, d_emb=16, d_hidden=32, dropout=0.0)
    labels = [encode_characters(t) for t in texts]
    hist = train_attention_recognizer(
        model,
        frames,
        labels,
        epochs=60,
        lr=1e-2,
        batch_size=4,
        augment=False,
        progress=False,
    )
    assert hist.step_loss[-1] < 0.1 * hist.step_loss[0]
    assert recognise_characters(model, frames, max_len=8) == texts
    out = model(*pad_batch(frames), torch.tensor([[BOS]] * 4))[0]  # (4, 1, V)
    first = F.log_softmax(out[:, 0], -1).argmax(-1)
    assert decode_characters(first.tolist()) == "otsn"


def test_an_unknown_training_option_is_named():
    with pytest.raises(TypeError, match="unexpected keyword argument 'batchsize'"):
        train_attention_recognizer(
            _model(),
            [torch.randn(20, 8)],
            [encode_characters("one")],
            epochs=1,
            batchsize=4,
        )
