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
CPU.  For the same reason a party's costs, deadline and phase are a row of
flat columns (:class:`~mpc_rr.core.StatsColumns`, ``array`` s, a
``bytearray``), not a :class:`~mpc_rr.core.PartyStats` (~1 KB) and three
dict entries: the final report carries a :class:`~mpc_rr.core.StatsTable`.  The virtual clock is a number here: it moves only when the parent
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
from array import array
from collections.abc import Sequence

import msgspec

from mpc_rr.core import COORDINATOR, Codec, Message, PeerError, Send, Transcript, UsageError
from mpc_rr.core._errors import ErrorLog
from mpc_rr.core._messages import DEFAULT_MAX_FRAME
from mpc_rr.core._parts import PartTally
from mpc_rr.core._stats_table import StatsColumns
from parties.party import MAX_LABELS, codec_for
from parties.process_stats import peak_rss_bytes, rss_bytes
from parties.runner import timeout_for
from parties.shard_engine import ShardFinal, ShardSpec, StepReport, adopt_pki, role_outcomes
from transports.errors import UnknownDestination
from transports.shards import decode_batch_checked, encode_batch
from transports.tap import PAYLOAD_TAP, Tap

__all__ = ["DirectShard"]

_ENCODE = msgspec.msgpack.Encoder().encode


_INTERNAL = -1
"""The source of a coordinator part's tally (:mod:`mpc_rr.core._parts`): party 0's own process,
not a party: not counted as a message, and standing for the payloads it counts."""

_BULK = 64  # sends of one object to at least this many parties take the broadcast path

_LIVE, _CLOSED, _ENDING = 1, 2, 3
"""A party's phase (``DirectShard.phase``; 0: not started): started and not done; done before
the current superstep (payloads to it are dropped and counted); done in it (discarded)."""


