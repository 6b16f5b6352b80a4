r"""A recurrent neural language model and its training by truncated BPTT. Chapter 5.

CS224N lecture 5: e^{(t)} = E x^{(t)}, h^{(t)} = σ(W_h h^{(t-1)} + W_e e^{(t)} + b_1),
ŷ^{(t)} = softmax(U h^{(t)} + b_2); the loss is the average cross-entropy over steps,
J(θ) = (1/T) Σ_t -log ŷ^{(t)}_{x_{t+1}}, with *teacher forcing*: the input at step t is the
true x_t, whatever the model predicted. A long corpus is cut into B parallel streams
(``batchify``) and then into windows of T steps (``tbptt_batches``); the hidden state is
carried from one window to the next but detached, so gradients flow back at most T
steps: truncated backpropagation through time (Williams & Peng, 1990).

The recurrence is the from-scratch :class:`course_lib.rnn.rnn_cell.RNN` (``cell="scratch"``)
or PyTorch's fused ``nn.RNN`` (``cell="torch"``, the same computation, checked in the
tests, and much faster on a CPU), or ``nn.LSTM`` (``cell="lstm"``, Chapter 6).
``tie_weights`` makes the output matrix U the embedding E (Press & Wolf, 2017), and
``train_tbptt`` steps an optional learning-rate schedule after every update.

Shape legend: B batch (parallel streams), T time (window), L stream length, E embedding
width, H hidden width, V vocabulary, N = B·T positions.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from course_lib import step_plan
from course_lib.checks import check_targets, check_token_ids
from course_lib.decoding.protocol import select_rows
from course_lib.lm.output import SoftmaxOutput
from course_lib.rnn.rnn_cell import RNN, copy_from_torch
from course_lib.runtime import progress_bar
from course_lib.training import History, evaluating

CELLS = ("torch", "scratch", "lstm")


@dataclass(frozen=True)
class RNNLMConfig:
    """Sizes of an :class:`RNNLM`: V, E, H, layers, the recurrence and the output layer."""

    vocab_size: int
    d_embed: int = 128
    d_hidden: int = 128
    num_layers: int = 1
    nonlinearity: str = "tanh"
    cell: str = "torch"
    dropout: float = 0.0
    cutoffs: tuple[int, ...] | None = None  # adaptive softmax clusters, None = full
    tie_weights: bool = False  # U = E (Press & Wolf, 2017): full softmax, E = H


class RNNLM(nn.Module):
    """Embedding -> RNN -> softmax(U h + b_2) over the next token. Chapter 5."""

    def __init__(
        self, config: RNNLMConfig, *, device: torch.device | str | None = None
    ):
        super().__init__()
        if config.cell not in CELLS:
            raise ValueError(f"cell must be one of {CELLS}, got {config.cell!r}")
        if config.cell == "scratch" and config.num_layers != 1:
            raise ValueError("the from-scratch cell has one layer; use cell='torch'")
        if config.tie_weights and (config.cutoffs or config.d_embed != config.d_hidden):
            raise ValueError(
                "tie_weights needs the full softmax (cutoffs=None) and d_embed == "
                f"d_hidden, got cutoffs={config.cutoffs}, {config.d_embed} != "
                f"{config.d_hidden}"
            )
        self.config = config
        self.embed = nn.Embedding(config.vocab_size, config.d_embed, device=device)
        self.drop = nn.Dropout(config.dropout)
        if config.cell == "scratch":
            self.rnn = RNN(
                config.d_embed, config.d_hidden, config.nonlinearity, device=device
            )
        elif config.cell == "torch":
            self.rnn = nn.RNN(
                config.d_embed,
                config.d_hidden,
                config.num_layers,
                nonlinearity=config.nonlinearity,
                batch_first=True,
                dropout=config.dropout if config.num_layers > 1 else 0.0,
                device=device,
            )
        else:
            self.rnn = nn.LSTM(
                config.d_embed,
                config.d_hidden,
                config.num_layers,
                batch_first=True,
                dropout=config.dropout if config.num_layers > 1 else 0.0,
                device=device,
            )
        self.out = SoftmaxOutput(
            config.d_hidden, config.vocab_size, config.cutoffs, device=device
        )
        if config.tie_weights:  # one (V, E) matrix embeds inputs and scores outputs
            self.out.linear.weight = self.embed.weight

    def features(self, x: Tensor, h0=None) -> tuple[Tensor, object]:
        """x: (B, T) token ids -> hidden states (B, T, H) and the last state."""
        check_token_ids(x, self.config.vocab_size, "x", allow_empty=True)
        e = self.drop(self.embed(x))  # (B, T, E)
        hs, h = self.rnn(e, h0)  # (B, T, H), state
        return self.drop(hs), h  # (B, T, H)

    def forward(self, x: Tensor, y: Tensor, h0=None) -> tuple[Tensor, object]:
        """Mean cross-entropy of the targets y (B, T) and the last hidden state."""
        hs, h = self.features(x, h0)  # (B, T, H)
        check_targets(y, x, self.config.vocab_size, "y", "x")
        loss = self.out.nll(hs.reshape(-1, hs.size(-1)), y.reshape(-1))  # (N, H) -> ()
        return loss, h

    def step(self, tokens: Tensor, state=None) -> tuple[Tensor, object]:
        """Decoding protocol (:mod:`course_lib.decoding`): tokens (N,) -> log ŷ (N, V) of
        the next token and the new hidden state (None: the zero state)."""
        hs, h = self.features(tokens[:, None], state)  # (N, 1, H)
        return self.out.log_prob(hs[:, -1]), h  # (N, V)

    def reorder(self, state, rows: Tensor):
        """Decoding protocol: keep, repeat or drop rows (N',) of the hidden state."""
        return select_rows(state, rows, dim=0 if self.config.cell == "scratch" else 1)


def _check_twinnable(fused: RNNLM) -> None:
    if fused.config.cell != "torch" or fused.config.num_layers != 1:
        raise ValueError(
            "scratch_twin needs a one-layer RNNLM with cell='torch', got "
            f"cell={fused.config.cell!r}, num_layers={fused.config.num_layers}"
        )


def scratch_twin(fused: RNNLM) -> RNNLM:
    """A from-scratch RNNLM (``cell="scratch"``) with the parameters of ``fused``.

    ``fused`` is a one-layer RNNLM on ``nn.RNN``. torch's two biases b_ih + b_hh are one
    parameter b_h in disguise, but gradient descent would move their sum twice as fast:
    ``fused``'s b_hh is set to zero and frozen (in place), so that the two models have
    the same parameters and train step for step alike. Chapter 5.
    """
    _check_twinnable(fused)
    device = fused.embed.weight.device
    twin = RNNLM(dataclasses.replace(fused.config, cell="scratch"), device=device)
    shared = {k: v for k, v in fused.state_dict().items() if not k.startswith("rnn.")}
    twin.load_state_dict(shared, strict=False)  # the embedding and the output layer
    with torch.no_grad():
        fused.rnn.bias_hh_l0.zero_()  # b_h = b_ih + 0
    fused.rnn.bias_hh_l0.requires_grad_(False)
    copy_from_torch(twin.rnn, fused.rnn)  # W_xh = W_ihᵀ, W_hh = W_hhᵀ, b_h = b_ih
    return twin


def batchify(
    ids: Tensor, batch_size: int, *, device: torch.device | str | None = None
) -> Tensor:
    """Cut a stream (L_total,) into B parallel streams (B, L), dropping the remainder.

    Row b holds the b-th contiguous slice of the corpus, so each row reads on across
    consecutive windows (what lets the hidden state carry over in truncated BPTT).
    """
    ids = torch.as_tensor(ids, dtype=torch.long)  # (L_total,)
    if ids.dim() != 1:
        raise ValueError(f"ids must be 1-D, got shape {tuple(ids.shape)}")
    if not isinstance(batch_size, int) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    L = ids.numel() // batch_size
    if L < 2:
        raise ValueError(f"{ids.numel()} tokens are too few for {batch_size} streams")
    return ids[: L * batch_size].reshape(batch_size, L).to(device)  # (B, L)


def tbptt_batches(data: Tensor, bptt: int) -> Iterator[tuple[Tensor, Tensor]]:
    """Windows (x, y) of (B, T) with y the next token of x (teacher forcing).

    The last window may be shorter than T.
    """
    if not isinstance(bptt, int) or bptt < 1:
        raise ValueError(f"bptt must be a positive int, got {bptt!r}")
    for i in range(0, data.size(1) - 1, bptt):
        T = min(bptt, data.size(1) - 1 - i)
        yield data[:, i : i + T], data[:, i + 1 : i + 1 + T]  # (B, T), (B, T)


def _windows(
    data: Tensor, bptt: int, epoch: int, max_steps: int | None, progress: bool, run
) -> Iterable[tuple[Tensor, Tensor]]:
    """Epoch ``epoch``'s windows ``tbptt_batches(data, bptt)`` under a progress bar, cut
    where the run reaches ``max_steps`` updates (None: no limit), or where a gpu check
    stops ``run`` (:mod:`course_lib.step_plan`). Every epoch before the last one of a run
    takes all n windows, so ``epoch * n`` updates came before."""
    n = _windows_per_epoch(data, bptt)
    left = n if max_steps is None else max(0, min(n, max_steps - epoch * n))
    windows = itertools.islice(tbptt_batches(data, bptt), left)
    return progress_bar(
        itertools.takewhile(lambda _: not step_plan.stopped(run), windows),
        total=left,
        desc=f"epoch {epoch + 1}",
        disable=not progress,
        leave=False,
    )


def _log(history: History, loss: Tensor, norm: Tensor, scheduler, run) -> float:
    """Record the update's loss and gradient norm (and the step, in a gpu check's ``run``),
    step the learning-rate schedule if any, and return the loss; a loss that is not finite
    stops training (FloatingPointError)."""
    step_plan.step(run)
    if not torch.isfinite(loss):
        raise FloatingPointError(f"loss became {loss.item()}: lower lr or clip")
    if scheduler is not None:
        scheduler.step()
    history.step_loss.append(loss.item())
    history.grad_norm.append(float(norm))
    return history.step_loss[-1]


def _windows_per_epoch(data: Tensor, bptt: int) -> int:
    return math.ceil((data.size(1) - 1) / bptt)


def _check_tbptt(data: Tensor, bptt: int, epochs: int, max_steps: int | None):
    """Check the run's arguments, and plan the updates they make: in a gpu check, the run
    (``epochs`` × the windows of an epoch, at most ``max_steps``), elsewhere None."""
    if epochs < 1:
        raise ValueError(f"epochs must be >= 1, got {epochs}")
    if max_steps is not None and (isinstance(max_steps, bool) or max_steps < 1):
        raise ValueError(f"max_steps must be a positive int or None, got {max_steps}")
    run = step_plan.begin("train_tbptt")  # a gpu check takes a few steps of it
    step_plan.plan_epochs(run, epochs, _windows_per_epoch(data, bptt), max_steps)
    return run


@torch.no_grad()
def evaluate_lm(model: RNNLM, data: Tensor, bptt: int) -> float:
    """Mean cross-entropy (nats per token) over a batchified stream (B, L), state carried."""
    total, count, h = 0.0, 0, None
    with evaluating(model):
        for x, y in tbptt_batches(data, bptt):
            loss, h = model(x, y, h)
            total += float(loss) * y.numel()
            count += y.numel()
    return total / count


def train_tbptt(
    model: RNNLM,
    data: Tensor,
    *,
    optimizer: torch.optim.Optimizer,
    bptt: int = 35,
    epochs: int = 1,
    clip_norm: float | None = 0.25,
    max_steps: int | None = None,
    valid: Tensor | None = None,
    scheduler: torch.optim.lr_scheduler.LRScheduler | None = None,
    progress: bool = True,
) -> History:
    """Train on a batchified stream (B, L) by truncated BPTT; returns a ``History``.

    Each window: loss J = mean cross-entropy over its B·T positions, backward through at
    most T steps (the carried state is detached after each update), clip the global
    gradient norm to ``clip_norm`` (Pascanu et al., 2013: g ← clip_norm · g / ‖g‖ when
    ‖g‖ > clip_norm; None: no clipping), update. ``max_steps`` stops early (the budgets
    of the cpu and smoke profiles); ``scheduler`` (a learning-rate schedule) is stepped
    after every update; a loss that is not finite stops training (FloatingPointError).
    ``course_lib.training.fit`` is not used because the hidden state must be carried
    from batch to batch, which its stateless ``loss_fn(model, batch)`` does not do.
    Its planned steps (a gpu check, :mod:`course_lib.step_plan`): ``epochs`` times the
    ⌈(L − 1) / bptt⌉ windows of an epoch, at most ``max_steps``.
    """
    run = _check_tbptt(data, bptt, epochs, max_steps)  # and a gpu check's run
    history, start = History(), time.perf_counter()
    model.train()
    for epoch in range(epochs):
        total, count, h = 0.0, 0, None
        for x, y in _windows(data, bptt, epoch, max_steps, progress, run):  # (B, T)
            loss, h = model(x, y, h)  # J (teacher forcing); h goes on, detached below
            optimizer.zero_grad(set_to_none=True)
            loss.backward()  # g = ∇J, back through this window's T steps only
            norm = nn.utils.clip_grad_norm_(model.parameters(), clip_norm or math.inf)
            optimizer.step()  # with g ← clip_norm · g / ‖g‖ where ‖g‖ > clip_norm
            h = tuple(s.detach() for s in h) if isinstance(h, tuple) else h.detach()
            total, count = total + _log(history, loss, norm, scheduler, run), count + 1
        history.train_loss.append(total / max(count, 1))
        if valid is not None:
            history.valid_loss.append(evaluate_lm(model, valid, bptt))
        if len(history.step_loss) == max_steps or step_plan.stopped(run):
            break
    history.seconds = time.perf_counter() - start
    return history
