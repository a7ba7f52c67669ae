"""The privacy ledger in the report (docs/privacy.md): a table per scenario and the central-vs-n plot.

Every ``pipeline`` and ``rrba`` run stores its ledger (``result["privacy"]``):
per phase and in total, the local epsilon (true; the paper's where it
differs), the channel, the central (epsilon, delta) that channel licenses or
"none" with the reason, and the audit's lower bound where one ran.  The
report shows, for each grid point, the ledger of its first completed repeat
(the ledger depends on the parameters and on the run's clustering, so
repeats can differ slightly; every run's is in the store), and one figure:
central epsilon against the number of parties for the run's weakest report
shuffled, with each grid point's run marked (on the eps0 line when its
channel is direct: no amplification).
"""

from __future__ import annotations

import html
import json
from collections.abc import Sequence
from typing import Any

from scenarios.figures.report_drawing import draw
from scenarios.figures.report_series import Figure, Series, group_label, swept, title
from scenarios.results.store import StoredRun

__all__ = ["LEDGER_HEAD", "ledger_figures", "ledger_html", "ledger_rows"]

LEDGER_HEAD = ("point", "phase", "channel", "parties", "local ε (true)", "paper ε", "central ε", "δ",
               "bound, or why none", "audit ε ≥")  # fmt: skip


def _firsts(runs: Sequence[StoredRun]) -> list[tuple[str, StoredRun]]:
    """(point label, first completed run with a ledger) per grid point, in stored order."""
    keys = swept(runs)
    out: dict[str, tuple[str, StoredRun]] = {}
    for r in sorted(runs, key=lambda r: r.repeat):
        led = r.result.get("privacy") if r.status == "ok" else None
        if not isinstance(led, dict) or "phases" not in led:
            continue
        k = json.dumps(r.point, sort_keys=True)
        out.setdefault(k, (group_label(r.point, keys), r))
    return list(out.values())


def _num(x: Any, fmt: str = ".4g") -> str:
    return "—" if x is None else format(float(x), fmt)


def ledger_rows(runs: Sequence[StoredRun]) -> list[list[str]]:
    """The table's rows: every phase of each grid point's ledger, then its total."""
    rows = []
    for label, r in _firsts(runs):
        led = r.result["privacy"]
        for e in [*led["phases"], led["total"]]:
            paper = e.get("paper_epsilon")
            local = e.get("local_epsilon")
            differs = paper is not None and (local is None or abs(paper - local) > 1e-9 * max(1.0, abs(paper)))
            if e.get("central_epsilon") is None:
                central, delta, why = "none", "—", e.get("reason") or e.get("bound") or ""
            else:
                central, delta, why = _num(e["central_epsilon"]), _num(e.get("delta"), ".2g"), e.get("bound") or ""
            rows.append([label, e["phase"], e["channel"], f"{e['parties']:,}", _num(local) if local is not None else "∞",
                         _num(paper) if differs else "", central, delta, why, _num(e.get("audit_lower"))])  # fmt: skip
    return rows


def ledger_html(runs: Sequence[StoredRun]) -> str:
    """The "Privacy ledger" subsection of a scenario ("" when its runs store none)."""
    rows = ledger_rows(runs)
    if not rows:
        return ""
    head = "".join(f'<th class="l">{html.escape(h)}</th>' if i < 3 or i == 8 else f"<th>{html.escape(h)}</th>"
                   for i, h in enumerate(LEDGER_HEAD))  # fmt: skip
    body = []
    for row in rows:
        cls = ' class="total"' if row[1] == "total" else ""
        cells = "".join(f'<td class="l">{html.escape(v)}</td>' if i < 3 or i == 8 else f"<td>{html.escape(v)}</td>"
                        for i, v in enumerate(row))  # fmt: skip
        body.append(f"<tr{cls}>{cells}</tr>")
    return (
        '<h3>Privacy ledger</h3><p>Per party\'s record (docs/privacy.md), for each grid point\'s first '
        "completed repeat: the local epsilon of what each phase releases (the true figure; the paper's "
        "where it differs), the channel it travels on, the central (ε, δ) that channel licenses -- or "
        "none, with the reason -- and the empirical lower bound where an audit ran (— : no audit). "
        "Direct channels amplify nothing; a secure sum or anonymous channel shows only the multiset "
        "(FMT21 shuffle amplification, composed with the PLD accountant).</p>"
        f'<div class="scroll"><table class="ledger"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def ledger_figures(scenario: str, runs: Sequence[StoredRun]) -> list[Figure]:
    """Central epsilon against n for each grid point's weakest report, the run marked."""
    series: list[Series] = []
    for label, r in _firsts(runs):
        data = r.result["privacy"].get("plot_data") or {}
        curve = data.get("curve") or []
        if not curve:
            continue
        curve_label = f"{label}: eps0 = {data['epsilon0']:.3g} if shuffled"
        run_label = f"{label}: this run ({data['channel']}, n = {data['parties']:,})"
        series.append(Series("", curve_label, tuple(c["n"] for c in curve), tuple(c["central_epsilon"] for c in curve)))
        series.append(Series("", run_label, (data["parties"],), (data["mark"],), style="markers"))
    if not series:
        return []
    fig = Figure(
        "privacy-ledger", title(scenario, "central epsilon against n", runs),
        "For each grid point (its first completed repeat), the central epsilon one report of the run's "
        "largest local eps0 would get if shuffled among n parties (FMT21, numerical; k-RR clone weight "
        "where the report is k-RR), and the run itself as a marker: on the curve when its phase's channel "
        "shuffles, at eps0 when the channel is direct (no amplification). delta = 1e-6.",
        {"": "parties n (log)"}, {"": "central epsilon (log)"}, tuple(series), runs=len(runs),
    )  # fmt: skip
    return [draw(fig, panels=("",), logx=("",), logy=("",), legend_out=len(series) > 4)]
