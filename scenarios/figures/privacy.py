"""The privacy ledger's figure: central epsilon against n for one eps0 and channel, the run marked
(``privacy.png`` of ``mpc-rr run``, ``rrba`` and ``privacy --plot``)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from scenarios.figures._backend import plain_log, pyplot

__all__ = ["plot_central_curve", "write_privacy_plot"]


def plot_central_curve(
    curve: list[dict[str, float]], path: Path, *, title: str, epsilon0: float,
    mark: tuple[int, float] | None = None, channel: str = "secure-sum", note: str | None = None,
    mark_label: str = "this run",
) -> Path:  # fmt: skip
    """PNG of ``curve`` (:func:`mpc_rr.workflows.central_curve`), log-log, with the local eps0 line.

    ``note``: a line under the plot saying how the curve's one report relates to the whole run
    (e.g. the total epsilon per party), so the figure is not read as the run's total."""
    plt = pyplot()

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
    plain_log(ax.xaxis)
    plain_log(ax.yaxis)
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


def write_privacy_plot(result: dict[str, Any], out: Path, name: str) -> Path | None:
    """``privacy.png``: the ledger's central-vs-n curve with the run marked (docs/privacy.md)."""
    data = (result.get("privacy") or {}).get("plot_data") or {}
    if not data:
        return None
    k = "" if data["k"] is None else f" (k-RR, k = {data['k']})"
    eps = result.get("epsilon") or {}
    shown = {key: ("inf" if eps.get(key) is None else f"{eps[key]:.3g}") for key in ("dependence", "release", "total")}
    note = (f"One report of the run, not its total: each party's local epsilon over the whole run is "
            f"{shown['total']} (dependence {shown['dependence']} + release {shown['release']}, "
            "sequential composition; the console and results.json give its central figure)") if eps else None  # fmt: skip
    return plot_central_curve(
        data["curve"], out / "privacy.png", epsilon0=data["epsilon0"], channel="shuffled",
        mark=(data["parties"], data["mark"]), note=note, mark_label="this run, one report",
        title=f"{name}: one report of {data['phase']}, eps0 = {data['epsilon0']:.3g}{k}, "
        f"sent {data['channel']}",
    )  # fmt: skip
