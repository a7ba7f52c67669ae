"""The attack figures: linkability against n, a coalition's success against its size, and what
an eavesdropper reads per attribute (``mpc-rr attack linkability | coalition | eavesdrop``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from scenarios.figures._backend import plain_log, pyplot

if TYPE_CHECKING:
    from mpc_rr.adversary import LinkabilityResult

__all__ = ["eavesdrop_plottable", "plot_coalition", "plot_eavesdrop", "plot_linkability"]


def plot_linkability(
    curve: list[dict[str, object]], p: float, out: Path,
    main: tuple[int, str, LinkabilityResult] | None = None, *, seed: int | None = None,
    data: str = "adult", pairs: int = 28, name: str = "linkability.png",
) -> Path:
    from mpc_rr.adversary import LINK_CHANNELS as CHANNELS

    plt = pyplot()

    out.mkdir(parents=True, exist_ok=True)
    png = out / name  # one file per command line: a new attack keeps the last one's plot
    x = [int(row["parties"]) for row in curve]  # type: ignore[call-overload]
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    style = {"direct": ("tab:red", "o-"), "anonymous": ("tab:blue", "s-"), "secure-sum": ("tab:green", "^--")}
    for ch in CHANNELS:
        color, fmt = style[ch]
        ys = [row[ch]["success"] for row in curve]  # type: ignore[index]
        lo = [row[ch]["ci"][0] for row in curve]  # type: ignore[index]
        hi = [row[ch]["ci"][1] for row in curve]  # type: ignore[index]
        ax.plot(x, ys, fmt, color=color, label=ch, ms=6)
        ax.fill_between(x, lo, hi, color=color, alpha=0.15)
    base = [row["anonymous"]["baseline"] for row in curve]  # type: ignore[index]
    ax.plot(x, base, ":", color="black", label="random grouping (baseline)")
    if main is not None:
        n, ch, r = main
        ax.errorbar(
            [n], [r.success], yerr=[[r.success - r.ci[0]], [r.ci[1] - r.success]], fmt="*",
            ms=13, color=style[ch][0], mec="black", label=f"this run: {ch}, n = {n:,}",
        )
        ax.plot([n], [r.baseline], "_", ms=14, color="black")
    ax.set_xscale("log")
    plain_log(ax.xaxis)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("parties n (log scale)")
    ax.set_ylabel("share of a party's pair values its group holds (fraction)")
    runs = "one run per n" + (f", seed {seed}" if seed is not None else "")
    ax.set_title(f"Linking pairwise-RR submissions ({data}, {pairs} pairs, p = {p:g}; {runs})", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png


def plot_coalition(
    protocol: str, n: int, curve: list[dict[str, Any]], threshold: int, rule: str, size: int,
    folder: Path, name: str = "coalition.png", *, server: bool = False,
) -> Path:
    plt = pyplot()

    folder.mkdir(parents=True, exist_ok=True)
    png = folder / name  # one file per command line: a new attack keeps the last one's plot
    x = [c["size"] for c in curve]
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    ax.plot(x, [c["success"] for c in curve], "o-", color="tab:red", label="attack success")
    ax.fill_between(x, [c["ci"][0] for c in curve], [c["ci"][1] for c in curve], color="tab:red",
                    alpha=0.15, label="attack success: confidence interval")  # fmt: skip
    ax.plot(x, [c["recovery_rate"] for c in curve], "s:", color="tab:purple", ms=4,
            label="inputs determined by the view")  # fmt: skip
    ax.plot(x, [c["baseline"] for c in curve], "--", color="black",
            label="baseline: the sum minus the coalition's inputs")  # fmt: skip
    ax.axvline(threshold, color="tab:blue", lw=1.4, label=f"declared bound: {rule}")
    ax.axvline(size, color="tab:gray", lw=0.8, ls=":", label=f"the coalition attacked: {size} parties")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # a coalition has a whole number of parties
    ax.set_xlabel("colluding data parties C" + (" (+ the server)" if server else ""))
    ax.set_ylabel("share of honest inputs guessed right")
    ax.set_ylim(-0.02, 1.05)
    ax.set_title(f"Coalitions against {protocol} ({n} parties)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7.5, loc="center left", bbox_to_anchor=(0.01, 0.62), framealpha=0.9)
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png


def eavesdrop_plottable(out: dict[str, Any]) -> bool:
    c = out.get("content")
    return isinstance(c, dict) and "success_per_attribute" in c


def plot_eavesdrop(out: dict[str, Any], folder: Path, name: str = "eavesdrop.png") -> Path:
    plt = pyplot()
    import numpy as np

    c = out["content"]
    names = c["attributes"]
    succ, base = c["success_per_attribute"], c["baseline_per_attribute"]
    lo = [v[0] for v in c["ci_per_attribute"]]
    hi = [v[1] for v in c["ci_per_attribute"]]
    extra = c["attacker_estimated_prior"]
    what = ("RRBA answers" if out["protocol"] == "rrba"
            else f"Pipeline records ({c['mechanism']} release)")  # fmt: skip
    title = (f"{what} read in plaintext ({out['transport']}), p = {c['p']:g}, "
             f"{out['parties']:,} parties")  # fmt: skip
    prior_label = ("attacker: the public table as prior" if out["protocol"] == "rrba"
                   else "attacker with an estimated prior")  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    png = folder / name  # one file per command line: a new attack keeps the last one's plot
    x = np.arange(len(names))
    fig, ax = plt.subplots(figsize=(8, 4.4))
    ax.bar(x - 0.2, base, 0.4, color="tab:gray", label="prior mode (no record read)")
    ax.bar(x + 0.2, succ, 0.4, color="tab:red", label="Bayes-optimal from the records")
    ax.errorbar(x + 0.2, succ, yerr=[np.subtract(succ, lo), np.subtract(hi, succ)], fmt="none",
                ecolor="black", capsize=3)  # fmt: skip
    ax.plot(x + 0.2, extra, "k_", ms=14, label=prior_label)
    ax.set_xticks(x, names, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1.2)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_ylabel("share of parties whose value is guessed right")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, loc="upper center", ncol=3, framealpha=0.9)
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png
