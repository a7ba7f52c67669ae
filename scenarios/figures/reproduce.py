"""The reproductions' figures: the MDRR paper's Figure 3, and the RRBA paper's convergence
heat maps, Fig. 5 analogue, Table 4 and Tables 5-6 (``mpc-rr reproduce``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from scenarios.figures._backend import pyplot

__all__ = ["plot_fig3", "plot_rrba_convergence", "plot_table4", "plot_tables56"]


def plot_fig3(fig: dict, png: Path, what: str = "") -> None:
    plt = pyplot()

    # one y scale for every panel: the panels compare p
    fig_, axes = plt.subplots(2, 2, figsize=(10, 8), sharex=True, sharey=True)
    for ax, (p, methods) in zip(axes.flat, fig.items(), strict=False):
        for m, by_sigma in methods.items():
            ax.plot(list(by_sigma), list(by_sigma.values()), marker="o", label=m)
        ax.set_title(f"p = {p}")
        ax.set_xlabel("query coverage sigma (fraction of records)")
        ax.set_ylabel("median relative error of count queries\n(|estimate - true| / true)")
        ax.set_yscale("log")
        ax.grid(True, alpha=0.3)
    axes.flat[0].legend(fontsize=8)
    fig_.suptitle(f"Figure 3 reproduced: {what}" if what else "Figure 3 reproduced", fontsize=11)
    fig_.tight_layout()
    fig_.savefig(png, dpi=110)
    plt.close(fig_)


def plot_rrba_convergence(rows: list[dict[str, Any]], out: Path, trials: int) -> list[Path]:
    """Heat maps of the convergence rate (one PNG per criterion) and Fig. 5's tuples."""
    from matplotlib.ticker import NullLocator

    from scenarios.reproduce.rrba_report import convergence_rates

    plt = pyplot()

    ests = sorted({r["estimator"] for r in rows}, reverse=True)
    ps = sorted({r["p"] for r in rows})
    qs, bs = sorted({r["q"] for r in rows}), sorted({r["block"] for r in rows})
    paths = []
    for crit, label in (("rule", "Sec. 5 rule holds from a block <= 100 to block 200"),
                        ("accuracy", "|estimate - q| < delta*(q, B) from a block <= 100 to block 200")):  # fmt: skip
        c = {e: convergence_rates(rows, e, crit) for e in ests}
        fig, axes = plt.subplots(
            len(ests), len(bs), figsize=(4.2 * len(bs), 3.6 * len(ests)), squeeze=False
        )
        for i, e in enumerate(ests):
            for j, b in enumerate(bs):
                ax = axes[i, j]
                grid = np.array([[c[e][(p, b, q)] for q in qs] for p in ps])
                ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto", origin="lower")
                for (y, x), v in np.ndenumerate(grid):
                    ax.text(x, y, f"{v:.2f}".lstrip("0") if v < 1 else "1", ha="center", va="center",
                            fontsize=6.5, color="w" if v < 0.5 else "k")  # fmt: skip
                ax.set_xticks(range(len(qs)), [f"{q:g}" for q in qs], rotation=60, fontsize=7)
                ax.set_yticks(range(len(ps)), [f"{p:g}" for p in ps], fontsize=7)
                ax.set_title(f"estimator={e}, B={b}", fontsize=9)
                ax.set_xlabel("cell probability q", fontsize=8)
                ax.set_ylabel("p (truthful-answer probability)", fontsize=8)
        fig.suptitle(
            f"RRBA convergence rate over {trials} trials x 200 blocks (binary tables): {label}",
            fontsize=10,
        )
        fig.tight_layout()
        path = out / f"rrba_convergence_{crit}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)
    if 0.5 in ps:
        fig, axes = plt.subplots(2, len(ests), figsize=(6.5 * len(ests), 8.2), squeeze=False)
        for j, e in enumerate(ests):
            top, bottom = axes[0, j], axes[1, j]
            for i, q in enumerate(qs):
                col = plt.cm.viridis(i / len(qs))
                rr = {
                    r["block"]: r
                    for r in rows
                    if r["estimator"] == e and r["p"] == 0.5 and r["q"] == q
                }
                x = [b for b in bs if rr[b]["converged_rate"] >= 0.5]
                top.plot(x, [rr[b]["tuples_mean"] for b in x], "o-", color=col, label=f"q={q:g}")
                top.plot(bs, [rr[b]["first_hold_tuples_mean"] for b in bs], ":", color=col)
                bottom.plot(
                    bs,
                    [rr[b]["error_at_first_hold_mean"] for b in bs],
                    "o-",
                    color=col,
                    label=f"q={q:g}",
                )
                bottom.plot(bs, [rr[b]["final_abs_error_mean"] for b in bs], "--", color=col)
            top.plot([], [], "k:", label="rule first holds (Sec. 5 stop)")
            bottom.plot([], [], "k--", label="after all 200 blocks")
            for ax in (top, bottom):
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.set_xticks(bs, [str(b) for b in bs])
                ax.xaxis.set_minor_locator(NullLocator())
                ax.set_xlabel("block size B (clients)")
                ax.grid(True, alpha=0.3, which="both")
                ax.legend(fontsize=7, ncol=2)
            top.set_ylabel("tuples until the rule holds for good (answers)")
            top.set_title(
                f"estimator={e}, p = 0.5: solid = converging in >= half the trials", fontsize=9
            )
            bottom.set_ylabel("mean |estimate - q| (probability)")
            bottom.set_title(
                f"estimator={e}, p = 0.5: error where the rule first holds (solid)", fontsize=9
            )
        fig.suptitle(
            f"Fig. 5 analogue: tuples to convergence and error vs block size, {trials} trials x 200 blocks",
            fontsize=10,
        )
        fig.tight_layout()
        path = out / "rrba_convergence_tuples.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)
    return paths


