"""``mpc-rr report``: one self-contained HTML page of a results store, to read or attach to a paper.

For every scenario in the store (its most recent code version): the
figures of :mod:`scenarios.figures.report_figures` (SVG embedded as data URIs, each
with its caption and the plotted numbers as CSV), a table per grid point
(mean ± sd over repeats of the scenario's metrics), the seeds, the
sessions that ran it (interrupted ones marked), the scenario text exactly as
run, and at the end the library versions and machines.  No network, no
script, no external file: the page is one file.
"""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scenarios.figures.report_figures import Figure, figures_for
from scenarios.results.aggregate import (
    by_point,
    cell_text,
    code_versions,
    grid_of,
    run_warnings,
    scenario_metrics,
    select,
)
from scenarios.results.report_ledger import ledger_figures, ledger_html
from scenarios.results.store import Store, StoredRun, now

__all__ = ["ScenarioSection", "build", "render", "write_report"]


@dataclass(frozen=True)
class ScenarioSection:
    """What the report shows of one scenario."""

    name: str
    kind: str
    code_version: str
    other_versions: tuple[str, ...]
    runs: tuple[StoredRun, ...]
    metrics: tuple[str, ...]
    grid: dict[str, list[Any]]
    figures: tuple[Figure, ...]
    texts: tuple[dict[str, Any], ...]
    sessions: tuple[dict[str, Any], ...]
    failures: int
    other_runs: int = (
        0  # runs of this scenario in the store not shown (other code, data or parameters)
    )


def build(store: Store, scenarios: Sequence[str] | None = None) -> list[ScenarioSection]:
    """Collect every section's data and draw its figures."""
    names = [s["scenario"] for s in store.scenarios()]
    chosen = list(dict.fromkeys(scenarios if scenarios else names))
    missing = [n for n in chosen if n not in names]
    if missing:
        from mpc_rr.core import UsageError

        raise UsageError(
            f"{store.path}: no runs of {missing} (scenarios: {', '.join(dict.fromkeys(names)) or 'none'})"
        )
    out = []
    for name in chosen:
        versions = code_versions(store, name)
        runs = select(store, name)
        code = runs[0].code_version
        others = len(store.runs(name)) - len(runs)
        metrics = scenario_metrics(store, name, runs)
        grid = grid_of(store, name)
        kind = runs[0].kind
        figs = figures_for(kind, name, runs, metrics, grid) + ledger_figures(name, runs)
        sessions = [s for s in store.sessions(name) if s["code_version"] == code]
        out.append(ScenarioSection(name, kind, code, tuple(v for v in versions if v != code), tuple(runs),
                                   tuple(metrics), grid, tuple(figs), tuple(store.texts(name)),
                                   tuple(sessions), len(store.failures(name)), others))  # fmt: skip
    return out


