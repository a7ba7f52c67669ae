"""``mpc-rr report STORE --live``: the report page of a study that is still running, kept fresh.

A small HTTP server on this machine (standard library, ``127.0.0.1`` unless
told otherwise) answers ``/`` with the report of :mod:`scenarios.results.report`
-- figures and tables of the runs stored so far -- headed by a banner per
scenario: runs done of the runs its last session planned, failures, the rate
and the ETA, and whether the session is still running.  The page reloads
itself every ``refresh`` seconds; ``/status.json`` is the banner as JSON.

The store is opened read-only for each look (never locked, never written:
``scenario run`` keeps writing it meanwhile, SQLite's WAL lets both go on), and
the page is rebuilt only when the store changed since the last build -- drawing
the figures is the slow part.
"""

from __future__ import annotations

import html
import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from mpc_rr.core import UsageError
from scenarios.results.report import build, render
from scenarios.results.store import Store

__all__ = ["LiveReport", "live_status", "make_server"]


def _timestamp(iso: str) -> float:
    """Seconds since the epoch of a store's time (ISO 8601, UTC)."""
    t = datetime.fromisoformat(iso)
    return (t if t.tzinfo is not None else t.replace(tzinfo=UTC)).timestamp()


def live_status(store: Store, now: float | None = None) -> list[dict[str, Any]]:
    """Per scenario, its last session's progress: ``planned``, ``done`` (stored before it +
    executed + failed), ``failed``, ``running`` (no end recorded), ``rate`` (runs/s executed by
    the session) and ``eta_s`` (remaining runs at that rate; ``None`` before the first run)."""
    now = time.time() if now is None else now
    last: dict[str, dict[str, Any]] = {}
    for s in store.sessions():
        last[s["scenario"]] = s  # ordered by id: the last one wins
    out = []
    for name, s in last.items():
        done = s["stored_before"] + s["executed"] + s["failed"]
        running = s["finished"] is None
        elapsed = max(0.0, (now if running else _timestamp(s["finished"])) - _timestamp(s["started"]))
        worked = s["executed"] + s["failed"]
        rate = worked / elapsed if worked and elapsed > 0 else None
        remaining = max(0, s["planned"] - done)
        eta = remaining / rate if rate and running else (0.0 if not remaining else None)
        out.append({"scenario": name, "session": s["id"], "planned": s["planned"], "done": done,
                    "failed": s["failed"], "running": running, "started": s["started"],
                    "finished": s["finished"], "elapsed_s": elapsed, "rate": rate, "eta_s": eta})  # fmt: skip
    return out


def _eta(s: dict[str, Any]) -> str:
    if not s["running"]:
        return "finished" if s["done"] >= s["planned"] else "stopped (interrupted; run it again to resume)"
    if s["eta_s"] is None:
        return "running, waiting for the first run"
    m, sec = divmod(round(s["eta_s"]), 60)
    return f"running, {s['rate']:.2f} runs/s, ETA {f'{m} min {sec} s' if m else f'{sec} s'}"


def banner(status: Sequence[dict[str, Any]], refresh: float, built: str) -> str:
    """The live header: one progress line and bar per scenario."""
    rows = []
    for s in status:
        share = s["done"] / s["planned"] if s["planned"] else 1.0
        failed = f", {s['failed']} failed" if s["failed"] else ""
        rows.append(
            f'<div class="live-row"><b>{html.escape(s["scenario"])}</b>: '
            f'<span class="live-count">{s["done"]:,} of {s["planned"]:,} runs done</span>{failed} '
            f"&middot; {html.escape(_eta(s))}"
            f'<div class="live-bar"><div style="width:{100 * share:.1f}%"></div></div></div>'
        )
    body = "".join(rows) or "<div>No session in the store yet: start <code>mpc-rr scenario run</code>.</div>"
    return (
        '<style>.live{position:sticky;top:0;z-index:5;background:#eef6ff;border:1px solid #9cc3ef;'
        "padding:8px 14px;margin:0 0 14px;font-size:15px}.live-bar{height:6px;background:#d0d7de;"
        "margin:3px 0 6px}.live-bar div{height:6px;background:#1f77b4}</style>"
        f'<div class="live" id="live"><b>Live view</b> &middot; the store read at {html.escape(built)} UTC, '
        f"this page reloads every {refresh:g} s{body}</div>"
    )


class LiveReport:
    """The page of one store, rebuilt when the store changed (its files' sizes and times)."""

    def __init__(self, store: Path, scenarios: Sequence[str] | None = None, refresh: float = 10.0) -> None:
        self.store = Path(store)
        self.scenarios = list(scenarios) if scenarios else None
        self.refresh = refresh
        self._lock = threading.Lock()
        self._key: tuple[Any, ...] | None = None
        self._page = ""
        self.builds = 0

    def _signature(self) -> tuple[Any, ...]:
        out = []
        for suffix in ("", "-wal"):
            p = self.store.with_name(self.store.name + suffix)
            st = p.stat() if p.exists() else None
            out.append((st.st_size, st.st_mtime_ns) if st else None)
        return tuple(out)

    def status(self) -> list[dict[str, Any]]:
        with Store(self.store, create=False, read_only=True) as store:
            return live_status(store)

    def page(self) -> str:
        """The page now (rebuilt if the store changed since the last one)."""
        with self._lock:
            key = self._signature()
            built = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
            try:
                with Store(self.store, create=False, read_only=True) as store:
                    status = live_status(store)
                    if key != self._key:
                        names = [s["scenario"] for s in store.scenarios()]
                        chosen = [n for n in (self.scenarios or names) if n in names]
                        self._page = render(str(self.store), build(store, chosen) if chosen else [])
                        self._key = key
                        self.builds += 1
            except (UsageError, sqlite3.Error) as exc:  # not there yet, being created, not a store: say so
                status, self._key = [], None
                self._page = render(str(self.store), []).replace(
                    "</h1>", f'</h1><p class="warn">{html.escape(str(exc))}</p>', 1
                )
            head = f'<meta http-equiv="refresh" content="{self.refresh:g}">'
            return self._page.replace("<head>", "<head>" + head, 1).replace(
                "<body>", "<body>" + banner(status, self.refresh, built), 1
            )


def make_server(live: LiveReport, host: str = "127.0.0.1", port: int = 8000) -> ThreadingHTTPServer:
    """An HTTP server for ``live`` (``port = 0``: any free port; ``server.server_address`` says
    which); run it with ``serve_forever()``."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            if path in ("/", "/index.html"):
                body, kind = live.page().encode("utf-8"), "text/html; charset=utf-8"
            elif path == "/status.json":
                try:
                    body = json.dumps(live.status()).encode()
                except (UsageError, sqlite3.Error) as exc:
                    body = json.dumps({"error": str(exc)}).encode()
                kind = "application/json"
            else:
                self.send_error(404, "the live view serves / and /status.json")
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # (one line per reload would bury the terminal)

    return ThreadingHTTPServer((host, port), Handler)
