"""``mpc-rr report STORE --out report.html``: one self-contained HTML page of a results store.

Figures (embedded SVG), a table per grid point, seeds, sessions, the scenario
text as run, library versions and machines -- for every scenario in the
store, or those named with ``--scenario``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from scenarios.cli.options import HelpFormatter, add_json, output_file


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "report", help="one self-contained HTML page of a results store (figures, tables, seeds, versions)",
        description=__doc__, formatter_class=HelpFormatter,
    )  # fmt: skip
    p.add_argument(
        "store", type=Path, metavar="STORE.db", help="results store (mpc-rr scenario run --store)"
    )
    p.add_argument(
        "--out",
        type=output_file,
        default=Path("report.html"),
        help="HTML file (default: report.html)",
    )
    p.add_argument(
        "--scenario",
        action="append",
        default=None,
        help="only this scenario (repeatable; default: all)",
    )
    add_json(p, "print what was written as JSON")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import time

    from scenarios.results.report import write_report

    t0 = time.perf_counter()
    out, sections = write_report(args.store, args.out, args.scenario)
    figs = sum(len(s.figures) for s in sections)
    runs = sum(len(s.runs) for s in sections)
    if args.json:
        import json

        print(json.dumps({"out": str(out), "bytes": out.stat().st_size, "seconds": time.perf_counter() - t0,
                          "scenarios": [{"name": s.name, "kind": s.kind, "runs": len(s.runs),
                                         "figures": [f.title for f in s.figures]} for s in sections]}, indent=1))  # fmt: skip
        return 0
    print(f"wrote {out}: {len(sections)} scenario(s), {runs:,} runs, {figs} figures, "
          f"{out.stat().st_size / 1e6:.1f} MB ({time.perf_counter() - t0:.1f} s)", file=sys.stderr)  # fmt: skip
    return 0
