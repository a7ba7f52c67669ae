"""Cost accounting: one record per party and one report per run (every runner emits them).

Bytes are *payload* bytes -- encoded messages, exactly what the protocol's
codec produced.  ``bytes_sent`` counts everything a party handed to the
network (also what the network then lost or dropped); ``bytes_received``
counts what was delivered to it.  Transport overhead (TCP framing, TLS
records, handshakes) is reported separately by the TCP runners
(``CostReport.extra``) and is visible in taps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from mpc_rr.core._errors import ErrorLog, PeerError, ProtocolAbort
from mpc_rr.core._roles import COORDINATOR

if TYPE_CHECKING:
    from mpc_rr.core._stats_table import StatsTable

__all__ = ["CostReport", "PartyStats"]

_COUNTERS = ("messages_sent", "messages_received", "bytes_sent", "bytes_received")


@dataclass
class PartyStats:
    """What one party sent and received.

    ``rounds_*`` count distinct ``(run, step)`` labels of the messages, i.e.
    logical communication rounds, not bursts of sends.  ``deadlines`` counts
    the step deadlines that passed without progress.
    """

    party_id: int
    role: str
    messages_sent: int = 0
    messages_received: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    rounds_sent: set[tuple[str, int]] = field(default_factory=set)
    rounds_received: set[tuple[str, int]] = field(default_factory=set)
    deadlines: int = 0
    wall_s: float = 0.0
    peer_errors: ErrorLog = field(default_factory=ErrorLog)
    error: ProtocolAbort | None = None

    def count_sent(self, size: int, run: str, step: int) -> None:
        self.messages_sent += 1
        self.bytes_sent += size
        self.rounds_sent.add((run, step))

    def count_received(self, size: int) -> None:
        self.messages_received += 1
        self.bytes_received += size

    def to_json(self) -> dict[str, Any]:
        return {
            "party": self.party_id,
            "role": self.role,
            **{k: getattr(self, k) for k in _COUNTERS},
            "rounds_sent": len(self.rounds_sent),
            "rounds_received": len(self.rounds_received),
            "deadlines": self.deadlines,
            "wall_s": self.wall_s,
            "peer_errors": self.peer_errors.total,
            "peer_error_samples": self.peer_errors.summary()[:10],
            "error": None if self.error is None else str(self.error),
            "culprits": [] if self.error is None else list(self.error.culprits),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> PartyStats:
        """Rebuild from :meth:`to_json` (round labels become placeholders, errors samples)."""
        s = cls(int(d["party"]), str(d["role"]))
        for k in _COUNTERS:
            setattr(s, k, int(d[k]))
        s.rounds_sent = {("", i) for i in range(int(d["rounds_sent"]))}
        s.rounds_received = {("", i) for i in range(int(d["rounds_received"]))}
        s.deadlines = int(d["deadlines"])
        s.wall_s = float(d["wall_s"])
        for m in d["peer_error_samples"]:
            s.peer_errors.append(PeerError(m, None))
        s.peer_errors.total = int(d["peer_errors"])
        if d["error"] is not None:
            s.error = ProtocolAbort(str(d["error"]), tuple(int(c) for c in d["culprits"]))
        return s


@dataclass
class CostReport:
    """Costs of one run: per party, per role class, the coordinator and totals.

    ``messages`` / ``bytes`` count what parties *sent* (payload bytes).
    ``rounds`` is the largest number of distinct rounds any party sent in.
    ``wall_s`` is the wall-clock time of the whole run; ``transport`` names
    the runner; ``extra`` holds runner-specific figures (TCP: handshakes,
    handshake time).
    """

    parties: Mapping[int, PartyStats]  # a dict, or a StatsTable (columns: large runs)
    wall_s: float
    transport: str
    extra: dict[str, Any] = field(default_factory=dict)

    def _table(self) -> StatsTable | None:
        """The parties as columns, if they came so (then no per-party object is built)."""
        from mpc_rr.core._stats_table import StatsTable

        return self.parties if isinstance(self.parties, StatsTable) else None

    @property
    def messages(self) -> int:
        if (t := self._table()) is not None:
            return t.total("messages_sent")
        return sum(s.messages_sent for s in self.parties.values())

    @property
    def bytes(self) -> int:
        if (t := self._table()) is not None:
            return t.total("bytes_sent")
        return sum(s.bytes_sent for s in self.parties.values())

    @property
    def rounds(self) -> int:
        if (t := self._table()) is not None:
            return t.max_rounds_sent()
        return max((len(s.rounds_sent) for s in self.parties.values()), default=0)

    @property
    def peer_errors(self) -> int:
        if (t := self._table()) is not None:
            return t.peer_error_total()
        return sum(s.peer_errors.total for s in self.parties.values())

    def peer_error_logs(self) -> dict[int, ErrorLog]:
        """``party -> its ErrorLog``, for the parties that rejected something, by party id."""
        if (t := self._table()) is not None:
            return dict(sorted(t.peer_errors.items()))
        return {p: s.peer_errors for p, s in sorted(self.parties.items()) if s.peer_errors.total}

    def per_role(self) -> dict[str, dict[str, float]]:
        """Totals grouped by role class name (count, counters, max rounds, max wall)."""
        if (t := self._table()) is not None:
            return t.per_role()
        out: dict[str, dict[str, float]] = {}
        for s in self.parties.values():
            r = out.setdefault(
                s.role, {"count": 0, **dict.fromkeys(_COUNTERS, 0), "rounds": 0, "max_wall_s": 0.0}
            )
            r["count"] += 1
            for k in _COUNTERS:
                r[k] += getattr(s, k)
            r["rounds"] = max(r["rounds"], len(s.rounds_sent))
            r["max_wall_s"] = max(r["max_wall_s"], s.wall_s)
        return out

    def coordinator(self) -> dict[str, int]:
        """Counters of party 0 (zeros when the run has none)."""
        s = self.parties.get(COORDINATOR)
        return {k: (getattr(s, k) if s is not None else 0) for k in _COUNTERS}

    def data_parties(self) -> dict[str, dict[str, float]]:
        """Counters over parties ``1..n``: ``total`` and ``mean`` per party."""
        if (t := self._table()) is not None:
            tot = {k: float(t.total(k, skip=COORDINATOR)) for k in _COUNTERS}
            n = max(1, len(t) - (COORDINATOR in t))
            return {"total": tot, "mean": {k: v / n for k, v in tot.items()}}
        ps = [s for pid, s in self.parties.items() if pid != COORDINATOR]
        tot = {k: float(sum(getattr(s, k) for s in ps)) for k in _COUNTERS}
        n = max(1, len(ps))
        return {"total": tot, "mean": {k: v / n for k, v in tot.items()}}

    def to_json(self, *, per_party: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            "transport": self.transport,
            "parties": len(self.parties),
            "messages": self.messages,
            "bytes": self.bytes,
            "rounds": self.rounds,
            "wall_s": self.wall_s,
            "peer_errors": self.peer_errors,
            "coordinator": self.coordinator(),
            "data_parties": self.data_parties(),
            "per_role": self.per_role(),
            **self.extra,
        }
        if per_party:
            d["per_party"] = [self.parties[p].to_json() for p in sorted(self.parties)]
        return d
