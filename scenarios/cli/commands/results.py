"""``mpc-rr results``: what a results store holds -- list it, show a scenario or a run, export it.

Examples::

    mpc-rr results list --store results.db
    mpc-rr results show dropout-secagg --store results.db            # per grid point, over repeats
    mpc-rr results show dropout-secagg --runs --store results.db     # one line per run
    mpc-rr results show 3f9a2c --store results.db                    # one run's full JSON (key prefix)
    mpc-rr results export --csv --out runs.csv --store results.db    # one row per run, every scenario
    mpc-rr results export --json --scenario dropout-secagg --store results.db

A scenario's runs are those of its most recent code version unless
``--code-version`` names another (``results list`` shows them all).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

from scenarios.cli.options import HelpFormatter, add_json, output_file

DEFAULT_STORE = Path("results.db")


def _store_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--store",
        type=Path,
        default=DEFAULT_STORE,
        help=f"results store (default: {DEFAULT_STORE})",
    )


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "results", help="list, show and export the runs in a results store",
        description=__doc__, formatter_class=HelpFormatter,
    )  # fmt: skip
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    ls = verbs.add_parser(
        "list",
        formatter_class=HelpFormatter,
        help="scenarios in the store: kind, data, runs, points, code versions, sessions",
    )
    _store_arg(ls)
    add_json(ls, "print JSON")
    ls.set_defaults(func=_list)

    sh = verbs.add_parser(
        "show",
        formatter_class=HelpFormatter,
        help="a scenario per grid point (mean ± sd over repeats), or one run",
    )
    sh.add_argument(
        "target",
        metavar="SCENARIO|RUN-KEY",
        help="a scenario name, or the first characters of a run key",
    )
    _store_arg(sh)
    sh.add_argument(
        "--runs", action="store_true", help="one line per run instead of per grid point"
    )
    sh.add_argument(
        "--failures", action="store_true", help="runs that raised, with their tracebacks"
    )
    sh.add_argument(
        "--metrics", default=None, help="comma-separated metrics (default: the scenario's)"
    )
    sh.add_argument(
        "--code-version", default=None, help="runs of this code version (default: the latest)"
    )
    add_json(sh, "print JSON")
    sh.set_defaults(func=_show)

    ex = verbs.add_parser(
        "export",
        formatter_class=HelpFormatter,
        help="every run as CSV (one row per run) or JSON (with full results)",
    )
    fmt = ex.add_mutually_exclusive_group(required=True)
    fmt.add_argument(
        "--csv",
        action="store_true",
        help="CSV: run columns, param.NAME per parameter, then metrics",
    )
    add_json(fmt, "JSON: scenarios (texts, sessions) and runs (params, metrics, result)")
    _store_arg(ex)
    ex.add_argument(
        "--scenario", action="append", default=None, help="only this scenario (repeatable)"
    )
    ex.add_argument(
        "--code-version", default=None, help="only this code version (default: every version)"
    )
    ex.add_argument("--out", type=output_file, default=None, help="write here instead of stdout")
    ex.set_defaults(func=_export)


def _open(path: Path) -> Any:
    from scenarios.results.store import Store

    return Store(path, create=False, read_only=True)


def _list(args: argparse.Namespace) -> int:
    with _open(args.store) as store:
        rows = store.scenarios()
        sessions = store.sessions()
        failures = store.failures()
    for r in rows:
        mine = [
            s
            for s in sessions
            if s["scenario"] == r["scenario"] and s["code_version"] == r["code_version"]
        ]
        last = mine[-1] if mine else None
        r["planned"] = last["planned"] if last else None
        r["sessions"] = len(mine)
        # a session left unfinished (killed) matters only while runs are missing: a later session
        # that completed the scenario made it history
        complete = r["planned"] is not None and r["runs"] >= r["planned"]
        r["interrupted_sessions"] = 0 if complete else sum(s["finished"] is None for s in mine)
        r["failures"] = sum(f["scenario"] == r["scenario"] for f in failures)
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    if not rows:
        print(f"{args.store}: no runs yet")
        return 0
    print(f"{args.store}: {sum(r['runs'] for r in rows):,} runs")
    head = f"  {'scenario':<24} {'kind':<12} {'data':<16} {'runs':>11} {'points':>7} {'aborted':>8}  {'code version':<24} last finished"
    print(head)
    for r in rows:
        runs = f"{r['runs']:,}/{r['planned']:,}" if r["planned"] else f"{r['runs']:,}"
        note = []
        if r["interrupted_sessions"]:
            note.append(
                f"{r['interrupted_sessions']} unfinished session(s): killed, or still running"
            )
        if r["failures"]:
            note.append(f"{r['failures']} failure(s)")
        print(f"  {r['scenario']:<24} {r['kind']:<12} {','.join(r['datasets']) or '-':<16} {runs:>11} "
              f"{r['points']:>7} {r['aborted']:>8}  {r['code_version']:<24} {r['last'][:19]}"
              + (f"  ({'; '.join(note)})" if note else ""))  # fmt: skip
    return 0


def _metrics_for(scenario: str, runs: list[Any], given: str | None, store: Any) -> list[str]:
    if given:
        names = [m.strip() for m in given.split(",") if m.strip()]
        known = sorted({k for r in runs for k in r.metrics})
        bad = [m for m in names if m not in known]
        if bad:
            from mpc_rr.core import UsageError

            raise UsageError(
                f"--metrics: {bad} not measured by {scenario} (metrics: {', '.join(known)})"
            )
        return names
    from scenarios.results.aggregate import scenario_metrics

    return scenario_metrics(store, scenario, runs)


def _show(args: argparse.Namespace) -> int:
    from scenarios.results.aggregate import by_point, grid_of, select

    with _open(args.store) as store:
        names = {s["scenario"] for s in store.scenarios()} | {
            f["scenario"] for f in store.failures()
        }
        if args.target not in names:
            import re

            from mpc_rr.core import UsageError

            if not re.fullmatch(r"[0-9a-fA-F]{6,64}", args.target):
                raise UsageError(f"{args.store}: no scenario named {args.target!r} (scenarios: "
                                 f"{', '.join(sorted(names)) or 'none'}); a run key is 6-64 hex digits")  # fmt: skip
            run = store.run(args.target)
            doc = {k: v for k, v in run.__dict__.items()}
            print(json.dumps(doc, indent=1))
            return 0
        if args.failures:
            fails = store.failures(args.target)
            if args.json:
                print(json.dumps(fails, indent=1))
            for f in [] if args.json else fails:
                print(
                    f"--- {f['at']} point {f['point']} repeat {f['repeat']} (key {f['key'][:12]}): {f['error']}"
                )
                print(f["traceback"])
            if not fails and not args.json:
                print(f"{args.target}: no failures")
            return 0
        runs = select(store, args.target, args.code_version)
        metrics = _metrics_for(args.target, runs, args.metrics, store)
        grid = grid_of(store, args.target)
    if args.runs:
        rows = [{"key": r.key[:12], **r.point, "repeat": r.repeat, "seed": r.seed, "status": r.status,
                 **{m: r.metrics.get(m) for m in metrics}} for r in sorted(runs, key=lambda r: r.finished)]  # fmt: skip
        if args.json:
            print(json.dumps(rows, indent=1))
        else:
            _table(rows)
        return 0
    points = by_point(runs, metrics, grid)
    if args.json:
        print(json.dumps([{"point": p.point, "runs": p.runs, "ok": p.ok, "seeds": list(p.seeds),
                           "metrics": {m: s.__dict__ for m, s in p.metrics.items()}} for p in points], indent=1))  # fmt: skip
        return 0
    r0 = runs[0]
    print(f"{args.target} ({r0.kind}, data {r0.dataset or '-'}, code {r0.code_version}): {len(runs):,} runs, "
          f"{len(points)} points; mean ± sd over repeats")  # fmt: skip
    _table([{**p.point, "runs": f"{p.ok}/{p.runs}" if p.ok != p.runs else p.runs,
             **{m: p.metrics[m].text() for m in metrics}} for p in points])  # fmt: skip
    from scenarios.results.aggregate import run_warnings

    for line in run_warnings(runs):  # what the runs themselves warned of, never left out
        print(f"warning: {line}")
    return 0


def _table(rows: list[dict[str, Any]]) -> None:
    from scenarios.results.aggregate import cell_text

    if not rows:
        print("(no runs)")
        return
    cols = list(rows[0])
    cells = [[cell_text(r.get(c)) for c in cols] for r in rows]
    widths = [max(len(c), *(len(row[i]) for row in cells)) for i, c in enumerate(cols)]
    print("  " + "  ".join(c.rjust(w) for c, w in zip(cols, widths, strict=True)))
    for row in cells:
        print("  " + "  ".join(v.rjust(w) for v, w in zip(row, widths, strict=True)))


RUN_COLUMNS = ("scenario", "kind", "dataset", "run_key", "code_version", "status", "repeat", "seed",
               "finished", "run_wall_s")  # fmt: skip


def _export(args: argparse.Namespace) -> int:
    with _open(args.store) as store:
        wanted = args.scenario or [s["scenario"] for s in store.scenarios()]
        known = {s["scenario"] for s in store.scenarios()}
        bad = [w for w in wanted if w not in known]
        if bad:
            from mpc_rr.core import UsageError

            raise UsageError(
                f"--scenario: {bad} not in {args.store} (scenarios: {', '.join(sorted(known)) or 'none'})"
            )
        runs = [r for w in dict.fromkeys(wanted) for r in store.runs(w, args.code_version)]
        meta = [
            {"scenario": w, "texts": store.texts(w), "sessions": store.sessions(w)}
            for w in dict.fromkeys(wanted)
        ]
    if args.csv:
        text = export_csv(runs)
    else:
        text = json.dumps({"store": str(args.store), "scenarios": meta,
                           "runs": [r.__dict__ for r in runs]}, indent=1)  # fmt: skip
    if args.out is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        args.out.write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
        print(f"wrote {len(runs):,} runs to {args.out}", file=sys.stderr)
    return 0


def export_csv(runs: list[Any]) -> str:
    """One row per run: :data:`RUN_COLUMNS`, ``param.NAME`` for every parameter, then every metric."""
    params = list(dict.fromkeys(k for r in runs for k in r.params if k != "kind"))
    metrics = list(dict.fromkeys(k for r in runs for k in r.metrics))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([*RUN_COLUMNS, *(f"param.{p}" for p in params), *metrics])
    for r in runs:
        w.writerow([r.scenario, r.kind, r.dataset or "", r.key, r.code_version, r.status, r.repeat, r.seed,
                    r.finished, f"{r.wall_s:.6f}", *(_csv(r.params.get(p)) for p in params),
                    *(_csv(r.metrics.get(m)) for m in metrics)])  # fmt: skip
    return buf.getvalue()


def _csv(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list | dict):
        return json.dumps(v)
    return repr(v) if isinstance(v, float) else str(v)
