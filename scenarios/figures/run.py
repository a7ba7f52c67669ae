"""The figure of one pipeline run: ``relative_error.png``, the median relative error of count
queries per estimation method and query coverage (``mpc-rr run``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from scenarios.figures._backend import pyplot

__all__ = ["plot_relative_error", "plot_title"]


def plot_title(result: dict[str, Any]) -> str:
    """The title of ``relative_error.png``: data set, parties, p, epsilon, one run and its seed."""
    eps = result["epsilon"]["total"]
    return (
        f"{result['dataset']}: {result['parties']:,} parties, p = {result['options']['p']}, "
        f"total epsilon = {'inf' if eps is None else round(eps, 2)}, 1 run (seed {result['seed']})"
    )



def plot_relative_error(result: dict[str, Any], path: Path) -> Path:
    """``relative_error.png``: one bar per method and coverage, titled by :func:`plot_title`."""
    import numpy as np

    plt = pyplot()
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
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
