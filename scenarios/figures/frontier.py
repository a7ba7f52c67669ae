"""The trust-model frontier's figure: count-query error against central epsilon, one line per
trust model, with the 95% interval of the mean over the repeats as a band."""

from __future__ import annotations

from pathlib import Path
from typing import Any

__all__ = ["plot_frontier"]


def plot_frontier(doc: dict[str, Any], path: Path, *, title: str) -> Path:
    """PNG of a frontier's JSON (:meth:`mpc_rr.workflows._frontier.FrontierReport.to_json`):
    x the target central epsilon (log), y the mean relative error of the count queries (log)."""
    from matplotlib.ticker import NullFormatter

    from scenarios.figures._backend import pyplot

    plt = pyplot()

    fig, ax = plt.subplots(figsize=(9.0, 5.0))
    styles = ["-o", "-s", "-^", "-v", "-D", "-P", "-X", "-*"]
    reference = "trusted curator"  # drawn dashed in black: the reference, not a trust model to pick
    for i, model in enumerate(doc["models"]):
        pts = sorted((p for p in doc["points"] if p["model"] == model), key=lambda p: p["epsilon"])
        xs = [p["epsilon"] for p in pts]
        ys = [p["mean"] for p in pts]
        lo = [max(p["ci95"][0], 1e-4) for p in pts]
        hi = [p["ci95"][1] for p in pts]
        fmt, extra = (("--x", {"color": "black"}) if model == reference else (styles[i % len(styles)], {}))
        line = ax.plot(xs, ys, fmt, lw=1.6, ms=5, label=model, **extra)[0]
        ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.15, lw=0)
    ax.set_xscale("log")
    ax.set_yscale("log")
    eps = doc["epsilons"]
    ax.set_xlim(min(eps) / 1.3, max(eps) * 1.3)
    ax.set_xticks(eps, [f"{e:g}" for e in eps])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel(f"central epsilon per record (delta {doc['delta']:g})")
    ax.set_ylabel(f"mean relative error of {doc['queries']} count queries (coverage {doc['coverage']:g})")
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), title="trust model", title_fontsize=8)
    fig.text(0.5, 0.01, f"{doc['parties']:,} parties, {doc['repeats']} repeats per point; bands: 95% "
             f"interval of the mean; colluding fraction {doc['max_corrupt']:g} in every model that bounds it",
             ha="center", va="bottom", fontsize=8)  # fmt: skip
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
