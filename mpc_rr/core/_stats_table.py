"""Per-party costs as columns: :class:`StatsTable` (read-only) and :class:`StatsColumns` (filled in).

A :class:`~mpc_rr.core.PartyStats` is a Python object of about 1 KB (a
dict, two sets of round labels, an :class:`~mpc_rr.core.ErrorLog`); a run
of 10^6 parties held one per party in each worker and again in the parent
(docs/scale.md).  Here the counters are one numpy column each (8 bytes a
party), the round labels an index into the few distinct label sets the
parties share (honest parties of one protocol send and accept the same
steps), and the rare things -- a peer's rejected messages, an abort --
are kept only for the parties that have them.

:class:`StatsTable` is a ``Mapping[int, PartyStats]``: reading
``table[pid]`` builds that party's :class:`PartyStats` (equal to what a
:class:`~parties.party.Party` would have counted); writing to it changes
nothing, use :meth:`StatsTable.set_error`.  :class:`~mpc_rr.core.CostReport`
reads its totals from the columns without building any object.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from mpc_rr.core._costs import _COUNTERS, PartyStats
from mpc_rr.core._errors import ErrorLog, ProtocolAbort, UsageError
from mpc_rr.core._id_columns import IdColumns

__all__ = ["StatsColumns", "StatsTable"]

Label = tuple[str, int]
_INT_COLUMNS = (*_COUNTERS, "deadlines")
_SHARED_LABELS = 16
"""A label set with more labels than this is kept per party (a coordinator's, or a long-lived
party's): sharing grows one frozen set per label added, quadratic in a set's size."""


class StatsTable(IdColumns[PartyStats]):
    """Costs of many parties, column by column (see module docstring).

    ``ids`` sorted party ids; ``role`` an index into ``role_names``; the
    ``_COUNTERS`` and ``deadlines`` int64 columns; ``wall_s`` float64;
    ``rounds_sent`` / ``rounds_received`` indices into ``label_sets``;
    ``peer_errors`` and ``errors`` only for the parties that have some.
    """

    def __init__(
        self,
        ids: np.ndarray,
        role: np.ndarray,
        role_names: Sequence[str],
        columns: Mapping[str, np.ndarray],
        wall_s: np.ndarray,
        rounds_sent: np.ndarray,
        rounds_received: np.ndarray,
        label_sets: Sequence[frozenset[Label]],
        peer_errors: Mapping[int, ErrorLog] | None = None,
        errors: Mapping[int, ProtocolAbort] | None = None,
    ) -> None:
        n = len(ids)
        cols = {k: np.asarray(columns[k], np.int64) for k in _INT_COLUMNS}
        parts = [role, wall_s, rounds_sent, rounds_received, *cols.values()]
        if any(len(c) != n for c in parts):
            raise UsageError(f"StatsTable: every column needs {n} entries, one per party")
        self.ids = np.asarray(ids, np.int64)
        if n and np.any(np.diff(self.ids) <= 0):
            raise UsageError("StatsTable: party ids must be sorted and distinct")
        self.role = np.asarray(role, np.int32)
        if n and not 0 <= int(self.role.min()) <= int(self.role.max()) < len(role_names):
            raise UsageError(f"StatsTable: a role index outside the {len(role_names)} role names")
        self.role_names = list(role_names)
        self.columns = cols
        self.wall_s = np.asarray(wall_s, np.float64)
        self.rounds_sent = np.asarray(rounds_sent, np.int32)
        self.rounds_received = np.asarray(rounds_received, np.int32)
        self.label_sets = list(label_sets)
        self.peer_errors: dict[int, ErrorLog] = {
            int(p): log for p, log in (peer_errors or {}).items() if log.total
        }
        self.errors: dict[int, ProtocolAbort] = dict(errors or {})

    # -- Mapping[int, PartyStats] ----------------------------------------------------------
    def __getitem__(self, pid: int) -> PartyStats:
        i = self._row(pid)
        if i < 0:
            raise KeyError(pid)
        s = PartyStats(int(pid), self.role_names[self.role[i]])
        for k, col in self.columns.items():
            setattr(s, k, int(col[i]))
        s.wall_s = float(self.wall_s[i])
        s.rounds_sent = set(self.label_sets[self.rounds_sent[i]])
        s.rounds_received = set(self.label_sets[self.rounds_received[i]])
        log = self.peer_errors.get(int(pid))
        if log is not None:
            s.peer_errors = log
        s.error = self.errors.get(int(pid))
        return s

    # -- what CostReport reads -------------------------------------------------------------
    def set_error(self, pid: int, error: ProtocolAbort) -> None:
        """Record ``pid``'s abort (``table[pid].error = ...`` would change a copy)."""
        if self._row(pid) < 0:
            raise KeyError(pid)
        self.errors[int(pid)] = error

    def total(self, column: str, *, skip: int | None = None) -> int:
        """Sum of an int column (over every party but ``skip``)."""
        col = self.columns[column]
        if skip is not None and (i := self._row(skip)) >= 0:
            return int(col.sum() - col[i])
        return int(col.sum())

    def max_rounds_sent(self) -> int:
        """The most distinct labels any party sent under."""
        if not len(self.ids):
            return 0
        sizes = np.array([len(s) for s in self.label_sets], np.int64)
        return int(sizes[np.unique(self.rounds_sent)].max())

    def peer_error_total(self) -> int:
        return sum(log.total for log in self.peer_errors.values())

    def per_role(self) -> dict[str, dict[str, float]]:
        """What :meth:`CostReport.per_role` returns, from the columns."""
        out: dict[str, dict[str, float]] = {}
        sizes = np.array([len(s) for s in self.label_sets], np.int64)
        for r, name in enumerate(self.role_names):
            rows = self.role == r
            if not rows.any():
                continue
            d = out.setdefault(
                name, {"count": 0, **dict.fromkeys(_COUNTERS, 0), "rounds": 0, "max_wall_s": 0.0}
            )  # two role classes of one name (unlikely) add up, as CostReport.per_role does
            d["count"] += int(rows.sum())
            for k in _COUNTERS:
                d[k] += int(self.columns[k][rows].sum())
            d["rounds"] = max(d["rounds"], int(sizes[self.rounds_sent[rows]].max()))
            d["max_wall_s"] = max(d["max_wall_s"], float(self.wall_s[rows].max()))
        return out

    # -- building ----------------------------------------------------------------------------
    @classmethod
    def of(cls, stats: Mapping[int, PartyStats]) -> StatsTable:
        """The table of ``stats`` (a :class:`StatsTable` is returned as it is)."""
        if isinstance(stats, StatsTable):
            return stats
        cols = StatsColumns(sorted(stats))
        for i, pid in enumerate(cols.pids):
            s = stats[pid]
            cols.role[i] = cols.role_index(s.role)
            for k in _INT_COLUMNS:
                getattr(cols, k)[i] = getattr(s, k)
            cols.wall_s[i] = s.wall_s
            cols.rounds_sent[i] = cols.labels_id(s.rounds_sent)
            cols.rounds_received[i] = cols.labels_id(s.rounds_received)
            if s.peer_errors.total:
                cols.peer_errors[i] = s.peer_errors
            if s.error is not None:
                cols.errors[pid] = s.error
        return cols.table()

    @classmethod
    def concat(cls, tables: Iterable[StatsTable]) -> StatsTable:
        """One table of several with disjoint party ids (e.g. one per shard)."""
        ts = sorted((t for t in tables if len(t)), key=lambda t: int(t.ids[0]) if len(t) else 0)
        names: dict[str, int] = {}
        labels: dict[frozenset[Label], int] = {}
        roles, sent, recv = [], [], []
        for t in ts:
            rmap = np.array([names.setdefault(n, len(names)) for n in t.role_names] or [0], np.int32)
            lmap = np.array([labels.setdefault(s, len(labels)) for s in t.label_sets] or [0], np.int32)
            roles.append(rmap[t.role])
            sent.append(lmap[t.rounds_sent])
            recv.append(lmap[t.rounds_received])

        def cat(parts: list[np.ndarray], dtype: Any) -> np.ndarray:
            return np.concatenate(parts) if parts else np.zeros(0, dtype)

        ids = cat([t.ids for t in ts], np.int64)
        order = np.argsort(ids, kind="stable")  # shards are contiguous, so this is usually a no-op
        return cls(
            ids[order], cat(roles, np.int32)[order], list(names),
            {k: cat([t.columns[k] for t in ts], np.int64)[order] for k in _INT_COLUMNS},
            cat([t.wall_s for t in ts], np.float64)[order],
            cat(sent, np.int32)[order], cat(recv, np.int32)[order], list(labels),
            {p: log for t in ts for p, log in t.peer_errors.items()},
            {p: e for t in ts for p, e in t.errors.items()},
        )  # fmt: skip


class StatsColumns:
    """Counters of the parties ``pids`` kept as flat arrays while a run goes on, by row.

    The hot paths of a runner write ``messages_sent[i] += 1`` and so on (row
    ``i`` of party ``pids[i]``; ``array`` element access is several times
    faster than a numpy scalar's); round labels go through :meth:`add_label`;
    :meth:`table` hands the result over as a :class:`StatsTable`.
    """

    def __init__(self, pids: Sequence[int]) -> None:
        n = len(pids)
        self.pids = list(pids)
        self.role = array("i", bytes(4 * n))
        self.role_names: list[str] = []
        self.messages_sent = array("q", bytes(8 * n))
        self.messages_received = array("q", bytes(8 * n))
        self.bytes_sent = array("q", bytes(8 * n))
        self.bytes_received = array("q", bytes(8 * n))
        self.deadlines = array("q", bytes(8 * n))
        self.wall_s = array("d", bytes(8 * n))
        self.rounds_sent = array("i", bytes(4 * n))  # >= 0: shared set; < 0: own set
        self.rounds_received = array("i", bytes(4 * n))
        self.label_sets: list[frozenset[Label]] = [frozenset()]
        self._label_ids: dict[frozenset[Label], int] = {frozenset(): 0}
        self._next: dict[tuple[int, Label], int] = {}
        self._own: dict[int, set[Label]] = {}  # key -1 - k: party-owned label sets
        self.peer_errors: dict[int, ErrorLog] = {}  # by row
        self.errors: dict[int, ProtocolAbort] = {}  # by party id

    def role_index(self, name: str) -> int:
        try:
            return self.role_names.index(name)
        except ValueError:
            self.role_names.append(name)
            return len(self.role_names) - 1

    def labels_id(self, labels: Iterable[Label]) -> int:
        """The shared id of a set of labels (a new one if needed)."""
        s = frozenset(labels)
        k = self._label_ids.setdefault(s, len(self.label_sets))
        if k == len(self.label_sets):
            self.label_sets.append(s)
        return k

    def label_count(self, ref: int) -> int:
        """How many labels the set ``ref`` (an entry of ``rounds_*``) holds."""
        return len(self.label_sets[ref]) if ref >= 0 else len(self._own[ref])

    def add_label(self, ref: int, label: Label) -> int:
        """The set ``ref`` with ``label`` added: the new value for ``rounds_*[i]``."""
        if ref < 0:
            self._own[ref].add(label)
            return ref
        nxt = self._next.get((ref, label))
        if nxt is None:
            base = self.label_sets[ref]
            if label in base:
                nxt = ref
            elif len(base) >= _SHARED_LABELS:
                nxt = -1 - len(self._own)
                self._own[nxt] = {*base, label}
                return nxt  # not cached: each party that grows this far owns its set
            else:
                nxt = self.labels_id(base | {label})
            self._next[ref, label] = nxt
        return nxt

    def table(self) -> StatsTable:
        """The columns as a :class:`StatsTable` (own label sets shared where equal)."""
        # own set -1 - j becomes the shared id own[j]
        own = np.array([self.labels_id(self._own[-1 - j]) for j in range(len(self._own))] or [0], np.int32)

        def refs(col: array[int]) -> np.ndarray:
            a = np.frombuffer(col, np.int32).copy()
            mine = a < 0
            a[mine] = own[-1 - a[mine]]
            return a

        order = np.argsort(np.asarray(self.pids, np.int64), kind="stable")
        rows = {pid: r for r, pid in enumerate(self.pids)}
        return StatsTable(
            np.asarray(self.pids, np.int64)[order], np.frombuffer(self.role, np.int32)[order],
            self.role_names,
            {k: np.frombuffer(getattr(self, k), np.int64)[order] for k in _INT_COLUMNS},
            np.frombuffer(self.wall_s, np.float64)[order],
            refs(self.rounds_sent)[order], refs(self.rounds_received)[order], self.label_sets,
            {self.pids[i]: log for i, log in self.peer_errors.items()},
            {p: e for p, e in self.errors.items() if p in rows},
        )  # fmt: skip
