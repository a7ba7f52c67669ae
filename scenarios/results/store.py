"""The results store: every finished run of every scenario in one SQLite file.

Standard library :mod:`sqlite3` in WAL mode with ``synchronous=FULL``: each
finished run is one transaction (its row and its session's counter), so a
process killed at any moment -- ``kill -9`` included -- leaves every run it
finished and none half-written.  Rerunning the scenario skips the runs
whose key is present (:func:`scenarios.experiments.spec.run_key`: scenario, grid point,
repeat, code version) and executes only the missing ones; the primary key
makes a duplicate impossible even if two processes race on one store (the
second insert is ignored and counted as such).

Tables (``PRAGMA user_version`` = :data:`SCHEMA_VERSION`):

* ``runs`` -- one row per finished run: ``key`` (primary), ``scenario``,
  ``kind``, ``point`` (JSON of the swept parameters), ``params`` (JSON of all
  parameters), ``repeat``, ``seed`` (the run's own seed), ``code_version``,
  ``data_identity``, ``dataset``, ``status`` (``ok`` | ``aborted``), ``metrics``
  (JSON of flat scalars), ``result`` (JSON document), ``wall_s``, ``finished``
  (UTC), ``session``;
* ``scenario_texts`` -- each distinct text of a scenario file (``id`` = its SHA-256);
* ``sessions`` -- one per ``mpc-rr scenario run``: planned (and the planned
  keys: the study as that text, code and data define it), stored before,
  executed, failed, started, finished (``NULL``: killed or still running),
  argv, library versions and machine;
* ``failures`` -- runs that raised (a bug or an environment error): kept
  with their traceback, not in ``runs``, so the next session retries them.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mpc_rr.core import UsageError
from scenarios.results.store_file import StoreFull, connect, diagnose, translate

__all__ = ["SCHEMA_VERSION", "Store", "StoreFull", "StoredRun", "now"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scenario_texts (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    path TEXT,
    text TEXT NOT NULL,
    first_seen TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    scenario TEXT NOT NULL,
    text_id TEXT NOT NULL REFERENCES scenario_texts(id),
    code_version TEXT NOT NULL,
    data_identity TEXT,
    data_description TEXT,
    planned INTEGER NOT NULL,
    planned_keys TEXT,
    stored_before INTEGER NOT NULL,
    executed INTEGER NOT NULL DEFAULT 0,
    duplicates INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    jobs INTEGER NOT NULL DEFAULT 1,
    started TEXT NOT NULL,
    finished TEXT,
    argv TEXT,
    versions TEXT,
    machine TEXT
);
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY,
    scenario TEXT NOT NULL,
    kind TEXT NOT NULL,
    point TEXT NOT NULL,
    params TEXT NOT NULL,
    repeat INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    code_version TEXT NOT NULL,
    data_identity TEXT,
    dataset TEXT,
    status TEXT NOT NULL CHECK (status IN ('ok', 'aborted')),
    metrics TEXT NOT NULL,
    result TEXT NOT NULL,
    wall_s REAL NOT NULL,
    finished TEXT NOT NULL,
    session INTEGER REFERENCES sessions(id)
);
CREATE INDEX IF NOT EXISTS runs_by_scenario ON runs (scenario, code_version);
CREATE TABLE IF NOT EXISTS failures (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL,
    scenario TEXT NOT NULL,
    point TEXT NOT NULL,
    repeat INTEGER NOT NULL,
    error TEXT NOT NULL,
    traceback TEXT NOT NULL,
    at TEXT NOT NULL,
    session INTEGER REFERENCES sessions(id)
);
"""


