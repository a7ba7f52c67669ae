"""A synchronous driver for sans-I/O roles, with no transport at all.

Used by unit tests and by teaching traces: a dictionary of roles and a queue
of in-flight messages.  It can *drop*, *duplicate* and *reorder* messages
(seeded), and can round-trip every message through a :class:`Codec` so that
tests exercise the wire encoding too.  Per-link FIFO order is kept unless
``reorder_links`` is set, matching what real transports guarantee.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpc_rr.errors import PeerError, UsageError
from mpc_rr.messages import Codec, Message
from mpc_rr.roles import Role, Send

__all__ = ["HarnessResult", "TraceEntry", "run_roles"]


@dataclass(frozen=True, slots=True)
class TraceEntry:
    src: int
    dst: int
    msg: Message
    delivered: bool


@dataclass
class HarnessResult:
    roles: Mapping[int, Role]
    trace: list[TraceEntry] = field(default_factory=list)
    peer_errors: list[PeerError] = field(default_factory=list)

    def results(self) -> dict[int, Any]:
        return {pid: r.result for pid, r in self.roles.items()}

    @property
    def messages(self) -> int:
        return sum(1 for t in self.trace if t.delivered)


def run_roles(
    roles: Mapping[int, Role],
    *,
    rng: np.random.Generator | None = None,
    drop: float | Callable[[int, int, Message], bool] = 0.0,
    duplicate: float = 0.0,
    shuffle: bool = False,
    reorder_links: bool = False,
    codec: Codec | None = None,
    crashed: Callable[[int, int, Message], bool] | None = None,
    max_steps: int = 10_000_000,
    timeouts: int = 1,
) -> HarnessResult:
    """Run ``roles`` to completion and return them with the delivery trace.

    Parameters
    ----------
    drop:
        Probability of losing each message, or a predicate ``(src, dst, msg)``.
    duplicate:
        Probability of delivering a message twice.
    shuffle:
        Deliver the next message from a random *link* (per-link FIFO kept)
        instead of global FIFO.
    reorder_links:
        Also reorder messages within a link (stronger than real transports).
    codec:
        If given, every message is encoded and decoded on the way.
    crashed:
        Predicate ``(party, step_index, msg)`` telling that ``party`` is gone
        when it would handle ``msg``: it receives and sends nothing from then on.
    timeouts:
        When the queue runs dry and some roles are not done, the pending role
        with the lowest id gets ``on_timeout`` (then delivery resumes); each
        role gets at most this many timeouts.
    """
    if rng is None:
        rng = np.random.default_rng(0)
    if (shuffle or reorder_links or duplicate or (not callable(drop) and drop)) and rng is None:
        raise UsageError("run_roles: an rng is needed for randomized delivery")
    out = HarnessResult(roles=roles)
    links: dict[tuple[int, int], deque[Message]] = {}
    order: deque[tuple[int, int]] = deque()  # global FIFO of link keys (one per queued message)
    dead: set[int] = set()
    timeouts_used: dict[int, int] = dict.fromkeys(roles, 0)

    def enqueue(src: int, sends: list[Send]) -> None:
        for s in sends:
            if s.dst not in roles:
                raise UsageError(f"run_roles: party {src} sent to unknown party {s.dst}")
            lost = drop(src, s.dst, s.msg) if callable(drop) else rng.random() < drop
            msg = s.msg
            if codec is not None:
                msg = codec.decode(codec.encode(msg), sender=src)
            out.trace.append(TraceEntry(src, s.dst, msg, not lost))
            if lost:
                continue
            copies = 2 if duplicate and rng.random() < duplicate else 1
            for _ in range(copies):
                links.setdefault((src, s.dst), deque()).append(msg)
                order.append((src, s.dst))

    for pid, role in roles.items():
        enqueue(pid, role.start())

    steps = 0
    while True:
        while order:
            steps += 1
            if steps > max_steps:
                raise RuntimeError("run_roles: max_steps exceeded (livelock?)")
            if shuffle:
                i = int(rng.integers(len(order)))
                order.rotate(-i)
                key = order.popleft()
                order.rotate(i)
            else:
                key = order.popleft()
            q = links[key]
            if reorder_links and len(q) > 1:
                j = int(rng.integers(len(q)))
                q.rotate(-j)
                msg = q.popleft()
                q.rotate(j)
            else:
                msg = q.popleft()
            src, dst = key
            if dst in dead:
                continue
            if crashed is not None and crashed(dst, steps, msg):
                dead.add(dst)
                continue
            role = roles[dst]
            if role.done:
                continue
            try:
                enqueue(dst, role.receive(src, msg))
            except PeerError as exc:
                out.peer_errors.append(exc)
        pending = [
            pid
            for pid, r in roles.items()
            if not r.done and pid not in dead and timeouts_used[pid] < timeouts
        ]
        if not pending:
            break
        # one deadline at a time, lowest id first (the coordinator's deadline is the
        # shortest): its reaction may unblock the others before their own deadlines
        pid = min(pending)
        timeouts_used[pid] += 1
        enqueue(pid, roles[pid].on_timeout())
    return out
