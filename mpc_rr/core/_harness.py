"""A synchronous runner for sans-I/O roles, with no transport at all.

Used by unit tests, teaching traces and fast simulations: a dictionary of
roles and a queue of in-flight messages.  Every message is encoded with the
strict codec built from the roles' message types (so byte counts are exactly
what a transport would carry) and, by default, decoded again on delivery (so
tests exercise the wire format).  The runner can *drop*, *duplicate* and
*reorder* messages and *crash* parties; all of that randomness comes from the
``rng`` the caller passes.  Per-link FIFO order is kept unless
``reorder_links`` is set, matching what real transports guarantee.

Deadlines: when no message is in flight and some roles are not done, the
pending role with the lowest id gets ``on_timeout()`` (the coordinator's
deadline is the shortest), then delivery resumes -- one deadline at a time,
until every role is done or crashed.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Mapping

import numpy as np

from mpc_rr.core._costs import CostReport, PartyStats
from mpc_rr.core._errors import PeerError, ProtocolAbort, UsageError
from mpc_rr.core._messages import Codec, Message
from mpc_rr.core._roles import Role, Send
from mpc_rr.core._runs import RolePlan, RunResult, roles_of
from mpc_rr.core._transcript import Transcript

__all__ = ["HarnessRunner", "codec_for_roles", "run_roles"]

Predicate = Callable[[int, int, Message], bool]


def codec_for_roles(roles: Mapping[int, Role]) -> Codec:
    """One strict codec for every message type any of ``roles`` receives."""
    return Codec(dict.fromkeys(t for r in roles.values() for t in r.message_types))


class HarnessRunner:
    """Run roles synchronously (see module docstring).

    Parameters
    ----------
    rng:
        Seeded generator for randomized delivery; required when ``drop`` is a
        probability > 0, ``duplicate`` > 0, ``shuffle`` or ``reorder_links``.
    drop:
        Probability of losing each message, or a predicate ``(src, dst, msg)``.
    duplicate:
        Probability of delivering a message twice.
    shuffle:
        Deliver the next message from a random *link* (per-link FIFO kept).
    reorder_links:
        Also reorder messages within a link (stronger than real transports).
    crashed:
        Predicate ``(party, step_index, msg)`` telling that ``party`` is gone
        when it would handle ``msg``: it receives and sends nothing from then on.
    roundtrip:
        Decode every delivered message from its encoded bytes (default) or
        hand the sender's object over (faster, for large simulations).
    transcript:
        Record every message (bytes as encoded, run/step label, delivery fate).
    max_steps:
        Deliveries plus deadlines before the run is declared a livelock.
    """

    name = "harness"

    def __init__(
        self,
        *,
        rng: np.random.Generator | None = None,
        drop: float | Predicate = 0.0,
        duplicate: float = 0.0,
        shuffle: bool = False,
        reorder_links: bool = False,
        crashed: Callable[[int, int, Message], bool] | None = None,
        roundtrip: bool = True,
        transcript: bool = False,
        max_steps: int = 50_000_000,
    ) -> None:
        randomized = shuffle or reorder_links or duplicate > 0 or (not callable(drop) and drop > 0)
        if randomized and rng is None:
            raise UsageError("HarnessRunner: randomized delivery needs a seeded rng")
        if not callable(drop) and not 0.0 <= drop <= 1.0:
            raise UsageError(f"HarnessRunner: drop must be a probability, got {drop!r}")
        if not 0.0 <= duplicate <= 1.0:
            raise UsageError(f"HarnessRunner: duplicate must be a probability, got {duplicate!r}")
        self.rng = rng
        self.drop = drop
        self.duplicate = duplicate
        self.shuffle = shuffle
        self.reorder_links = reorder_links
        self.crashed = crashed
        self.roundtrip = roundtrip
        self.transcript = transcript
        self.max_steps = int(max_steps)

    def __call__(self, roles: Mapping[int, Role] | RolePlan) -> RunResult:
        return _Run(self, roles_of(roles)).run()


def run_roles(roles: Mapping[int, Role], **options: object) -> RunResult:
    """``HarnessRunner(**options)(roles)``."""
    return HarnessRunner(**options)(roles)  # type: ignore[arg-type]


class _Run:
    """The state of one harness run."""

    def __init__(self, opts: HarnessRunner, roles: Mapping[int, Role]) -> None:
        for pid, role in roles.items():
            if role.party_id != pid:
                raise UsageError(f"run_roles: roles[{pid}] has party_id {role.party_id}")
        self.o = opts
        self.roles = roles
        self.codec = codec_for_roles(roles)
        self.stats = {pid: PartyStats(pid, type(r).__name__) for pid, r in roles.items()}
        self.links: dict[tuple[int, int], deque[tuple[Message, bytes]]] = {}
        self.order: deque[tuple[int, int]] = deque()  # one link key per queued message
        self.dead: set[int] = set()
        self.steps = 0
        self.trace = Transcript("harness (every message as encoded)") if opts.transcript else None

    def enqueue(self, src: int, sends: list[Send]) -> None:
        o, rng = self.o, self.o.rng
        last: Message | None = None
        data = b""
        for s in sends:
            if s.dst not in self.roles:
                raise UsageError(f"run_roles: party {src} sent to unknown party {s.dst}")
            if s.msg is not last:  # a broadcast of one object is encoded once
                data, last = self.codec.encode(s.msg), s.msg
            self.stats[src].count_sent(len(data), s.msg.run, s.msg.step)
            if callable(o.drop):
                lost = o.drop(src, s.dst, s.msg)
            else:
                lost = o.drop > 0 and rng is not None and rng.random() < o.drop
            if self.trace is not None:
                self.trace.record(
                    self.steps, src, s.dst, data, run=s.msg.run, step=s.msg.step, delivered=not lost
                )
            if lost:
                continue
            copies = 2 if o.duplicate and rng is not None and rng.random() < o.duplicate else 1
            for _ in range(copies):
                self.links.setdefault((src, s.dst), deque()).append((s.msg, data))
                self.order.append((src, s.dst))

    def next_message(self) -> tuple[int, int, Message, bytes]:
        o, rng = self.o, self.o.rng
        if o.shuffle and rng is not None:
            i = int(rng.integers(len(self.order)))
            self.order.rotate(-i)
            key = self.order.popleft()
            self.order.rotate(i)
        else:
            key = self.order.popleft()
        q = self.links[key]
        if o.reorder_links and rng is not None and len(q) > 1:
            j = int(rng.integers(len(q)))
            q.rotate(-j)
            msg, data = q.popleft()
            q.rotate(j)
        else:
            msg, data = q.popleft()
        return key[0], key[1], msg, data

    def deliver(self, src: int, dst: int, msg: Message, data: bytes) -> None:
        if dst in self.dead:
            return
        if self.o.crashed is not None and self.o.crashed(dst, self.steps, msg):
            self.dead.add(dst)
            return
        role = self.roles[dst]
        if role.done:
            return
        st = self.stats[dst]
        st.count_received(len(data))
        try:
            if self.o.roundtrip:
                msg = self.codec.decode(data, sender=src)
            st.rounds_received.add((msg.run, msg.step))
            self.enqueue(dst, role.receive(src, msg))
        except PeerError as exc:
            if exc.peer is None:
                exc.peer = src
            st.peer_errors.append(exc)

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.o.max_steps:
            raise RuntimeError(f"run_roles: {self.o.max_steps} steps exceeded (livelock?)")

    def run(self) -> RunResult:
        t0 = time.perf_counter()
        for pid, role in self.roles.items():
            self.enqueue(pid, role.start())
        while True:
            while self.order:
                self.tick()
                self.deliver(*self.next_message())
            pending = [p for p, r in self.roles.items() if not r.done and p not in self.dead]
            if not pending:
                break
            self.tick()
            pid = min(pending)
            self.stats[pid].deadlines += 1
            self.enqueue(pid, self.roles[pid].on_timeout())
        wall = time.perf_counter() - t0
        errors: dict[int, ProtocolAbort] = {}
        for pid, role in self.roles.items():
            err = role.error
            if err is not None:
                self.stats[pid].error = errors[pid] = err
        costs = CostReport(self.stats, wall, "harness")
        return RunResult(self.roles, costs, errors, self.trace)
