"""``mpc-rr report STORE --out report.html``: one self-contained HTML page of a results store.

Figures (embedded SVG), a table per grid point, seeds, sessions, the scenario
text as run, library versions and machines -- for every scenario in the
store, or those named with ``--scenario``.  With ``--live``: the same page served on
this machine while ``scenario run`` fills the store, with runs done, planned and the ETA,
reloading itself (docs/scenarios.md, "Watching a running study").
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
    live = p.add_argument_group("live view of a running study")
    live.add_argument("--live", action="store_true",
                      help="serve the page on this machine, rebuilt from the store (read-only) as `scenario run` "
                           "adds runs, with runs done / planned / ETA; Ctrl-C stops it")  # fmt: skip
    live.add_argument("--port", type=int, default=8000, help="--live: the port (default: 8000; 0: any free one)")
    live.add_argument("--refresh", type=float, default=10.0,
                      help="--live: seconds between the page's reloads (default: 10)")  # fmt: skip
    add_json(p, "print what was written as JSON")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    import time

    if args.live:
        return _live(args)

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


def _live(args: argparse.Namespace) -> int:
    from mpc_rr.core import UsageError
    from scenarios.results.live import LiveReport, make_server

    if args.json:
        raise UsageError("--live serves a page; --json does not apply to it (GET /status.json gives the progress)")
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be in 0..65535, got {args.port}")
    if not args.refresh >= 1:
        raise UsageError(f"--refresh must be at least 1 second, got {args.refresh:g}")
    if args.store.is_dir():
        raise UsageError(f"{args.store}: is a directory, not a results store")
    try:
        server = make_server(LiveReport(args.store, args.scenario, args.refresh), "127.0.0.1", args.port)
    except OSError as exc:
        raise UsageError(f"--port {args.port}: cannot listen on it ({exc.strerror}); try another or 0") from None
    host, port = server.server_address[:2]
    print(f"live view of {args.store}: http://{host}:{port}/ (reloads every {args.refresh:g} s; "
          "Ctrl-C stops it)", file=sys.stderr, flush=True)  # fmt: skip
    try:
        server.serve_forever(poll_interval=0.5)
    finally:
        server.server_close()
    return 0