def plot_table4(rows: list[dict[str, Any]], path: Path, runs: int, n: int) -> None:
    from scenarios.reproduce.rrba import PAPER_TABLE4

    plt = pyplot()
    ks = sorted({r["k"] for r in rows})
    methods = list(dict.fromkeys(r["method"] for r in rows))
    paper = [(f"paper: {m}", [PAPER_TABLE4[m][k][0] for k in ks]) for m in PAPER_TABLE4]
    ours = [
        (m, [next(r["accuracy"] for r in rows if r["method"] == m and r["k"] == k) for k in ks])
        for m in methods
    ]
    series = ours + paper
    fig, ax = plt.subplots(figsize=(10, 5.4))
    w = 0.8 / len(series)
    for i, (name, vals) in enumerate(series):
        ax.bar(np.arange(len(ks)) + (i - len(series) / 2 + 0.5) * w, vals, w, label=name,
               hatch="//" if name.startswith("paper") else None, alpha=0.85)  # fmt: skip
    ax.set_xticks(range(len(ks)), [f"{k}-way" for k in ks])
    ax.set_ylabel("accuracy (% of tables classified right)")
    ax.set_xlabel("binary contingency table")
    ax.set_ylim(0, 105)
    ax.axhline(50, color="0.5", lw=0.8, ls="--")
    ax.set_title(
        f"Table 4: independence tests, ours vs the paper's (hatched); {runs} tables with H0 true + "
        f"{runs} with H0 false per order,\nn = {n}, B = 250, p = 0.5, alpha = 0.05, Laplace epsilon 0.25",
        fontsize=10,
    )
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=4)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_tables56(rows: list[dict[str, Any]], path: Path, runs: int) -> None:
    plt = pyplot()
    tabs = sorted({r["table"] for r in rows})
    cols = sorted({(r["dataset"], r["k"]) for r in rows}, key=lambda x: (x[0] != "survey", x[1]))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    fig, axes = plt.subplots(2, len(tabs), figsize=(7.5 * len(tabs), 8), squeeze=False)
    for j, tab in enumerate(tabs):
        for i, (metric, unit) in enumerate(
            (("l2", "l2 distance (counts)"), ("js", "Jensen-Shannon (bits)"))
        ):
            ax = axes[i, j]
            w = 0.8 / len(methods)
            for m_i, m in enumerate(methods):
                vals = [next(r[metric] for r in rows if r["table"] == tab and r["method"] == m
                             and (r["dataset"], r["k"]) == c) for c in cols]  # fmt: skip
                ax.bar(np.arange(len(cols)) + (m_i - len(methods) / 2 + 0.5) * w, vals, w, label=m)
            for key, mk in (("RRBA", "k*"), ("Laplace", "rx")):
                ref = [next((r[f"paper_{metric}"] for r in rows if r["table"] == tab and (r["dataset"], r["k"]) == c
                             and r["paper_l2"] is not None and (r["method"].startswith("RRBA") == (key == "RRBA"))), None)
                       for c in cols]  # fmt: skip
                xs = [x for x, v in enumerate(ref) if v is not None]
                ax.plot(xs, [ref[x] for x in xs], mk, ms=9, label=f"paper: {key}")
            ax.set_xticks(range(len(cols)), [f"{d}\n{k}-way" for d, k in cols])
            ax.set_yscale("log")
            ax.set_ylabel(unit)
            p, eps = next((r["p"], r["epsilon_paper"]) for r in rows if r["table"] == tab)
            ax.set_title(f"Table {tab} (p = {p}, paper epsilon {eps}): {metric}", fontsize=10)
            ax.grid(True, axis="y", alpha=0.3, which="both")
            if i == 0 and j == 0:
                ax.legend(fontsize=7)
    n = rows[0]["n"]
    fig.suptitle(
        f"Tables 5-6: noisy k-way tables vs truth, Survey and Alarm, n = {n}, B = 250, {runs} trials",
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
