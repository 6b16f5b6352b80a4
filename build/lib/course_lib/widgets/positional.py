"""PositionalExplorer: sinusoidal position encodings, their offsets and wavelengths. Chapter 8.

The sinusoidal table PE (T, D) of Vaswani et al. (2017, §3.5) as a heatmap; a slider for an
offset k shows the cosine similarity of PE(t) and PE(t + k) along t (constant in t for the
sinusoids, since PE(t + k) = M_k PE(t) with M_k a rotation), the similarity by k, and
the sinusoid of one dimension pair with its wavelength 2π·base^(2i/D), marks at t and t + k.
A learned table (from a trained model) can be shown beside the sinusoidal one, with its
own similarity curve. The d_model, length and base controls need a kernel (they recompute
the table in Python); the offset and dimension sliders work in the static book too.
Front end: ``js/positional.js``.

Shape legend: T positions, D model width (d_model).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import traitlets as t
from matplotlib.figure import Figure

from course_lib.transformer.positional import sinusoidal_encoding, wavelengths
from course_lib.widgets.base import CourseWidget, js_path, to_jsonable

__all__ = ["PositionalExplorer"]


def _table(value: Any, name: str) -> np.ndarray:
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    m = np.asarray(value, dtype=np.float64)
    if m.ndim != 2:
        raise ValueError(f"{name} must be a (T, D) table; got shape {m.shape}")
    return m


def similarity_by_offset(pe: np.ndarray, k: int) -> np.ndarray:
    """Cosine similarity cos(PE(t), PE(t + k)) for t = 0 … T − 1 − k: (T − k,).

    For the sinusoids ‖PE(t)‖² = D/2 at every t, so this is 2·PE(t)·PE(t + k)/D; the
    cosine also puts a learned table of any scale on the same axis.
    """
    a, b = pe[: len(pe) - k], pe[k:]
    norms = np.linalg.norm(a, axis=-1) * np.linalg.norm(b, axis=-1)
    return (a * b).sum(-1) / np.where(norms > 0, norms, 1.0)


class PositionalExplorer(CourseWidget):
    """The sinusoidal position-encoding table, an offset slider and the learned table beside it.

    Args:
        d_model: D, even; length: T positions shown; base: 10000 in the paper.
        learned: optional (T', D') table of a trained model's learned encodings.
        offset: the initial k; dim: the initial sin/cos pair i shown as a curve.
    """

    _esm = js_path("positional")

    d_model = t.Int(64).tag(sync=True)
    length = t.Int(64).tag(sync=True)
    base = t.Float(10000.0).tag(sync=True)
    pe = t.List(help="(T, D) sinusoidal table, rounded").tag(sync=True)
    wavelengths = t.List(t.Float(), help="D/2 wavelengths").tag(sync=True)
    learned = t.List(help="(T', D') learned table, or empty").tag(sync=True)
    learned_label = t.Unicode("learned").tag(sync=True)
    offset = t.Int(1).tag(sync=True)
    dim = t.Int(0).tag(sync=True)
    title = t.Unicode("").tag(sync=True)

    def __init__(
        self,
        d_model: int = 64,
        length: int = 64,
        *,
        base: float = 10000.0,
        learned: Any | None = None,
        learned_label: str = "learned",
        offset: int = 1,
        dim: int = 0,
        title: str = "Sinusoidal position encodings",
        decimals: int = 3,
    ) -> None:
        self._decimals = decimals
        self._validate(d_model, length, base)
        if not 0 <= offset < length:
            raise ValueError(f"offset must be in 0..{length - 1}; got {offset}")
        if not 0 <= dim < d_model // 2:
            raise ValueError(f"dim must be in 0..{d_model // 2 - 1}; got {dim}")
        table = (
            [] if learned is None else to_jsonable(_table(learned, "learned"), decimals)
        )
        super().__init__(
            d_model=d_model,
            length=length,
            base=float(base),
            learned=table,
            learned_label=str(learned_label),
            offset=offset,
            dim=dim,
            title=str(title),
            **self._compute(d_model, length, base),
        )
        self.observe(self._recompute, names=["d_model", "length", "base"])

    @staticmethod
    def _validate(d_model: int, length: int, base: float) -> None:
        if not isinstance(d_model, int) or d_model < 2 or d_model % 2 or d_model > 512:
            raise ValueError(f"d_model must be an even int in 2..512; got {d_model!r}")
        if not isinstance(length, int) or not 2 <= length <= 512:
            raise ValueError(f"length must be an int in 2..512; got {length!r}")
        if not base > 1:
            raise ValueError(f"base must be > 1; got {base!r}")

    def _compute(self, d_model: int, length: int, base: float) -> dict[str, Any]:
        pe = sinusoidal_encoding(length, d_model, base=base).numpy()  # (T, D)
        return {
            "pe": to_jsonable(pe, self._decimals),
            "wavelengths": to_jsonable(wavelengths(d_model, base).numpy(), 2),
        }

    def _recompute(self, change: dict) -> None:
        """A kernel-side observer: a new d_model, length or base -> a new table."""
        d, n, b = self.d_model, self.length, self.base
        try:
            self._validate(d, n, b)
        except ValueError:
            return  # the front end clamps; an invalid moment leaves the last table
        with self.hold_sync():
            for key, value in self._compute(d, n, b).items():
                setattr(self, key, value)
            self.offset = min(self.offset, n - 1)
            self.dim = min(self.dim, d // 2 - 1)

    def table(self) -> np.ndarray:
        """The rounded sinusoidal table on show: (T, D)."""
        return np.array(self.pe, dtype=np.float64)

    def _plain_text(self) -> str:
        return (
            f"PositionalExplorer(d_model={self.d_model}, length={self.length}, "
            f"base={self.base:g}, offset={self.offset})"
        )

    def static_figure(self) -> Figure:
        """Heatmap of PE, similarity along t at offset k and by offset, one sinusoid."""
        pe = self.table()
        learned = np.array(self.learned, dtype=np.float64) if self.learned else None
        n = 4 if learned is not None else 3
        fig = Figure(figsize=(4.2 * n, 3.4), layout="constrained")
        axes = fig.subplots(1, n)
        im = axes[0].imshow(pe, cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto")
        axes[0].set(title="PE (sinusoidal)", xlabel="dimension", ylabel="position t")
        fig.colorbar(im, ax=axes[0], fraction=0.046)
        k = self.offset
        ks = np.arange(len(pe))
        axes[1].plot(
            ks, [similarity_by_offset(pe, j).mean() for j in ks], label="sinusoidal"
        )
        if learned is not None:
            kl = np.arange(len(learned))
            axes[1].plot(
                kl,
                [similarity_by_offset(learned, j).mean() for j in kl],
                label=self.learned_label,
            )
        axes[1].axvline(k, color="grey", lw=0.8, ls="--")
        axes[1].set(title="cos(PE(t), PE(t+k)), mean over t", xlabel="offset k")
        axes[1].legend(fontsize=8)
        i = self.dim
        tt = np.linspace(0, len(pe) - 1, 400)
        w = self.wavelengths[i]
        omega = 2 * np.pi / w
        axes[2].plot(tt, np.sin(tt * omega), label=f"sin, dim {2 * i}")
        axes[2].plot(tt, np.cos(tt * omega), label=f"cos, dim {2 * i + 1}", alpha=0.7)
        axes[2].set(title=f"pair i={i}: wavelength {w:.1f}", xlabel="position t")
        axes[2].legend(fontsize=8, loc="lower right")
        if learned is not None:
            lim = float(np.abs(learned).max()) or 1.0
            im2 = axes[3].imshow(
                learned, cmap="RdBu_r", vmin=-lim, vmax=lim, aspect="auto"
            )
            axes[3].set(
                title=self.learned_label, xlabel="dimension", ylabel="position t"
            )
            fig.colorbar(im2, ax=axes[3], fraction=0.046)
        if self.title:
            fig.suptitle(self.title)
        return fig
