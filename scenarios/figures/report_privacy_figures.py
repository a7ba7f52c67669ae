"""Figures of privacy studies: RRBA's convergence and epsilon, linkability, the epsilon audit.

* rrba: convergence curves (error after each block against the answers
  collected), final error and epsilon (true and the paper's) against p;
* linkability: linkage success against n per channel (one panel per p,
  shared axes), attribute inference likewise, each with the random baseline;
* audit: the epsilon lower bound against trials, with the true and claimed
  epsilon.

A linkability study that does not sweep n, and an audit that does not sweep
the trials, get the generic figures (:mod:`scenarios.figures.report_generic_figures`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scenarios.figures.report_drawing import draw
from scenarios.figures.report_generic_figures import generic_figures
from scenarios.figures.report_series import Figure, Series, group_label, label, lines, swept, title
from scenarios.results.aggregate import by_point, summarize_metric
from scenarios.results.store import StoredRun

__all__ = ["audit_figures", "linkability_figures", "rrba_figures"]


def rrba_figures(
    scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str], grid: dict[str, list[Any]]
) -> list[Figure]:
    figs: list[Figure] = []
    sw = swept(runs)
    pts = by_point(runs, ["max_abs_error", "l2_2", "epsilon_true", "epsilon_paper"], grid)
    series = []
    for ps in pts:
        mine = [r for r in runs if r.point == ps.point and r.result.get("curve")]
        if not mine:
            continue
        length = min(len(r.result["curve"]["block"]) for r in mine)
        xs = [
            summarize_metric(r.result["curve"]["answers_median"][b] for r in mine).mean
            for b in range(length)
        ]
        ys = [
            summarize_metric(r.result["curve"]["error_median"][b] for r in mine).mean
            for b in range(length)
        ]
        series.append(
            Series("", group_label(ps.point, sw), tuple(xs), tuple(ys), n=(len(mine),) * length)
        )
    if series:
        fig = Figure(
            "convergence", title(scenario, "convergence", runs),
            "Median over the attribute subsets of max |estimate - truth| after each block, against the answers "
            "collected per subset (mean over repeats). The pooled estimator should keep falling; the paper's "
            "Eq. 4 replaces the table by one block's estimate and stalls (docs/rrba.md, 'Eq. 4 does not converge').",
            {"": "answers collected per subset (median over subsets)"},
            {"": "max |estimate - truth| (median, log)"}, tuple(series), runs=len(runs),
        )  # fmt: skip
        figs.append(draw(fig, panels=("",), logy=("",), legend_out=len(series) > 4))
    if "p" in sw:
        others = [k for k in sw if k != "p"]
        s2 = lines(pts, "p", "max_abs_error", others, "final error")
        eps = lines(pts, "p", "epsilon_true", others, "epsilon")
        paper = lines(pts, "p", "epsilon_paper", [], "epsilon")
        s2 += eps + [Series(s.panel, "paper: ln(1/(1-p))", s.x, s.y, s.yerr, n=s.n) for s in paper]
        fig = Figure(
            "rrba-p", title(scenario, "final error and epsilon against p", runs),
            "Left: max |estimate - truth| over all subsets at the end (mean ± sd over repeats). Right: the true "
            "epsilon of the worst client (its view's subsets composed) next to the paper's ln(1/(1-p)) per answer.",
            {"final error": label("p"), "epsilon": label("p")},
            {"final error": label("max_abs_error"), "epsilon": "epsilon"}, tuple(s2), runs=len(runs),
        )  # fmt: skip
        figs.append(
            draw(
                fig,
                panels=("final error", "epsilon"),
                sharey=False,
                legend_out=len({s.label for s in s2}) > 3,
            )
        )
    return figs


def linkability_figures(
    scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str], grid: dict[str, list[Any]]
) -> list[Figure]:
    figs: list[Figure] = []
    sw = swept(runs)
    if "parties" not in sw:
        return generic_figures(scenario, runs, metrics, grid)
    pts = by_point(runs, ["success", "baseline", "inference_success", "inference_baseline"], grid)
    ps_values = sorted({float(r.point.get("p", r.params.get("p", 0.0))) for r in runs})
    group = [k for k in sw if k not in ("parties", "p")]
    for metric, base, what in (
        ("success", "baseline", "linkage"),
        ("inference_success", "inference_baseline", "attribute inference"),
    ):
        series = []
        panels = []
        for p in ps_values:
            panel = f"p = {p}"
            panels.append(panel)
            mine = [ps for ps in pts if ps.point.get("p", ps.params.get("p")) == p]
            series += lines(mine, "parties", metric, group, panel)
            b = lines(mine, "parties", base, [], panel)
            series += [
                Series(s.panel, "random grouping (baseline)", s.x, s.y, n=s.n, style="dotted")
                for s in b
            ]
        fig = Figure(
            f"{metric}-parties", title(scenario, f"{what} against n", runs),
            (f"{label(metric)} (mean ± sd over repeats) against the number of parties, one line per "
             f"{', '.join(group) or 'run'}, dodged sideways where lines coincide (the anonymous and the "
             "secure-sum channels deliver the same multiset of reports); dotted: "
             + ("what a random grouping achieves. Success is the share of a party's other pair values that the "
                "group holding one of its reports contains." if metric == "success" else
                "guessing each attribute's most frequent value (the prior). Accuracy of the MAP guess of each "
                "attribute from the linked group, averaged over attributes and parties.")
             + " One panel per p, shared axes."),
            {pn: label("parties") for pn in panels}, {panels[0]: label(metric)}, tuple(series), runs=len(runs),
        )  # fmt: skip
        figs.append(draw(fig, panels=panels, logx=panels, ylim=(0, 1.03), sharex=True,
                         legend_out=len({s.label for s in series}) > 3, dodge=True))  # fmt: skip
    return figs


def audit_figures(
    scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str], grid: dict[str, list[Any]]
) -> list[Figure]:
    sw = swept(runs)
    if "trials" not in sw:
        return generic_figures(scenario, runs, metrics, grid)
    pts = by_point(runs, ["epsilon_lower", "epsilon_true", "epsilon_claimed"], grid)
    others = [k for k in sw if k != "trials"]
    series = [
        Series(
            s.panel, "lower bound" if s.label == "all runs" else s.label, s.x, s.y, s.yerr, n=s.n
        )
        for s in lines(pts, "trials", "epsilon_lower", others, "")
    ]
    hl = []
    for m, text in (("epsilon_true", "true epsilon"), ("epsilon_claimed", "claimed epsilon")):
        v = summarize_metric(r.metrics.get(m) for r in runs)
        if v.mean is not None and v.hi == v.lo:
            hl.append((v.mean, f"{text} = {v.mean:.3f}"))
    fig = Figure(
        "audit-trials", title(scenario, "empirical epsilon against trials", runs),
        "Clopper-Pearson lower bound on epsilon (mean ± sd over repeats) against the number of mechanism runs; "
        "dotted lines: the mechanism's true epsilon and the claimed one. A bound above the claim refutes it.",
        {"": label("trials")}, {"": "epsilon"}, tuple(series), runs=len(runs),
    )  # fmt: skip
    return [draw(fig, panels=("",), logx=("",), hlines={"": hl})]

