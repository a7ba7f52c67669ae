"""Cost accounting: per-party counters and the run-level cost report."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mpc_rr.errors import PeerError, ProtocolAbort

__all__ = ["CostReport", "PartyStats"]


@dataclass
class PartyStats:
    """What one party sent and received.

    ``rounds_*`` count distinct ``(run, step)`` labels of the messages, i.e.
    logical communication rounds, not bursts of sends.
    """

    party_id: int
    role: str
    messages_sent: int = 0
    messages_received: int = 0
    bytes_sent: int = 0
    bytes_received: int = 0
    rounds_sent: set[tuple[str, int]] = field(default_factory=set)
    rounds_received: set[tuple[str, int]] = field(default_factory=set)
    timeouts: int = 0
    wall_s: float = 0.0
    peer_errors: list[PeerError] = field(default_factory=list)
    error: ProtocolAbort | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "party": self.party_id,
            "role": self.role,
            "messages_sent": self.messages_sent,
            "messages_received": self.messages_received,
            "bytes_sent": self.bytes_sent,
            "bytes_received": self.bytes_received,
            "rounds_sent": len(self.rounds_sent),
            "rounds_received": len(self.rounds_received),
            "timeouts": self.timeouts,
            "wall_s": self.wall_s,
            "peer_errors": [str(e) for e in self.peer_errors],
            "error": None if self.error is None else str(self.error),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> PartyStats:
        """Rebuild (counts only: round labels become placeholders) from :meth:`to_json`."""
        s = cls(int(d["party"]), str(d["role"]))
        s.messages_sent = int(d["messages_sent"])
        s.messages_received = int(d["messages_received"])
        s.bytes_sent = int(d["bytes_sent"])
        s.bytes_received = int(d["bytes_received"])
        s.rounds_sent = {("", i) for i in range(int(d["rounds_sent"]))}
        s.rounds_received = {("", i) for i in range(int(d["rounds_received"]))}
        s.timeouts = int(d["timeouts"])
        s.wall_s = float(d["wall_s"])
        s.peer_errors = [PeerError(m, int(d["party"])) for m in d["peer_errors"]]
        s.error = None if d["error"] is None else ProtocolAbort(str(d["error"]))
        return s


@dataclass
class CostReport:
    """Costs of one run: per party, per role class, and totals.

    ``messages`` / ``bytes`` count what was *sent* by parties (payload bytes,
    i.e. encoded messages; TCP framing and TLS overhead are visible in taps).
    ``rounds`` is the largest number of distinct rounds any party sent in.
    ``wall_s`` is the wall-clock time of the whole run.
    """

    parties: dict[int, PartyStats]
    wall_s: float
    transport: str = "memory"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def messages(self) -> int:
        return sum(s.messages_sent for s in self.parties.values())

    @property
    def bytes(self) -> int:
        return sum(s.bytes_sent for s in self.parties.values())

    @property
    def rounds(self) -> int:
        return max((len(s.rounds_sent) for s in self.parties.values()), default=0)

    @property
    def peer_errors(self) -> int:
        return sum(len(s.peer_errors) for s in self.parties.values())

    def per_role(self) -> dict[str, dict[str, float]]:
        """Totals grouped by role class name (count, messages, bytes, max rounds, max wall)."""
        out: dict[str, dict[str, float]] = {}
        for s in self.parties.values():
            r = out.setdefault(
                s.role,
                {
                    "count": 0,
                    "messages_sent": 0,
                    "messages_received": 0,
                    "bytes_sent": 0,
                    "bytes_received": 0,
                    "rounds": 0,
                    "max_wall_s": 0.0,
                },
            )
            r["count"] += 1
            r["messages_sent"] += s.messages_sent
            r["messages_received"] += s.messages_received
            r["bytes_sent"] += s.bytes_sent
            r["bytes_received"] += s.bytes_received
            r["rounds"] = max(r["rounds"], len(s.rounds_sent))
            r["max_wall_s"] = max(r["max_wall_s"], s.wall_s)
        return out

    def to_json(self, *, per_party: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            "transport": self.transport,
            "parties": len(self.parties),
            "messages": self.messages,
            "bytes": self.bytes,
            "rounds": self.rounds,
            "wall_s": self.wall_s,
            "peer_errors": self.peer_errors,
            "per_role": self.per_role(),
            **self.extra,
        }
        if per_party:
            d["per_party"] = [self.parties[p].to_json() for p in sorted(self.parties)]
        return d
