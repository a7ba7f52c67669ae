"""The privacy ledger's plot: central epsilon against n for one eps0 and channel, the run marked."""

from __future__ import annotations

import math
from pathlib import Path

__all__ = ["plot_central_curve"]


def plot_central_curve(
    curve: list[dict[str, float]], path: Path, *, title: str, epsilon0: float,
    mark: tuple[int, float] | None = None, channel: str = "secure-sum", note: str | None = None,
    mark_label: str = "this run",
) -> Path:  # fmt: skip
    """PNG of ``curve`` (:func:`mpc_rr.workflows.central_curve`), log-log, with the local eps0 line.

    ``note``: a line under the plot saying how the curve's one report relates to the whole run
    (e.g. the total epsilon per party), so the figure is not read as the run's total."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ns = [p["n"] for p in curve]
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    ax.loglog(ns, [p["central_epsilon"] for p in curve], "-", lw=2,
              label=f"central, FMT21 numerical ({channel})")  # fmt: skip
    cf = [(p["n"], p["closed_form"]) for p in curve if not math.isnan(p["closed_form"])]
    if cf:
        ax.loglog(*zip(*cf, strict=True), "--", lw=1.2, label="central, FMT21 closed form")
    ax.axhline(epsilon0, color="grey", ls=":", label=f"local eps0 = {epsilon0:.3g} (direct channel)")
    if mark is not None:
        ax.plot([mark[0]], [mark[1]], "o", ms=9, color="crimson",
                label=f"{mark_label}: n = {mark[0]:,}, central {mark[1]:.3g}")  # fmt: skip
    ax.set_xlabel("parties n (reports shuffled together)")
    ax.set_ylabel("epsilon")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    if note:
        fig.subplots_adjust(bottom=0.2)
        fig.text(0.5, 0.015, note, ha="center", va="bottom", fontsize=8.5, wrap=True,
                 bbox={"boxstyle": "round", "fc": "#fff4d6", "ec": "#c9a227"})  # fmt: skip
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
