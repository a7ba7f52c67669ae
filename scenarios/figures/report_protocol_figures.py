"""Figures of protocol runs: the pipeline and the secure sums (accuracy, cost, completion, phases).

* pipeline: accuracy against cost (messages, bytes, wall time; shared y
  axis), error against p and against n, completion and error against the
  dropout rate when it is swept, and time per phase;
* secure-sum: completion (and exactness) against the dropout rate, with the
  configured tolerance marked; cost against the number of parties or the
  dropout rate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from scenarios.figures.report_drawing import LOG_SPAN, SMALL_N, draw, draw_stacked, wide
from scenarios.figures.report_series import (
    Figure,
    Series,
    group_label,
    label,
    lines,
    numeric,
    rates,
    swept,
    title,
)
from scenarios.results.aggregate import by_point
from scenarios.results.store import StoredRun

__all__ = ["PHASES", "pipeline_figures", "secure_sum_figures"]

_SMALL = (f"at fewer than {SMALL_N} runs per point each marker is labelled with its count k/n; "
          "series at the same x are dodged sideways by a hair, for visibility only")  # fmt: skip

_COST_PANELS = ("messages", "payload bytes", "wall time")

PHASES = (("setup_s", "setup (roles, keys)"), ("phase_network_s", "network setup (TLS keys, handshakes)"),
          ("phase_dependence_s", "dependence phase"),
          ("phase_release_s", "clustering broadcast + release"), ("phase_estimation_s", "estimation + adjustment"),
          ("evaluation_s", "evaluation (queries vs truth)"))  # fmt: skip


def _accuracy_metric(metrics: Sequence[str]) -> str:
    return next((m for m in metrics if m.startswith("error_")), "error_clusters_0.1")


def _every_error(pts: Sequence[Any], x: str, errors: Sequence[str], group: Sequence[str], panel: str,
                 **kw: Any) -> list[Series]:  # fmt: skip
    """``lines`` of every ``error_*`` metric listed (not only the first: listing RR-Independent first
    hid the comparison), each series named by its method when there are several."""
    out = []
    for m in errors:
        name = label(m).removeprefix("median relative error, ")
        for s in lines(pts, x, m, group, panel, **kw):
            if len(errors) > 1:
                s = replace(s, label=name if s.label in ("", "all runs") else f"{name}: {s.label}")
            out.append(s)
    return out


def _error_label(errors: Sequence[str]) -> str:
    return label(errors[0]) if len(errors) == 1 else "median relative error (every method listed)"


def pipeline_figures(
    scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str], grid: dict[str, list[Any]]
) -> list[Figure]:
    figs: list[Figure] = []
    sw = swept(runs)
    acc = _accuracy_metric(metrics)
    ok = [r for r in runs if r.status == "ok"]
    errors = [m for m in metrics if m.startswith("error_")] or [acc]
    phase_keys = [k for k, _ in PHASES]
    pts = by_point(runs, [*errors, "messages", "bytes", "wall_s", "completed", *phase_keys], grid)
    pts_ok = by_point(ok, [*errors, "messages", "bytes", "wall_s", *phase_keys], grid)
    if ok:
        cat = [k for k in sw if not numeric(runs, k)]
        group = cat or [k for k in sw if k in ("parties",)] or []
        series = []
        for cost, panel in (
            ("messages", "messages"),
            ("bytes", "payload bytes"),
            ("wall_s", "wall time"),
        ):
            series += _every_error(pts_ok, cost, errors, group, panel, x_metric=True, style="markers")
        # log only where the costs span a decade and a half or more; else linear from zero
        logx = tuple(p for p in _COST_PANELS if wide([v for s in series if s.panel == p for v in s.x]))
        scale = {p: ", log" if p in logx else "" for p in _COST_PANELS}
        fig = Figure(
            "accuracy-cost", title(scenario, "accuracy against cost", ok),
            f"Each marker is one grid point: {_error_label(errors)} (mean ± sd over its repeats) against what "
            "the run cost — messages and payload bytes sent by all parties, and the protocol's wall time (runner "
            "start to end; over TCP the deployment's keys and TLS handshakes included). "
            f"Grouped by {', '.join(group) or 'nothing (one group)'}. Markers sit at the cost measured, never "
            "moved: groups that cost the same are drawn as concentric rings (the first group the widest), "
            "and a panel where every group has one cost says so. The y axis is shared. A cost axis is "
            f"logarithmic (its label says log) when its costs span a factor of {LOG_SPAN:g} or more, else "
            "linear from zero.",
            {"messages": f"messages sent{' (log)' if scale['messages'] else ''}",
             "payload bytes": f"payload bytes sent (MB{scale['payload bytes']})",
             "wall time": f"protocol wall time (s{scale['wall time']})"},
            {"messages": _error_label(errors)}, tuple(series), runs=len(ok),
        )  # fmt: skip
        # the legend under the panels: inside one it hid markers
        figs.append(draw(fig, panels=_COST_PANELS, logx=logx, xzero=_COST_PANELS, legend_out=True))
    for x in ("p", "parties"):
        if x in sw and ok:
            others = [k for k in sw if k != x]
            series = _every_error(pts_ok, x, errors, others, "")
            what = label(acc) if len(errors) == 1 else "median relative error of every method listed"
            fig = Figure(
                f"error-{x}", title(scenario, f"error against {'p' if x == 'p' else 'n'}", ok),
                f"{what} (mean ± sd over repeats) against {label(x)}; one line per "
                f"{'method and ' if len(errors) > 1 else ''}{', '.join(others) or 'scenario'}; lines that "
                "coincide are dodged sideways by a hair for visibility (the x values are the grid's, the same "
                "for every line).",
                {"": label(x)}, {"": what if len(errors) == 1 else "median relative error"}, tuple(series),
                runs=len(ok),
            )  # fmt: skip
            figs.append(
                draw(
                    fig,
                    panels=("",),
                    logx=("",) if x == "parties" else (),
                    legend_out=len(series) > 5,
                    dodge=True,
                )
            )
    if "dropout" in sw:
        others = [k for k in sw if k != "dropout"]
        series = [s if s.label != "all runs" else replace(s, label="runs that completed")
                  for s in rates(pts, runs, "dropout", "completed", others, "completion")]  # fmt: skip
        series += _every_error(pts_ok, "dropout", errors, others, "accuracy")
        fig = Figure(
            "completion-dropout", title(scenario, "completion and error against the dropout rate", runs),
            f"Left: share of runs that completed (its 95 % Wilson interval the shaded band; {_SMALL}); right: "
            f"{_error_label(errors)} of the completed runs (mean ± sd).",
            {"completion": label("dropout"), "accuracy": label("dropout")},
            {"completion": label("completed"), "accuracy": _error_label(errors)}, tuple(series), runs=len(runs),
        )  # fmt: skip
        figs.append(
            draw(
                fig,
                panels=("completion", "accuracy"),
                sharey=False,
                legend_out=len(set(s.label for s in series)) > 4,
                dodge=True,
            )
        )
    if ok:
        rows = []
        series = []
        for ps in pts_ok:
            means = {k: ps.metrics[k].mean or 0.0 for k in phase_keys}
            rows.append((group_label(ps.point, sw) if sw else "all runs", means))
        for k, text in PHASES:
            series.append(
                Series(
                    "", text, tuple(r[0] for r in rows), tuple(r[1][k] for r in rows), style="bar"
                )
            )
        fig = Figure(
            "phases", title(scenario, "time per phase", ok),
            "Wall time of each phase (mean over a grid point's completed repeats), cut where the coordinator "
            "reports progress: setup builds the roles and keys; network setup is the runner's time before the "
            "parties run (over TCP: the deployment's keys and certificates, one TLS handshake per party); the "
            "dependence phase ends with the last "
            "dependence submission (or secure-sum message); clustering + release with the last release; "
            "then estimation and RR-Adjustment; evaluation answers the count queries against the truth.",
            {"": "wall time (s), mean over repeats"}, {"": ""}, tuple(series), runs=len(ok),
        )  # fmt: skip
        figs.append(draw_stacked(fig, PHASES, rows))
    return figs


def secure_sum_figures(
    scenario: str, runs: Sequence[StoredRun], metrics: Sequence[str], grid: dict[str, list[Any]]
) -> list[Figure]:
    figs: list[Figure] = []
    sw = swept(runs)
    pts = by_point(
        runs, ["completed", "exact", "messages", "bytes", "wall_s", "bytes_per_party"], grid
    )
    if "dropout" in sw:
        others = [k for k in sw if k != "dropout"]
        series = rates(pts, runs, "dropout", "completed", others, "completed")
        series += rates(pts, runs, "dropout", "exact", others, "exact")
        tol = sorted(
            {
                float(r.params["max_dropout"])
                for r in runs
                if r.params.get("max_dropout") is not None
            }
        )
        maxd = sorted(
            {
                r.metrics["max_dropped"] / r.params["parties"]
                for r in runs
                if r.metrics.get("max_dropped")
            }
        )
        v = [(float(t), f"max_dropout = {t:g}") for t in (tol or maxd[:1])]
        fig = Figure(
            "completion-dropout", title(scenario, "completion against the dropout rate", runs),
            "Share of runs that produced a sum (left) and whose sum equals the plaintext sum of the included "
            f"parties (right), each with its 95 % Wilson interval as a shaded band ({_SMALL}), against the fraction of parties that "
            "crash at the given step. The dashed line is the tolerance the protocol was configured with; past it, a run must "
            "abort cleanly, never return a wrong sum.",
            {"completed": label("dropout"), "exact": label("dropout")},
            {"completed": "share of runs"}, tuple(series), runs=len(runs),
        )  # fmt: skip
        figs.append(draw(fig, panels=("completed", "exact"), ylim=(-0.05, 1.12), vlines={"completed": v, "exact": v},
                         legend_out=len({s.label for s in series}) > 3, dodge=True))  # fmt: skip
    x = "parties" if "parties" in sw else ("dropout" if "dropout" in sw else None)
    if x is not None:
        others = [k for k in sw if k != x]
        ok = [r for r in runs if r.status == "ok"] if x == "parties" else list(runs)
        pts2 = by_point(ok, ["messages", "bytes", "wall_s"], grid)
        series = []
        for m, panel in (
            ("messages", "messages"),
            ("bytes", "payload bytes"),
            ("wall_s", "wall time"),
        ):
            series += lines(pts2, x, m, others, panel)
        fig = Figure(
            "cost", title(scenario, f"cost against {'n' if x == 'parties' else 'the dropout rate'}", ok),
            f"Messages, payload bytes (all parties) and wall time (mean ± sd over repeats) against {label(x)}.",
            {p: label(x) for p in ("messages", "payload bytes", "wall time")},
            {"messages": "messages sent", "payload bytes": "payload bytes sent (MB)", "wall time": "wall time (s)"},
            tuple(series), runs=len(ok),
        )  # fmt: skip
        figs.append(draw(fig, panels=("messages", "payload bytes", "wall time"), sharey=False,
                         logx=("messages", "payload bytes", "wall time") if x == "parties" else (),
                         legend_out=len({s.label for s in series}) > 3))  # fmt: skip
    return figs