def now() -> str:
    """UTC time, ISO 8601 to the millisecond."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _json(obj: Any, *, sort: bool = True) -> str:
    return json.dumps(obj, sort_keys=sort, separators=(",", ":"), allow_nan=False, default=_default)


def _default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    raise TypeError(f"not JSON serializable: {type(obj).__name__}")


def _clean(obj: Any) -> Any:
    """``nan``/``inf`` -> ``None`` (JSON has neither)."""
    if isinstance(obj, float):
        return obj if obj == obj and obj not in (float("inf"), float("-inf")) else None
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    return obj


@dataclass(frozen=True)
class StoredRun:
    """One row of ``runs`` with its JSON columns decoded."""

    key: str
    scenario: str
    kind: str
    point: dict[str, Any]
    params: dict[str, Any]
    repeat: int
    seed: int
    code_version: str
    data_identity: str | None
    dataset: str | None
    status: str
    metrics: dict[str, Any]
    result: dict[str, Any]
    wall_s: float
    finished: str
    session: int | None


_RUN_COLUMNS = ("key, scenario, kind, point, params, repeat, seed, code_version, data_identity, "
                "dataset, status, metrics, result, wall_s, finished, session")  # fmt: skip


class Store:
    """A results store on disk (created on first use when ``create``)."""

    def __init__(self, path: str | Path, *, create: bool = True, read_only: bool = False) -> None:
        """Open (``create``: or create) the store at ``path``; ``read_only``: write nothing
        (for ``results`` and ``report``: a store on a read-only disk stays readable).

        Raises :class:`UsageError` naming the file and what is wrong with it (missing, a
        folder, not SQLite, damaged, another program's database, newer than this mpc-rr,
        not writable); :class:`~scenarios.results.store_file.StoreFull` when the disk is full.
        """
        self.path = Path(path)
        if self.path.is_dir():
            raise UsageError(f"{self.path}: is a directory, not a results store")
        if (not create or read_only) and not self.path.exists():
            raise UsageError(
                f"{self.path}: no such results store (mpc-rr scenario run FILE.toml --store {self.path})"
            )
        if self.path.exists() and self.path.stat().st_size == 0 and not create:
            # SQLite would take it as a new store and write into it
            raise UsageError(f"{self.path}: an empty file, not a results store (nothing was written to it)")
        if self.path.exists() and self.path.stat().st_size > 0:
            what = diagnose(self.path)
            if not what.startswith("is damaged (its pages"):  # the header tells already
                raise UsageError(f"{self.path}: not an mpc-rr results store: the file {what} "
                                 "(nothing was written to it)")  # fmt: skip
        try:
            self.db = connect(self.path, read_only=read_only)
        except sqlite3.Error as exc:
            raise translate(self.path, exc) from None
        self.db.execute("PRAGMA busy_timeout = 60000")
        version, tables = self._schema()
        if version > SCHEMA_VERSION:
            raise UsageError(f"{self.path}: store format {version} is newer than this mpc-rr ({SCHEMA_VERSION}); "
                             "upgrade mpc-rr")  # fmt: skip
        if read_only:
            if "runs" not in tables:
                raise UsageError(f"{self.path}: an SQLite file, but not an mpc-rr results store "
                                 f"(tables: {', '.join(sorted(tables)) or 'none'})")  # fmt: skip
            return
        self._use_wal()
        self.db.execute("PRAGMA synchronous = FULL")
        if "runs" not in tables:
            # one transaction: a concurrent writer sees no schema or all of it, never a part
            with self._tx():
                version, tables = self._schema()
                if tables and "runs" not in tables:
                    raise UsageError(f"{self.path}: an SQLite file, but not an mpc-rr results store "
                                     f"(tables: {', '.join(sorted(tables))})")  # fmt: skip
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self.db.execute(statement)
                self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif "planned_keys" not in {r[1] for r in self.db.execute("PRAGMA table_info(sessions)")}:
            self.db.execute("ALTER TABLE sessions ADD COLUMN planned_keys TEXT")  # early builds

    def _use_wal(self, patience_s: float = 60.0) -> None:
        """Switch the file to WAL (persistent: once per store).  The switch needs the file to
        itself and SQLite answers "database is locked" at once instead of calling the busy
        handler, so writers opening one fresh store together retry with a short backoff."""
        deadline = time.monotonic() + patience_s
        pause = 0.005
        while True:
            try:
                if str(self.db.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                    self.db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
            time.sleep(pause)
            pause = min(0.2, 2 * pause)

    def _schema(self) -> tuple[int, set[str]]:
        version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        return version, tables - {"sqlite_sequence"}

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing (one transaction per call) ------------------------------------------------
    def begin(
        self,
        *,
        scenario: str,
        kind: str,
        path: str | None,
        text: str,
        text_id: str,
        code_version: str,
        data_identity: str | None,
        data_description: str | None,
        planned: int,
        stored_before: int,
        jobs: int,
        argv: Sequence[str],
        versions: dict[str, str],
        machine: dict[str, Any],
    ) -> int:
        """Record a new session (and the scenario's text if new) with the keys of every run it
        plans (what the study is now: its results are those runs); returns its id."""
        with self._tx():
            self.db.execute(
                "INSERT OR IGNORE INTO scenario_texts (id, name, kind, path, text, first_seen) VALUES (?,?,?,?,?,?)",
                (text_id, scenario, kind, path, text, now()),
            )
            cur = self.db.execute(
                "INSERT INTO sessions (scenario, text_id, code_version, data_identity, data_description, "
                "planned, planned_keys, stored_before, jobs, started, argv, versions, machine) "
                "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (scenario, text_id, code_version, data_identity, data_description, len(planned),
                 _json(list(planned)), stored_before, jobs, now(), _json(list(argv)), _json(versions),
                 _json(machine)),
            )  # fmt: skip
        assert cur.lastrowid is not None
        return cur.lastrowid

    def put(
        self,
        *,
        session: int | None,
        key: str,
        scenario: str,
        kind: str,
        point: dict[str, Any],
        params: dict[str, Any],
        repeat: int,
        seed: int,
        code_version: str,
        data_identity: str | None,
        dataset: str | None,
        status: str,
        metrics: dict[str, Any],
        result: dict[str, Any],
        wall_s: float,
    ) -> bool:
        """Store one finished run; ``False`` if its key was already there (nothing changes)."""
        row = (key, scenario, kind, _json(point, sort=False), _json(params), repeat, seed, code_version, data_identity,
               dataset, status, _json(_clean(metrics)), _json(_clean(result)), wall_s, now(), session)  # fmt: skip
        with self._tx():
            cur = self.db.execute(
                f"INSERT OR IGNORE INTO runs ({_RUN_COLUMNS}) VALUES ({','.join('?' * 16)})", row
            )
            inserted = cur.rowcount == 1
            if session is not None:
                col = "executed" if inserted else "duplicates"
                self.db.execute(f"UPDATE sessions SET {col} = {col} + 1 WHERE id = ?", (session,))
        return inserted

    def fail(self, *, session: int | None, key: str, scenario: str, point: dict[str, Any], repeat: int,
             error: str, traceback: str) -> None:  # fmt: skip
        """Record a run that raised (it stays missing, so the next session retries it)."""
        with self._tx():
            self.db.execute(
                "INSERT INTO failures (key, scenario, point, repeat, error, traceback, at, session) "
                "VALUES (?,?,?,?,?,?,?,?)",
                (key, scenario, _json(point, sort=False), repeat, error, traceback, now(), session),
            )
            if session is not None:
                self.db.execute("UPDATE sessions SET failed = failed + 1 WHERE id = ?", (session,))

    def end(self, session: int) -> None:
        with self._tx():
            self.db.execute("UPDATE sessions SET finished = ? WHERE id = ?", (now(), session))

    def _tx(self) -> _Transaction:
        return _Transaction(self.db)

    # -- reading -------------------------------------------------------------------------
    def present(self, keys: Iterable[str]) -> set[str]:
        """Which of ``keys`` are stored."""
        keys = list(keys)
        out: set[str] = set()
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            q = f"SELECT key FROM runs WHERE key IN ({','.join('?' * len(chunk))})"
            out.update(r[0] for r in self.db.execute(q, chunk))
        return out

    def count(self) -> int:
        return int(self.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def runs(self, scenario: str | None = None, code_version: str | None = None) -> list[StoredRun]:
        """Stored runs (of one scenario / code version), in the order they finished."""
        q, args = f"SELECT {_RUN_COLUMNS} FROM runs", []
        where = []
        if scenario is not None:
            where.append("scenario = ?")
            args.append(scenario)
        if code_version is not None:
            where.append("code_version = ?")
            args.append(code_version)
        if where:
            q += " WHERE " + " AND ".join(where)
        q += " ORDER BY finished, key"
        return [_stored(r, self.path) for r in self.db.execute(q, args)]

    def run(self, key_prefix: str) -> StoredRun:
        """The run whose key starts with ``key_prefix`` (at least 6 hex digits, unambiguous)."""
        if len(key_prefix) < 6:
            raise UsageError(f"a run key needs at least 6 characters, got {key_prefix!r}")
        rows = self.db.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE key LIKE ? LIMIT 2",
                               (key_prefix.lower() + "%",)).fetchall()  # fmt: skip
        if not rows:
            raise UsageError(f"{self.path}: no run with a key starting {key_prefix!r}")
        if len(rows) > 1:
            raise UsageError(
                f"{self.path}: more than one run key starts with {key_prefix!r}; give more characters"
            )
        return _stored(rows[0], self.path)

    def scenarios(self) -> list[dict[str, Any]]:
        """Per scenario and code version: kind, runs ok/aborted, points, first/last finished."""
        rows = self.db.execute(
            "SELECT scenario, code_version, kind, COUNT(*), SUM(status = 'ok'), COUNT(DISTINCT point), "
            "MIN(finished), MAX(finished), GROUP_CONCAT(DISTINCT dataset) FROM runs "
            "GROUP BY scenario, code_version ORDER BY MAX(finished)"
        ).fetchall()
        return [
            {"scenario": r[0], "code_version": r[1], "kind": r[2], "runs": r[3], "ok": r[4],
             "aborted": r[3] - r[4], "points": r[5], "first": r[6], "last": r[7],
             "datasets": sorted((r[8] or "").split(",")) if r[8] else []}
            for r in rows
        ]  # fmt: skip

    def planned_keys(self, session: int) -> list[str]:
        """The keys a session planned (its study's runs)."""
        row = self.db.execute(
            "SELECT planned_keys FROM sessions WHERE id = ?", (session,)
        ).fetchone()
        keys = _json_column(self.path, f"session {session}", "planned_keys", row[0]) if row and row[0] else []
        if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
            raise UsageError(f"{self.path}: session {session}: planned_keys is not a list of run keys{_EDITED}")
        return keys

    def sessions(self, scenario: str | None = None) -> list[dict[str, Any]]:
        q = ("SELECT id, scenario, text_id, code_version, data_identity, data_description, planned, "
             "stored_before, executed, duplicates, failed, jobs, started, finished, argv, versions, machine "
             "FROM sessions")  # fmt: skip
        args: list[Any] = []
        if scenario is not None:
            q += " WHERE scenario = ?"
            args.append(scenario)
        cols = ("id", "scenario", "text_id", "code_version", "data_identity", "data_description", "planned",
                "stored_before", "executed", "duplicates", "failed", "jobs", "started", "finished", "argv",
                "versions", "machine")  # fmt: skip
        out = []
        for r in self.db.execute(q + " ORDER BY id", args):
            d = dict(zip(cols, r, strict=True))
            for k in ("argv", "versions", "machine"):
                d[k] = _json_column(self.path, f"session {d['id']}", k, d[k]) if d[k] else None
            out.append(d)
        return out

    def texts(self, scenario: str) -> list[dict[str, Any]]:
        """The scenario's texts, oldest first."""
        rows = self.db.execute("SELECT id, path, text, first_seen, kind FROM scenario_texts WHERE name = ? "
                               "ORDER BY first_seen", (scenario,)).fetchall()  # fmt: skip
        return [
            {"id": r[0], "path": r[1], "text": r[2], "first_seen": r[3], "kind": r[4]} for r in rows
        ]

    def failures(self, scenario: str | None = None) -> list[dict[str, Any]]:
        q = "SELECT key, scenario, point, repeat, error, traceback, at, session FROM failures"
        args: list[Any] = []
        if scenario is not None:
            q += " WHERE scenario = ?"
            args.append(scenario)
        cols = ("key", "scenario", "point", "repeat", "error", "traceback", "at", "session")
        return [dict(zip(cols, r, strict=True)) for r in self.db.execute(q + " ORDER BY id", args)]


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on an exception)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self.db.execute("COMMIT")
            return
        try:  # SQLite may have rolled back already (a full disk): the first error is the story
            self.db.execute("ROLLBACK")
        except (sqlite3.Error, StoreFull, UsageError):
            pass


def _stored(r: Sequence[Any], path: Path) -> StoredRun:
    def column(i: int, name: str) -> dict[str, Any]:
        value = _json_column(path, f"run {r[0]!r}", name, r[i])
        if not isinstance(value, dict):
            raise UsageError(f"{path}: run {r[0]!r}: column {name} holds a JSON {type(value).__name__}, "
                             f"not an object{_EDITED}")  # fmt: skip
        return value

    return StoredRun(
        key=r[0], scenario=r[1], kind=r[2], point=column(3, "point"), params=column(4, "params"), repeat=r[5],
        seed=r[6], code_version=r[7], data_identity=r[8], dataset=r[9], status=r[10],
        metrics=column(11, "metrics"), result=column(12, "result"), wall_s=r[13], finished=r[14], session=r[15],
    )  # fmt: skip


_EDITED = " (the file was changed outside mpc-rr?)"


def _json_column(path: Path, row: str, name: str, value: Any) -> Any:
    """A JSON column of a stored row, decoded; a value mpc-rr cannot have written is a
    :class:`UsageError` naming the row and the column."""
    try:
        return json.loads(value)
    except (TypeError, ValueError, RecursionError) as exc:  # not text, not UTF-8, not JSON, too deep
        raise UsageError(f"{path}: {row}: column {name} is not JSON ({type(exc).__name__}: "
                         f"{str(exc)[:200]}){_EDITED}") from None  # fmt: skip
