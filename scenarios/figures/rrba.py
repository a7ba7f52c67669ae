"""The figure of one RRBA collection: ``convergence.png``, each subset's error against the
answers collected, where the stopping rule first held marked (``mpc-rr rrba``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from scenarios.figures._backend import plain_log, pyplot

if TYPE_CHECKING:
    from mpc_rr.rrba import RRBARun

__all__ = ["plot_convergence"]


def plot_convergence(run: RRBARun, path: Path, title: str, names: tuple[str, ...]) -> None:
    """Per-subset max |estimate - truth| against answers collected; first hold marked."""
    import numpy as np

    plt = pyplot()

    fig, ax = plt.subplots(figsize=(10.5, 5.5))
    S = len(run.cover.subsets)
    few = S <= 15
    colors = plt.cm.tab20(np.linspace(0, 1, max(S, 2))) if few else None
    for s in range(S):
        x, y = run.tuples[:, s], run.error[:, s]
        keep = x > 0
        kw: dict[str, Any] = (
            {"lw": 1.2, "color": colors[s]} if few else {"lw": 0.6, "color": "0.6", "alpha": 0.5}
        )
        ax.plot(
            x[keep],
            y[keep],
            label=",".join(names[a] for a in run.cover.subsets[s]) if few else None,
            **kw,
        )
        b = int(run.first_held[s])
        if b:
            ax.plot(x[b - 1], y[b - 1], "o", ms=5, mfc="none", color=kw["color"] if few else "C3")
    med = np.median(run.error, axis=1)
    ax.plot(np.median(run.tuples, axis=1), med, color="k", lw=2.2, label="median over subsets")
    if not few:
        ax.plot([], [], lw=0.6, color="0.6", label=f"each of the {S} subsets")
    ax.plot([], [], "o", mfc="none", color="k" if few else "C3", label="stopping rule first held")
    ax.set_yscale("log")
    plain_log(ax.yaxis)
    ax.set_xlabel("answers collected for the subset (tuples)")
    ax.set_ylabel("max |estimate - truth| over the subset's cells (probability)")
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3, which="both")
    ax.legend(
        fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="subset", title_fontsize=8
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
