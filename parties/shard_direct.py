"""One shard's parties driven by direct calls: no task, channel or endpoint per party.

:class:`DirectShard` runs the same supersteps as
:class:`~parties.shard_engine.ShardEngine` (same :class:`~parties.shard_engine.ShardSpec`,
same :class:`~parties.shard_engine.StepReport` and
:class:`~parties.shard_engine.ShardFinal`), but holds each party as its
role, its :class:`~mpc_rr.core.PartyStats` and its step deadline, and feeds
every delivered payload straight to ``role.receive``.  Roles are sans-I/O
state machines, so inside a superstep there is nothing to schedule: a party
acts only on a payload or on its deadline.  What the
:class:`~parties.party.Party` loop does per payload is done here the same
way (strict decode, a :class:`~mpc_rr.core.PeerError` recorded naming the
peer and the run going on, the deadline restarted by an accepted message,
one encoding per distinct message object, the labels counted, the
transcript and the tap recorded at the virtual time of the send), so the
per-link payloads, the results and the costs equal those of the task
engine and of one process (``tests/parties/test_shards.py``).

Why: a trio task, its memory channel and its endpoint cost about 6 KB and
two task switches per payload for each party; at 10^6 parties (the RR
pipeline: a few payloads per party) that was most of a worker's memory and
CPU.  The virtual clock is a number here: it moves only when the parent
advances it (global quiescence), and the parties whose deadline passed then
call ``on_timeout`` in id order.

Payloads delivered to a party that finished in an earlier superstep are
dropped and counted; those that arrive in the superstep in which it
finishes are discarded uncounted, as the task engine's closed channel
discards its buffer.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Sequence

import msgspec

from mpc_rr.core import (
    DEFAULT_MAX_FRAME,
    Codec,
    Message,
    PartyStats,
    PeerError,
    Send,
    Transcript,
    UsageError,
)
from parties.party import MAX_LABELS, codec_for
from parties.process_stats import peak_rss_bytes, rss_bytes
from parties.runner import timeout_for
from parties.shard_engine import ShardFinal, ShardSpec, StepReport, adopt_pki, role_outcomes
from transports.errors import UnknownDestination
from transports.shards import decode_batch, encode_batch
from transports.tap import PAYLOAD_TAP, Tap

__all__ = ["DirectShard"]

_ENCODE = msgspec.msgpack.Encoder().encode


class DirectShard:
    """A shard's parties as roles called directly (see module docstring)."""

    def __init__(self, spec: ShardSpec) -> None:
        import numpy as np

        self.spec = spec
        self.rss_before = rss_bytes()
        self.startup_cpu_s = c0 = time.process_time()
        t0 = time.perf_counter()
        self._progress: dict[str, tuple[int, int]] = {}
        adopt_pki(spec)
        roles = spec.plan.build(self._report_progress)
        self.owner: list[int] = np.frombuffer(spec.owner, "<i4").tolist()
        self.shards = max(self.owner, default=-1) + 1
        self.tap = Tap(keep_data=spec.tap_keep_data) if spec.tap_keep_data is not None else None
        if self.tap is not None:
            self.tap.attach(PAYLOAD_TAP)
        self.trace = Transcript("parties (what each party sent)") if spec.transcript else None
        self.roles = roles
        self.stats: dict[int, PartyStats] = {}
        self.timeout: dict[int, float] = {}
        self.deadline: dict[int, float] = {}
        self.codecs: dict[int, Codec] = {}
        for pid, role in roles.items():
            if role.party_id != pid:
                raise UsageError(f"plan built roles[{pid}] with party_id {role.party_id}")
            if not 0 <= pid < len(self.owner) or self.owner[pid] != spec.shard:
                raise UsageError(f"DirectShard: party {pid} does not belong to shard {spec.shard}")
            step = timeout_for(spec.step_timeout, pid)
            if step is not None and not step > 0:
                raise UsageError(f"Party: step_timeout must be > 0 or None, got {step!r}")
            if not role.message_types:
                raise UsageError(f"Party: role {type(role).__name__} declares no message_types")
            self.codecs[pid] = codec_for(tuple(role.message_types), DEFAULT_MAX_FRAME)
            self.stats[pid] = PartyStats(pid, type(role).__name__)
            self.timeout[pid] = math.inf if step is None else float(step)
        self.now = 0.0
        self.live: set[int] = set()  # started and not done
        self.closed: set[int] = set()  # done before the current superstep
        self.dropped = 0
        self.unfinished = len(roles)
        self._started = False
        self._t0 = 0.0
        self._outboxes: list[list[tuple[int, int, bytes]]] = [[] for _ in range(self.shards)]
        self._local: list[tuple[int, int, bytes]] = []
        self._frames: dict[int, bytes] = {}
        self.build_s = time.perf_counter() - t0
        self.build_cpu_s = time.process_time() - c0

    def _report_progress(self, phase: str, done: int, total: int) -> None:
        self._progress[phase] = (done, total)

    def _send(self, pid: int, sends: list[Send]) -> None:
        if not sends:
            return
        st, owner, outboxes = self.stats[pid], self.owner, self._outboxes
        trace, tap, now = self.trace, self.tap, self.now
        rounds = st.rounds_sent
        last: Message | None = None
        data, size = b"", 0
        for s in sends:
            msg, dst = s.msg, s.dst
            if msg is not last:  # a broadcast of one object is encoded once
                data = _ENCODE(msg)
                size = len(data)
                last = msg
                rounds.add((msg.run, msg.step))
            if trace is not None:
                trace.record(now, pid, dst, data, run=msg.run, step=msg.step)
            st.messages_sent += 1
            st.bytes_sent += size
            shard = owner[dst] if 0 <= dst < len(owner) else -1
            if shard < 0:
                raise UnknownDestination(
                    f"party {pid}: unknown destination {dst!r} (network has "
                    f"{sum(1 for s in owner if s >= 0)} parties)"
                )
            if tap is not None:
                tap.record(now, pid, dst, data)
            outboxes[shard].append((pid, dst, data))

    def _settle(self, pid: int) -> None:
        """After a role acted: a finished party leaves the live set."""
        if self.roles[pid].done:
            self.live.discard(pid)
            self.unfinished -= 1
            st = self.stats[pid]
            st.wall_s = time.perf_counter() - self._t0
            role = self.roles[pid]
            if st.error is None and role.error is not None:
                st.error = role.error

    def _deliver(self, items: Sequence[tuple[int, int, bytes]]) -> None:
        roles, stats, codecs, live, closed = (
            self.roles,
            self.stats,
            self.codecs,
            self.live,
            self.closed,
        )
        deadline, timeout, now = self.deadline, self.timeout, self.now
        for src, dst, data in items:
            if dst not in live:
                if dst in closed:
                    self.dropped += 1
                elif dst not in roles:
                    raise UsageError(
                        f"ShardNetwork: payload for party {dst}, not on shard {self.spec.shard}"
                    )
                continue  # it finished in this superstep: its buffer is discarded
            st = stats[dst]
            st.messages_received += 1
            st.bytes_received += len(data)
            try:
                msg = codecs[dst].decode(data, sender=src)
                sends = roles[dst].receive(src, msg)
            except PeerError as exc:  # DecodeError included: record, name the peer, go on
                if exc.peer is None:
                    exc.peer = src
                st.peer_errors.append(exc)
                continue
            rounds = st.rounds_received
            if len(rounds) < MAX_LABELS:
                rounds.add((msg.run, msg.step))
            deadline[dst] = now + timeout[dst]
            self._send(dst, sends)
            self._settle(dst)

    def step(self, frames: Sequence[bytes], advance_to: float | None) -> StepReport:
        """One superstep: move the clock, deliver, let passed deadlines fire, collect outboxes."""
        c0 = time.process_time()
        first = not self._started
        self.closed = set(self.roles) - self.live if self._started else set()
        if advance_to is not None and advance_to > self.now:
            self.now = advance_to
        if first:  # start every party (role.start()), in id order
            self._started = True
            self._t0 = time.perf_counter()
            for pid in sorted(self.roles):
                self.deadline[pid] = self.now + self.timeout[pid]
                self.live.add(pid)
                self._send(pid, self.roles[pid].start())
                self._settle(pid)
        local, self._local = self._local, []
        for f in frames:
            if f:
                self._deliver(decode_batch(f))
        self._deliver(local)
        now = self.now
        for pid in sorted(p for p in self.live if self.deadline[p] <= now):
            if pid not in self.live:
                continue
            self.stats[pid].deadlines += 1
            self.deadline[pid] = now + self.timeout[pid]
            self._send(pid, self.roles[pid].on_timeout())
            self._settle(pid)
        out, self._outboxes = self._outboxes, [[] for _ in range(self.shards)]
        me = self.spec.shard
        self._local = out[me]
        self._frames = {s: encode_batch(items) for s, items in enumerate(out) if items and s != me}
        if first:
            gc.freeze()  # the parties' state lives until the run ends (see ShardEngine.step)
        progress = [(k, d, t) for k, (d, t) in self._progress.items()]
        self._progress = {}
        nxt = min((self.deadline[p] for p in self.live), default=math.inf)
        return StepReport(
            [len(items) for items in out], self.unfinished, nxt, progress, time.process_time() - c0
        )

    def take_frames(self) -> dict[int, bytes]:
        """The frames of the last superstep, by destination shard."""
        frames, self._frames = self._frames, {}
        return frames

    def final(self) -> ShardFinal:
        outcomes, results = role_outcomes(self.roles)
        for pid, role in self.roles.items():
            st = self.stats[pid]
            if st.error is None and role.error is not None:
                st.error = role.error
        return ShardFinal(
            self.spec.shard, outcomes, results, self.stats,
            self.trace.events if self.trace is not None else None,
            self.tap.events if self.tap is not None else None, self.dropped, self.build_s,
            self.rss_before, peak_rss_bytes() or 0, rss_bytes(), self.build_cpu_s, self.startup_cpu_s,
        )  # fmt: skip
