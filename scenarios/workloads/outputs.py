"""The files a run leaves behind: ``results.json``, its CSV and its plots (matplotlib).

The workflows (:mod:`mpc_rr.workflows`) return documents; writing and
plotting them is the command line's job, here.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np

from mpc_rr.rrba import RRBARun

__all__ = ["plot_convergence", "plot_title", "write_outputs", "write_privacy_plot"]


def plot_title(result: dict[str, Any]) -> str:
    """The title of ``relative_error.png``: data set, parties, p, epsilon, one run and its seed."""
    eps = result["epsilon"]["total"]
    return (
        f"{result['dataset']}: {result['parties']:,} parties, p = {result['options']['p']}, "
        f"total epsilon = {'inf' if eps is None else round(eps, 2)}, 1 run (seed {result['seed']})"
    )


def write_outputs(result: dict[str, Any], out: Path) -> list[Path]:
    """``results.json``, ``relative_error.csv`` and ``relative_error.png`` in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "results.json", out / "relative_error.csv", out / "relative_error.png"]
    paths[0].write_text(json.dumps(result, indent=1))
    with paths[1].open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["method", "sigma", "median_relative_error"])
        for m, by in result["relative_error"].items():
            for s, v in by.items():
                w.writerow([m, s, f"{v:.5f}"])
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    methods = list(result["relative_error"])
    sigmas = list(next(iter(result["relative_error"].values())))
    fig, ax = plt.subplots(figsize=(8, 4.5))
    width = 0.8 / len(sigmas)
    for k, s in enumerate(sigmas):
        ax.bar(
            np.arange(len(methods)) + k * width,
            [result["relative_error"][m][s] for m in methods],
            width,
            label=f"query coverage sigma = {s}",
        )
    ax.set_xticks(
        np.arange(len(methods)) + width * (len(sigmas) - 1) / 2, methods, rotation=15, fontsize=8
    )
    ax.set_ylabel("median relative error of count queries\n(|estimate - true| / true)")
    ax.set_title(plot_title(result), fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(paths[2], dpi=110)
    plt.close(fig)
    png = write_privacy_plot(result, out, result["dataset"])
    return paths + ([png] if png is not None else [])


def write_privacy_plot(result: dict[str, Any], out: Path, name: str) -> Path | None:
    """``privacy.png``: the ledger's central-vs-n curve with the run marked (docs/privacy.md)."""
    from scenarios.workloads.privacy_plot import plot_central_curve

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


def plot_convergence(run: RRBARun, path: Path, title: str, names: tuple[str, ...]) -> None:
    """Per-subset max |estimate - truth| against answers collected; first hold marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
