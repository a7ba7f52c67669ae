"""A fault schedule: what goes wrong in one simulated run, drawn from one integer seed.

A :class:`Schedule` lists faults, each naming the parties and messages it strikes by
logical position, never by time: the ``index``-th message on the link ``src -> dst``, the
``sends``-th message a party sends.  The same schedule therefore means the same faults to
every driver that runs it (:func:`~mpc_rr.simulation.run_schedule`, and the memory
transport in virtual time, ``parties.simulated``).  Delivery order is a separate seed
(``order``): among the messages in flight the driver picks the next link with it, keeping
each link's order (what TCP and the memory transport guarantee); every message is delivered
before any deadline passes, so a delay never outlasts its deadline.

Faults (the fields of each are positions the schedule drew from a fault-free run of the
same size):

* :class:`Crash` -- a party sends ``sends`` messages and then stops for good (``0``: before
  its first; mid-step: between two of one step's sends; at a step's end: after them);
* :class:`Drop` / :class:`Duplicate` -- one message lost / delivered twice;
* :class:`LateJoin` -- a party starts only once the others' traffic has settled, before
  any deadline (where the protocol waits for it, it must still be counted);
* :class:`Mutate` -- a message of a Byzantine party rewritten on the wire
  (:mod:`mpc_rr.simulation._wire`: a bit flipped in its bytes or in one field, cut short,
  replaced by an earlier message of the link, by one of another run or of another type,
  or sent to another recipient);
* :class:`Cheat` -- a Byzantine party 0 plays one of the cheating roles the adversary
  module registers for the protocol (:func:`~mpc_rr.adversary.attacks_for`'s
  ``cheaters``: SecAgg+'s equivocating aggregator), a coherent lie random rewrites
  rarely tell.

A crash, a drop, a late join or a Byzantine party makes the parties it touches *faulty*:
the only ones an abort may name.  A duplicate or a reordering excuses nobody.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.core import UsageError

__all__ = [
    "MUTATIONS",
    "Cheat",
    "Crash",
    "Drop",
    "Duplicate",
    "Fault",
    "LateJoin",
    "Mutate",
    "Schedule",
    "Traffic",
    "draw_schedule",
]

MUTATIONS = ("flip", "field-flip", "truncate", "replay", "other-run", "wrong-type", "misaddress")
"""What a Byzantine party does to one message (:mod:`mpc_rr.simulation._wire`)."""


@dataclass(frozen=True, order=True)
class Crash:
    """Party ``party`` sends ``sends`` messages, then stops (receives and sends nothing)."""

    party: int
    sends: int

    def touches(self) -> tuple[int, ...]:
        return (self.party,)

    def __str__(self) -> str:
        return f"crash party {self.party} after {self.sends} sends"


@dataclass(frozen=True, order=True)
class Drop:
    """The ``index``-th message (from 0) on link ``src -> dst`` is lost."""

    src: int
    dst: int
    index: int

    def touches(self) -> tuple[int, ...]:
        return (self.src, self.dst)

    def __str__(self) -> str:
        return f"drop message {self.index} on {self.src}->{self.dst}"


@dataclass(frozen=True, order=True)
class Duplicate:
    """The ``index``-th message on link ``src -> dst`` arrives twice."""

    src: int
    dst: int
    index: int

    def touches(self) -> tuple[int, ...]:
        return ()

    def __str__(self) -> str:
        return f"duplicate message {self.index} on {self.src}->{self.dst}"


@dataclass(frozen=True, order=True)
class LateJoin:
    """Party ``party`` starts once every other message in flight was delivered."""

    party: int

    def touches(self) -> tuple[int, ...]:
        return (self.party,)

    def __str__(self) -> str:
        return f"party {self.party} joins late"


@dataclass(frozen=True, order=True)
class Mutate:
    """Byzantine ``src`` rewrites its ``index``-th message to ``dst`` by ``kind`` (``param``
    picks the bit, the length, the field, the replayed message or the new recipient)."""

    src: int
    dst: int
    index: int
    kind: str
    param: int

    def touches(self) -> tuple[int, ...]:
        return (self.src,)

    def __str__(self) -> str:
        return f"party {self.src} mutates message {self.index} to {self.dst}: {self.kind} ({self.param})"


@dataclass(frozen=True, order=True)
class Cheat:
    """Byzantine ``party`` plays the registered cheating role ``strategy``."""

    party: int
    strategy: str

    def touches(self) -> tuple[int, ...]:
        return (self.party,)

    def __str__(self) -> str:
        return f"party {self.party} cheats: {self.strategy}"


Fault = Crash | Drop | Duplicate | LateJoin | Mutate | Cheat
_KINDS: Mapping[str, type[Any]] = {c.__name__.lower(): c for c in (Crash, Drop, Duplicate, LateJoin, Mutate, Cheat)}


@dataclass(frozen=True)
class Schedule:
    """One simulated run: the protocol, its size, who is Byzantine, the faults, the order seed.

    ``seed`` is the seed it was drawn from (``None`` once shrunk or written by hand);
    ``byzantine`` the parties whose messages :class:`Mutate` faults may rewrite.
    """

    protocol: str
    parties: int
    order: int
    byzantine: tuple[int, ...] = ()
    faults: tuple[Fault, ...] = ()
    seed: int | None = None
    broken: str | None = None

    def faulty(self) -> frozenset[int]:
        """The parties an abort may name: Byzantine, crashed, late, or at an end of a lost message."""
        out = set(self.byzantine)
        for f in self.faults:
            out.update(f.touches())
        return frozenset(out)

    def of(self, kind: type[Any]) -> tuple[Any, ...]:
        return tuple(f for f in self.faults if isinstance(f, kind))

    def without(self, drop: Sequence[int]) -> Schedule:
        """This schedule without the faults at positions ``drop`` (shrinking)."""
        gone = set(drop)
        faults = tuple(f for i, f in enumerate(self.faults) if i not in gone)
        mutators = {f.src for f in faults if isinstance(f, Mutate)} | {f.party for f in faults if isinstance(f, Cheat)}
        byz = tuple(b for b in self.byzantine if b in mutators)
        return dataclasses.replace(self, faults=faults, byzantine=byz, seed=None)

    def describe(self) -> str:
        """Readable, one fault per line."""
        head = f"{self.protocol} with {self.parties} data parties, delivery order {self.order}"
        if self.broken:
            head += f", broken variant {self.broken}"
        if self.seed is not None:
            head += f" (seed {self.seed})"
        lines = [head, f"  byzantine: {list(self.byzantine) or 'none'}"]
        lines += [f"  - {f}" for f in self.faults] or ["  - no faults"]
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        return {
            "protocol": self.protocol, "parties": self.parties, "order": self.order, "seed": self.seed,
            "broken": self.broken, "byzantine": list(self.byzantine),
            "faults": [{"fault": type(f).__name__.lower(), **dataclasses.asdict(f)} for f in self.faults],
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Schedule:
        faults = []
        for f in data["faults"]:
            kind = _KINDS.get(f.get("fault", ""))
            if kind is None:
                raise UsageError(f"schedule: unknown fault {f.get('fault')!r} (the faults: {', '.join(_KINDS)})")
            faults.append(kind(**{k: v for k, v in f.items() if k != "fault"}))
        return cls(str(data["protocol"]), int(data["parties"]), int(data["order"]),
                   tuple(int(b) for b in data["byzantine"]), tuple(faults),
                   data.get("seed"), data.get("broken"))  # fmt: skip

    def __str__(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True)


@dataclass(frozen=True)
class Traffic:
    """What a fault-free run of the same size sent: where faults can strike.

    ``sends``: party -> messages it sent; ``links``: ``(src, dst)`` -> messages on that link.
    """

    parties: tuple[int, ...]
    sends: Mapping[int, int]
    links: Mapping[tuple[int, int], int]


def draw_schedule(
    seed: int,
    protocol: str,
    traffic: Traffic,
    *,
    parties: int,
    byzantine: int = 1,
    max_faults: int = 3,
    broken: str | None = None,
    cheats: Sequence[str] = (),
) -> Schedule:
    """The schedule of ``seed``: a pure function of its arguments.

    ``traffic`` (a fault-free run's counts) bounds the positions; ``byzantine`` parties are
    drawn among every party of ``traffic`` -- party 0, when it takes part, in half of the
    schedules (the one adversary every protocol here must withstand) -- each with one or two
    lies (one rewrite told to a random subset of one round's recipients, maybe a second), or,
    for party 0 with ``cheats`` to play, one of those in half of its schedules; up to
    ``max_faults`` crashes, drops, duplicates and late joins.
    """
    if seed < 0:
        raise UsageError(f"seed must be >= 0, got {seed}")
    if not 0 <= byzantine <= len(traffic.parties):
        raise UsageError(f"byzantine must be in [0, {len(traffic.parties)}], got {byzantine}")
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0x5EED,)))
    ids = list(traffic.parties)
    links = sorted(traffic.links)
    faults: list[Fault] = []
    for _ in range(int(rng.integers(0, max_faults + 1))):
        what = int(rng.integers(4))
        if what == 0:
            p = ids[int(rng.integers(len(ids)))]
            faults.append(Crash(p, int(rng.integers(0, traffic.sends.get(p, 0) + 1))))
        elif what in (1, 2) and links:
            src, dst = links[int(rng.integers(len(links)))]
            index = int(rng.integers(traffic.links[(src, dst)]))
            faults.append((Drop if what == 1 else Duplicate)(src, dst, index))
        elif what == 3:
            faults.append(LateJoin(ids[int(rng.integers(len(ids)))]))
    chosen: list[int] = []
    if byzantine and 0 in ids and rng.random() < 0.5:
        chosen = [0]
    rest = [i for i in ids if i not in chosen]
    chosen = sorted(chosen + [int(b) for b in rng.choice(rest, size=byzantine - len(chosen), replace=False)])
    for b in chosen:
        if b == 0 and cheats and rng.random() < 0.5:
            faults.append(Cheat(0, str(cheats[int(rng.integers(len(cheats)))])))
            continue
        out = [link for link in links if link[0] == b]
        if not out:
            continue
        kind = MUTATIONS[int(rng.integers(len(MUTATIONS)))]
        param = int(rng.integers(2**31))
        # one lie, told to a random subset of the recipients of one round (equivocation)
        src_dst = out[int(rng.integers(len(out)))]
        index = int(rng.integers(traffic.links[src_dst]))
        recipients = [d for (s, d) in out if traffic.links[(s, d)] > index]
        told = [d for d in recipients if rng.random() < 0.5] or [src_dst[1]]
        faults += [Mutate(b, d, index, kind, param) for d in told]
        if rng.random() < 0.5:  # and a second, independent one (on another message)
            kind2 = MUTATIONS[int(rng.integers(len(MUTATIONS)))]
            s2, d2 = out[int(rng.integers(len(out)))]
            second = Mutate(b, d2, int(rng.integers(traffic.links[(s2, d2)])), kind2, int(rng.integers(2**31)))
            if not any(isinstance(f, Mutate) and (f.src, f.dst, f.index) == (b, d2, second.index) for f in faults):
                faults.append(second)
    return Schedule(protocol, parties, int(rng.integers(2**31)), tuple(chosen), tuple(faults), seed, broken)