CSS = """
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; font-size: 16px; line-height: 1.5;
       color: #1b1b1b; max-width: 1180px; margin: 0 auto; padding: 24px 32px 64px; background: #fff; }
h1 { font-size: 28px; margin: 0 0 4px; }
h2 { font-size: 23px; margin: 48px 0 6px; padding-top: 12px; border-top: 2px solid #d0d7de; }
h3 { font-size: 18px; margin: 28px 0 8px; }
.sub { color: #57606a; margin: 0 0 16px; }
figure { margin: 18px 0 28px; }
figure img { max-width: 100%; height: auto; display: block; border: 1px solid #eaeef2; }
figcaption { font-size: 15px; color: #333; margin-top: 8px; max-width: 1000px; }
table { border-collapse: collapse; font-size: 14px; margin: 8px 0 16px; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: right; white-space: nowrap; }
th { white-space: normal; vertical-align: bottom; overflow-wrap: normal; }
table.wide { font-size: 12.5px; } table.wide th, table.wide td { padding: 2px 5px; }
th { background: #f6f8fa; font-weight: 600; }
td.l, th.l { text-align: left; }
table.ledger { font-size: 13px; } table.ledger th, table.ledger td { padding: 2px 6px; }
table.ledger td:nth-child(-n+3), table.ledger td:nth-child(9) { white-space: normal; }
table.ledger td:nth-child(9) { min-width: 230px; font-size: 12px; }
table.ledger tr.total td { font-weight: 600; border-top: 2px solid #8c959f; }
.scroll { overflow-x: auto; max-width: 100%; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; padding: 12px; font-size: 13.5px; overflow-x: auto;
      line-height: 1.4; }
details { margin: 6px 0 12px; }
summary { cursor: pointer; color: #0969da; }
.warn { background: #fff8c5; border: 1px solid #d4a72c; padding: 8px 12px; }
dl.kv { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; font-size: 14.5px; }
dl.kv dt { color: #57606a; } dl.kv dd { margin: 0; font-family: monospace; }
nav ul { margin: 4px 0; }
@media print { body { max-width: none; padding: 0; font-size: 12px; } .scroll { overflow: visible; }
               details { display: none; } h2 { break-before: page; } figure { break-inside: avoid; } }
"""


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def _img(fig: Figure) -> str:
    data = base64.b64encode(fig.svg.encode("utf-8")).decode("ascii")
    return f'<img src="data:image/svg+xml;base64,{data}" alt="{_e(fig.title)}">'


def _table(head: Sequence[str], rows: Sequence[Sequence[Any]], left: int = 0) -> str:
    def cls(i: int) -> str:
        return ' class="l"' if i < left else ""

    # headers break after an underscore (metric names), never inside a word
    th = "".join(f"<th{cls(i)}>{_e(h).replace('_', '_<wbr>')}</th>" for i, h in enumerate(head))
    body = "".join(
        "<tr>" + "".join(f"<td{cls(i)}>{_e(cell_text(v))}</td>" for i, v in enumerate(r)) + "</tr>"
        for r in rows
    )
    wide = ' class="wide"' if len(head) > 8 else ""
    return f'<div class="scroll"><table{wide}><thead><tr>{th}</tr></thead><tbody>{body}</tbody></table></div>'