class DirectShard:
    """A shard's parties as roles called directly (see module docstring).

    Party ``pids[i]`` is row ``i`` of every per-party column (``row[pid] == i``).
    """

    def __init__(self, spec: ShardSpec) -> None:
        import numpy as np

        self.spec = spec
        self.rss_before = rss_bytes()
        self.startup_cpu_s = c0 = time.process_time()
        t0 = time.perf_counter()
        self._progress: dict[str, tuple[int, int]] = {}
        adopt_pki(spec)
        roles = spec.plan.build(self._report_progress)
        # the stateless checks of messages to parties elsewhere, run here where they are sent
        # (a co-worker of the receiving party: RolePlan.prechecks)
        self.prechecks = spec.plan.prechecks()
        owner = np.frombuffer(spec.owner, "<i4")
        self.owner: list[int] = owner.tolist()
        self.shards = int(owner.max(initial=-1)) + 1
        self.tap = Tap(keep_data=spec.tap_keep_data) if spec.tap_keep_data is not None else None
        if self.tap is not None:
            self.tap.attach(PAYLOAD_TAP)
        self.trace = Transcript("parties (what each party sent)") if spec.transcript else None
        self.roles = roles
        self.pids = sorted(roles)
        n = len(self.pids)
        self.row = array("q", (-1).to_bytes(8, "little", signed=True) * len(self.owner))
        self.role_rows = [roles[p] for p in self.pids]
        self.stats = StatsColumns(self.pids)
        self.timeout = array("d", bytes(8 * n))
        self.deadline = array("d", bytes(8 * n))
        self.codecs: list[Codec] = []
        for i, pid in enumerate(self.pids):
            role = roles[pid]
            if role.party_id != pid:
                raise UsageError(f"plan built roles[{pid}] with party_id {role.party_id}")
            if not 0 <= pid < len(self.owner) or self.owner[pid] != spec.shard:
                raise UsageError(f"DirectShard: party {pid} does not belong to shard {spec.shard}")
            step = timeout_for(spec.step_timeout, pid)
            if step is not None and not step > 0:
                raise UsageError(f"Party: step_timeout must be > 0 or None, got {step!r}")
            if not role.message_types:
                raise UsageError(f"Party: role {type(role).__name__} declares no message_types")
            self.row[pid] = i
            self.codecs.append(codec_for(tuple(role.message_types), DEFAULT_MAX_FRAME))
            self.stats.role[i] = self.stats.role_index(type(role).__name__)
            self.timeout[i] = math.inf if step is None else float(step)
        self.now = 0.0
        self.phase = bytearray(n)
        self.dropped = 0
        self.unfinished = n
        self._started = False
        self._t0 = 0.0
        self._outboxes: list[list[tuple[int, int, bytes]]] = [[] for _ in range(self.shards)]
        self._checked: list[list[int]] = [[] for _ in range(self.shards)]  # prechecked outbox items
        self._local: list[tuple[int, int, bytes]] = []
        self._local_checked: frozenset[int] = frozenset()
        self._frames: dict[int, bytes] = {}
        # party 0's per-party work for this shard's parties, if split (mpc_rr.core._parts)
        self.part = spec.plan.coordinator_part(self.pids) if spec.split and self.owner[0] >= 0 else None
        self.build_s = time.perf_counter() - t0
        self.build_cpu_s = time.process_time() - c0

    def _report_progress(self, phase: str, done: int, total: int) -> None:
        self._progress[phase] = (done, total)

    def _send(self, i: int, sends: list[Send]) -> None:
        if not sends:
            return
        pid, st, owner, outboxes = self.pids[i], self.stats, self.owner, self._outboxes
        trace, tap, now, part, prechecks = self.trace, self.tap, self.now, self.part, self.prechecks
        if len(sends) >= _BULK and trace is None and tap is None and self._broadcast(i, sends):
            return  # (a broadcast is not prechecked: its receivers check it themselves)
        last: Message | None = None
        data, size = b"", 0
        for s in sends:
            msg, dst = s.msg, s.dst
            if msg is not last:  # a broadcast of one object is encoded once
                data = _ENCODE(msg)
                size = len(data)
                last = msg
                st.rounds_sent[i] = st.add_label(st.rounds_sent[i], (msg.run, msg.step))
            if trace is not None:
                trace.record(now, pid, dst, data, run=msg.run, step=msg.step)
            st.messages_sent[i] += 1
            st.bytes_sent[i] += size
            shard = owner[dst] if 0 <= dst < len(owner) else -1
            if shard < 0:
                raise UnknownDestination(
                    f"party {pid}: unknown destination {dst!r} (network has "
                    f"{sum(1 for s in owner if s >= 0)} parties)"
                )
            if tap is not None:
                tap.record(now, pid, dst, data)
            if dst == COORDINATOR and part is not None and part.takes(msg):
                part.accept(pid, data)  # party 0's work, done here: see _deliver_tally
                continue
            box = outboxes[shard]
            check = prechecks.get(dst) if prechecks else None
            if check is not None and check(pid, msg):
                self._checked[shard].append(len(box))
            box.append((pid, dst, data))

    def _broadcast(self, i: int, sends: list[Send]) -> bool:
        """One object to many parties (the coordinator's clustering to 10^6 parties): counted
        at once, routed in one tight loop.  ``False`` (nothing done) if the sends differ."""
        msg = sends[0].msg
        if any(s.msg is not msg for s in sends) or (self.part is not None and self.part.takes(msg)):
            return False
        pid, st, owner, outboxes = self.pids[i], self.stats, self.owner, self._outboxes
        data = _ENCODE(msg)
        top = len(owner)
        for s in sends:
            dst = s.dst
            shard = owner[dst] if 0 <= dst < top else -1
            if shard < 0:
                raise UnknownDestination(
                    f"party {pid}: unknown destination {dst!r} (network has "
                    f"{sum(1 for s in owner if s >= 0)} parties)"
                )
            outboxes[shard].append((pid, dst, data))
        st.rounds_sent[i] = st.add_label(st.rounds_sent[i], (msg.run, msg.step))
        st.messages_sent[i] += len(sends)
        st.bytes_sent[i] += len(sends) * len(data)
        return True

    def _settle(self, i: int) -> None:
        """After a role acted: a finished party leaves the live set."""
        role = self.role_rows[i]
        if role.done:
            self.phase[i] = _ENDING
            self.unfinished -= 1
            self.stats.wall_s[i] = time.perf_counter() - self._t0
            if role.error is not None:
                self.stats.errors.setdefault(self.pids[i], role.error)

    def _deliver(self, items: Sequence[tuple[int, int, bytes]], checked: frozenset[int] = frozenset()) -> None:
        roles, st, codecs, phase, row = self.role_rows, self.stats, self.codecs, self.phase, self.row
        deadline, timeout, now, rows = self.deadline, self.timeout, self.now, len(row)
        rr, mr, br = st.rounds_received, st.messages_received, st.bytes_received
        for k, (src, dst, data) in enumerate(items):
            i = row[dst] if 0 <= dst < rows else -1
            if i < 0:
                raise UsageError(
                    f"ShardNetwork: payload for party {dst}, not on shard {self.spec.shard}"
                )
            if src == _INTERNAL:
                self._deliver_tally(i, data)
                continue
            if phase[i] != _LIVE:
                if phase[i] == _CLOSED:
                    self.dropped += 1
                continue  # it finished in this superstep: its buffer is discarded
            mr[i] += 1
            br[i] += len(data)
            try:
                msg = codecs[i].decode(data, sender=src)
                sends = roles[i].receive_prechecked(src, msg) if k in checked else roles[i].receive(src, msg)
            except PeerError as exc:  # DecodeError included: record, name the peer, go on
                if exc.peer is None:
                    exc.peer = src
                log = st.peer_errors.get(i)
                if log is None:
                    log = st.peer_errors[i] = ErrorLog()
                log.append(exc)
                continue
            if st.label_count(rr[i]) < MAX_LABELS:
                rr[i] = st.add_label(rr[i], (msg.run, msg.step))
            deadline[i] = now + timeout[i]
            self._send(i, sends)
            self._settle(i)

    def _deliver_tally(self, i: int, data: bytes) -> None:
        """A coordinator part's tally to party 0 (row ``i``): counted as the payloads it stands
        for (so costs equal an unsplit run's), the refusals it brings recorded naming their
        parties, the deadline restarted as by an accepted message."""
        st, role = self.stats, self.role_rows[i]
        msg = self.codecs[i].decode(data, sender=COORDINATOR)
        if not isinstance(msg, PartTally) or self.pids[i] != COORDINATOR:
            raise UsageError(f"DirectShard: an internal {type(msg).__name__} for party {self.pids[i]}")
        if self.phase[i] != _LIVE:
            if self.phase[i] == _CLOSED:
                self.dropped += msg.messages
            return
        st.messages_received[i] += msg.messages
        st.bytes_received[i] += msg.bytes
        for run, stp in msg.labels:
            if st.label_count(st.rounds_received[i]) < MAX_LABELS:
                st.rounds_received[i] = st.add_label(st.rounds_received[i], (run, stp))
        errors: list[PeerError] = []
        sends: list[Send] = []
        try:
            sends = role.receive(COORDINATOR, msg)
            self.deadline[i] = self.now + self.timeout[i]
        except PeerError as exc:  # a malformed tally: refused, naming party 0's part
            if exc.peer is None:
                exc.peer = COORDINATOR
            errors.append(exc)
        errors.extend(role.refused())
        if errors:
            log = st.peer_errors.get(i)
            if log is None:
                log = st.peer_errors[i] = ErrorLog()
            for e in errors:
                log.append(e)
        self._send(i, sends)
        self._settle(i)

    def step(self, frames: Sequence[bytes], advance_to: float | None) -> StepReport:
        """One superstep: move the clock, deliver, let passed deadlines fire, collect outboxes."""
        import numpy as np

        c0 = time.process_time()
        first = not self._started
        if advance_to is not None and advance_to > self.now:
            self.now = advance_to
        if first:  # start every party (role.start()), in id order
            self._started = True
            self._t0 = time.perf_counter()
            for i, role in enumerate(self.role_rows):
                self.deadline[i] = self.now + self.timeout[i]
                self.phase[i] = _LIVE
                self._send(i, role.start())
                self._settle(i)
        else:  # who finished in the last superstep is closed now
            self.phase = self.phase.replace(bytes([_ENDING]), bytes([_CLOSED]))
        local, self._local = self._local, []
        for f in frames:
            if f:
                self._deliver(*decode_batch_checked(f))
        self._deliver(local, self._local_checked)
        now = self.now
        due = (np.frombuffer(self.phase, np.uint8) == _LIVE) & (
            np.frombuffer(self.deadline, np.float64) <= now
        )
        for i in np.flatnonzero(due).tolist():  # rows are in id order
            if self.phase[i] != _LIVE:
                continue
            self.stats.deadlines[i] += 1
            self.deadline[i] = now + self.timeout[i]
            self._send(i, self.role_rows[i].on_timeout())
            self._settle(i)
        if self.part is not None:  # this superstep's payloads for party 0, summed up
            for tally in self.part.flush():
                self._outboxes[self.owner[COORDINATOR]].append((_INTERNAL, COORDINATOR, _ENCODE(tally)))
        out, self._outboxes = self._outboxes, [[] for _ in range(self.shards)]
        chk, self._checked = self._checked, [[] for _ in range(self.shards)]
        me = self.spec.shard
        self._local, self._local_checked = out[me], frozenset(chk[me])
        self._frames = {s: encode_batch(items, chk[s]) for s, items in enumerate(out) if items and s != me}
        if first:
            gc.freeze()  # the parties' state lives until the run ends (see ShardEngine.step)
        progress = [(k, d, t) for k, (d, t) in self._progress.items()]
        self._progress = {}
        live = np.frombuffer(self.phase, np.uint8) == _LIVE
        nxt = float(np.frombuffer(self.deadline, np.float64)[live].min()) if live.any() else math.inf
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
            if role.error is not None:
                self.stats.errors.setdefault(pid, role.error)
        return ShardFinal(
            self.spec.shard, outcomes, results, self.stats.table(),
            self.trace.events if self.trace is not None else None,
            self.tap.events if self.tap is not None else None, self.dropped, self.build_s,
            self.rss_before, peak_rss_bytes() or 0, rss_bytes(), self.build_cpu_s, self.startup_cpu_s,
        )  # fmt: skip
