"""The audit figures: the empirical epsilon lower bound against the trials, with the true and the
claimed epsilon (``mpc-rr audit``, a mechanism's black-box audit or the pipeline's one-run audit)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scenarios.figures._backend import plain_log, pyplot

if TYPE_CHECKING:
    from mpc_rr.adversary import AuditResult, PipelineAuditResult

__all__ = ["plot_audit", "plot_pipeline_audit"]


def _top(values: list[float]) -> float:
    """The plot's top: the largest finite value (an infinite epsilon is drawn at the top edge)."""
    finite = [v for v in values if math.isfinite(v)]
    return max(finite) if finite and max(finite) > 0 else 1.0


def _level(ax: Any, value: float | None, top: float, color: str, ls: str, what: str, lw: float = 1.5) -> None:
    """A horizontal line at ``value``; an infinite one at the top edge, labelled "= inf"."""
    if value is None:
        return
    if math.isfinite(value):
        ax.axhline(value, color=color, lw=lw, ls=ls, label=f"{what} {value:.3f}", zorder=2 if lw > 2 else 3)
        return
    ax.axhline(1.1 * top, color=color, lw=2.5, ls=ls,
               label=f"{what} = inf (a zero cell: an answer there can only be the truth)")  # fmt: skip
    ax.annotate(f"{what} = inf", (0.01, 1.1 * top), xycoords=("axes fraction", "data"),
                ha="left", va="bottom", color=color, fontsize=9)  # fmt: skip


def plot_audit(
    label: str, curve: list[dict[str, float]], res: AuditResult, claimed: float, source: str,
    out: Path, stem: str = "audit",
) -> Path:
    plt = pyplot()

    out.mkdir(parents=True, exist_ok=True)
    png = out / f"{stem}.png"
    x = [c["trials"] for c in curve]
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    lows = [c["epsilon_lower"] for c in curve]
    ldp = [c["ldp_auditor"] for c in curve]
    top = _top([claimed, res.epsilon_true or 0.0, *lows, *ldp])
    # the true line wide and pale under the claimed one: equal values stay both visible
    _level(ax, res.epsilon_true, top, "#9a9a9a", "-", "true epsilon", lw=5.0)
    same = res.epsilon_true is not None and math.isclose(claimed, res.epsilon_true, rel_tol=1e-9)
    _level(ax, claimed, top, "tab:red", "--", f"claimed ({source}){' = true' if same else ''}")
    ax.plot(x, [min(v, top) for v in lows], "o-", color="tab:blue",
            label=f"our lower bound ({100 * res.confidence:g}%)")
    ax.plot(x, [min(v, top) for v in ldp], "s:", color="tab:gray",
            label="LDP-Auditor formula, same runs and confidence")
    ax.set_xscale("log")
    plain_log(ax.xaxis)
    ax.set_xlabel("mechanism runs (trials)")
    ax.set_ylabel("epsilon (ln of a probability ratio)")
    ax.set_ylim(0, 1.2 * top + 1e-9)
    ax.set_title(f"Empirical epsilon: {label}", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png


def plot_pipeline_audit(
    label: str, curve: list[dict[str, float]], res: PipelineAuditResult, claimed: float,
    source: str, out: Path, stem: str = "audit",
) -> Path:
    plt = pyplot()

    out.mkdir(parents=True, exist_ok=True)
    png = out / f"{stem}.png"
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    lows = [c["epsilon_lower"] for c in curve]
    top = _top([claimed, res.epsilon_true or 0.0, *lows])
    # as in plot_audit: the true line wide and pale under the claimed one, equal values both visible
    _level(ax, res.epsilon_true, top, "#9a9a9a", "-", "true epsilon", lw=5.0)
    same = res.epsilon_true is not None and math.isclose(claimed, res.epsilon_true, rel_tol=1e-9)
    _level(ax, claimed, top, "tab:red", "--", f"claimed ({source}){' = true' if same else ''}")
    ax.plot([c["trials"] for c in curve], [min(v, top) for v in lows], "o-",
            color="tab:blue", label=f"one-run lower bound ({100 * res.confidence:g}%)")  # fmt: skip
    ax.set_xscale("log")
    plain_log(ax.xaxis)
    ax.set_xlabel("canary parties in the one run")
    ax.set_ylabel("epsilon")
    ax.set_ylim(0, 1.2 * top + 1e-9)
    ax.set_title(f"Empirical epsilon: {label}", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png