def _section(sec: ScenarioSection, index: int) -> str:
    runs = sec.runs
    ok = sum(r.status == "ok" for r in runs)
    data = sorted({r.dataset for r in runs if r.dataset})
    points = by_point(list(runs), list(sec.metrics), sec.grid)
    desc = ""
    if sec.texts:
        try:
            import msgspec

            doc: Any = msgspec.toml.decode(sec.texts[-1]["text"].encode())
            desc = str(doc.get("scenario", {}).get("description", ""))
        except Exception:  # a text the store kept but this version cannot read: show it raw below
            desc = ""
    parts = [f'<h2 id="s{index}">{_e(sec.name)}</h2>']
    parts.append(
        f'<p class="sub">kind <b>{_e(sec.kind)}</b> · data <b>{_e(", ".join(data) or "none (own inputs)")}</b> · '
        f"{len(runs):,} runs ({ok:,} ok, {len(runs) - ok:,} aborted) · {len(points)} grid points · "
        f"code <code>{_e(sec.code_version)}</code></p>"
    )
    if desc:
        parts.append(f"<p>{_e(desc)}</p>")
    if sec.other_runs:
        versions = (
            f" (code versions: {', '.join(sec.other_versions)})" if sec.other_versions else ""
        )
        parts.append(f'<p class="warn">The store also holds {sec.other_runs:,} other runs of this scenario, made '
                     f"by other code, data or parameters{_e(versions)}; they are not mixed into these results. "
                     f"<code>mpc-rr results list</code> and <code>mpc-rr results show {_e(sec.name)} "
                     "--code-version V</code> show them.</p>")  # fmt: skip
    planned = sec.sessions[-1]["planned"] if sec.sessions else None
    if planned and planned > len(runs):
        parts.append(f'<p class="warn">Incomplete: {len(runs):,} of the {planned:,} runs planned by the last '
                     "session are stored (it was interrupted, or is still running); run the scenario again to complete it.</p>")  # fmt: skip
    for line in run_warnings(runs):  # what the runs themselves warned of
        parts.append(f'<p class="warn">Warning: {_e(line)}</p>')
    if sec.failures:
        parts.append(f'<p class="warn">{sec.failures} run(s) raised an error (not in these results): '
                     f"<code>mpc-rr results show {_e(sec.name)} --failures</code>.</p>")  # fmt: skip
    for fig in sec.figures:
        parts.append(
            f'<figure id="s{index}-{_e(fig.key)}">{_img(fig)}<figcaption><b>{_e(fig.title)}.</b> {_e(fig.caption)}'
            f"<details><summary>plotted data (CSV)</summary><pre>{_e(fig.csv())}</pre></details>"
            "</figcaption></figure>"
        )
    parts.append(ledger_html(runs))
    swept = list(sec.grid) or list(points[0].point if points else [])
    head = [*swept, "runs", *sec.metrics]
    rows = [[*(p.point.get(k) for k in swept), f"{p.ok}/{p.runs}" if p.ok != p.runs else p.runs,
             *(p.metrics[m].text() for m in sec.metrics)] for p in points]  # fmt: skip
    parts.append(f"<h3>Results per grid point</h3><p>Mean ± sample standard deviation over the repeats of each "
                 f"point (booleans as shares); runs as completed/total when some aborted.</p>"
                 f"{_table(head, rows, left=len(swept))}")  # fmt: skip
    parts.append(_seeds(sec))
    parts.append(_sessions(sec))
    if sec.texts:
        last = sec.texts[-1]
        parts.append(f"<h3>Scenario as run</h3><p>From <code>{_e(last['path'] or '?')}</code>, first run "
                     f"{_e(last['first_seen'][:19])} UTC:</p><pre>{_e(last['text'])}</pre>")  # fmt: skip
        for old in sec.texts[:-1]:
            parts.append(f"<details><summary>earlier text of this scenario (first run {_e(old['first_seen'][:19])} UTC)"
                         f"</summary><pre>{_e(old['text'])}</pre></details>")  # fmt: skip
    return "\n".join(parts)


def _seeds(sec: ScenarioSection) -> str:
    seed = None
    if sec.texts:
        try:
            import msgspec

            doc: Any = msgspec.toml.decode(sec.texts[-1]["text"].encode())
            seed = doc.get("scenario", {}).get("seed", 0)
        except Exception:
            seed = None
    per_repeat = sorted({(r.repeat, r.seed) for r in sec.runs})
    rows = [[rep, s] for rep, s in per_repeat]
    table = _table(["repeat", "run seed"], rows)
    if len(rows) > 10:
        table = (
            f"<details><summary>the seeds of all {len(rows):,} repeats</summary>{table}</details>"
        )
    runs = sorted(sec.runs, key=lambda r: (json.dumps(r.point, sort_keys=True), r.repeat))
    run_rows = [
        [
            r.key[:12],
            json.dumps(r.point),
            r.repeat,
            r.seed,
            r.status,
            r.finished[:19],
            f"{r.wall_s:.3f}",
        ]
        for r in runs
    ]
    return (
        f"<h3>Seeds</h3><p>Scenario seed <b>{_e(seed)}</b>. Repeat <i>r</i> of every grid point runs with "
        "child <i>r</i> of <code>numpy.random.SeedSequence(seed)</code> (common random numbers across points); "
        "every random draw of the run derives from it, so <code>mpc-rr scenario run</code> of the same text "
        "reproduces each run (keys, shares and masks of secure sums come from the OS CSPRNG and do not change "
        "any result).</p>"
        + table
        + f"<details><summary>all {len(runs):,} runs: key, point, repeat, seed, status</summary>"
        + _table(
            ["key", "point", "repeat", "seed", "status", "finished (UTC)", "run wall (s)"],
            run_rows,
            left=2,
        )
        + "</details>"
    )


def _sessions(sec: ScenarioSection) -> str:
    rows = []
    for s in sec.sessions:
        done = s["stored_before"] + s["executed"] + s["failed"] >= s["planned"]
        state = ("finished" if done else "stopped early") if s["finished"] else "killed, or still running"
        rows.append([s["id"], s["started"][:19], (s["finished"] or "")[:19], state, s["planned"], s["stored_before"],
                     s["executed"], s["failed"], s["jobs"], (s["machine"] or {}).get("host", "?")])  # fmt: skip
    return ("<h3>Sessions</h3><p>Each <code>mpc-rr scenario run</code> of this scenario and code version; a "
            "session that was killed has no end time, and the next one ran only the runs still missing.</p>"
            + _table(["session", "started (UTC)", "finished (UTC)", "state", "planned", "stored before", "executed",
                      "failed", "jobs", "host"], rows, left=0))  # fmt: skip


def _provenance(sections: Sequence[ScenarioSection]) -> str:
    sessions = [s for sec in sections for s in sec.sessions]
    if not sessions:
        return ""
    last = sessions[-1]
    versions = last["versions"] or {}
    machines: dict[str, dict[str, Any]] = {}
    for s in sessions:
        m = s["machine"] or {}
        machines[m.get("host", "?")] = m
    code = sorted({sec.code_version for sec in sections})
    kv = "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in versions.items())
    ms = []
    for host, m in machines.items():
        items = {"host": host, "os": m.get("os"), "cpu": m.get("cpu"), "cores": m.get("cores"),
                 "usable cores": m.get("cores_usable"), "memory (GiB)": m.get("memory_gib"),
                 "load average at the last session's start": m.get("load_average"), "python": m.get("python_executable")}  # fmt: skip
        ms.append(
            "<dl class='kv'>"
            + "".join(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in items.items())
            + "</dl>"
        )
    return (
        '<h2 id="provenance">Versions and machines</h2>'
        f"<p>Code versions of the runs shown: {', '.join(f'<code>{_e(c)}</code>' for c in code)} (package version "
        "and a digest of the sources that compute runs; a run's key includes it).</p>"
        f"<h3>Libraries (last session)</h3><dl class='kv'>{kv}</dl><h3>Machines</h3>"
        + "".join(ms)
        + "<p>Wall times depend on the machine and its load (above) and on <code>--jobs</code> (per session); "
        "compare costs measured in one session.</p>"
    )


def render(store_path: str, sections: Sequence[ScenarioSection]) -> str:
    """The whole page."""
    total = sum(len(s.runs) for s in sections)
    toc = "".join(
        f'<li><a href="#s{i}">{_e(s.name)}</a> — {_e(s.kind)}, {len(s.runs):,} runs, {len(s.figures)} figure(s)</li>'
        for i, s in enumerate(sections)
    )
    body = "\n".join(_section(s, i) for i, s in enumerate(sections))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>mpc-rr report: {_e(Path(store_path).name)}</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{CSS}</style></head><body>"
        f'<h1>mpc-rr results report</h1><p class="sub">Store <code>{_e(store_path)}</code> · {len(sections)} '
        f"scenario(s), {total:,} runs · generated {_e(now()[:19])} UTC</p>"
        f'<nav><ul>{toc}<li><a href="#provenance">Versions and machines</a></li></ul></nav>'
        f"{body}\n{_provenance(sections)}</body></html>\n"
    )


def write_report(
    store_path: Path, out: Path, scenarios: Sequence[str] | None = None
) -> tuple[Path, list[ScenarioSection]]:
    """Build and write the report of ``store_path`` to ``out``."""
    with Store(store_path, create=False, read_only=True) as store:
        sections = build(store, scenarios)
    out.write_text(render(str(store_path), sections), encoding="utf-8")
    return out, sections
