"""The Party actor: binds one sans-I/O role to one endpoint.

A party is a thin loop: receive ``(src, bytes)`` from
the endpoint, decode with a strict :class:`~mpc_rr.core.Codec` built from
``role.message_types``, feed ``role.receive``, encode and send whatever the
role returns, until ``role.done``.  It also

* calls ``role.on_timeout()`` whenever ``step_timeout`` seconds pass without
  the role accepting a message; the role decides what a deadline means (its
  transition table, or its ``patience``), the party never counts;
* records :class:`~mpc_rr.core.PeerError` s (decode errors included) naming
  the peer in a bounded :class:`~mpc_rr.core.ErrorLog` and keeps running;
* counts messages, bytes and rounds sent and received
  (:class:`~mpc_rr.core.PartyStats`; a round received is a label of a
  message the role *accepted*, at most :data:`MAX_LABELS` of them, so a
  peer's rejected messages cost no memory);
* optionally records what it sent in a :class:`~mpc_rr.core.Transcript`
  (with the run/step label it knows);
* with an ``error_budget`` (deployments, :mod:`transports.budgets`): a peer
  whose messages caused more errors here is cut off -- its later frames are
  dropped unread (counted in ``cut_dropped``), it is
  named in ``cut_off`` and the endpoint is asked to stop carrying its frames
  (``endpoint.refuse``);
* when every party the role waits for is gone for good (cut off here, or by
  the transport: ``endpoint.gone``), the step's deadline passes at once
  instead of being waited out (once per step without progress).

Only errors a peer can cause are caught: anything else is a bug and
propagates.  Per-message work is kept small (one decode, one encode per
distinct message object, one channel operation), because 32,561 parties
share one process in simulations.
"""

from __future__ import annotations

import math
import time
from functools import lru_cache

import msgspec
import trio

from mpc_rr.core import (
    Codec,
    DecodeError,
    Message,
    PartyStats,
    PeerError,
    ProtocolAbort,
    Role,
    Send,
    Transcript,
    UsageError,
)
from mpc_rr.core._errors import ErrorLog
from mpc_rr.core._messages import DEFAULT_MAX_FRAME
from transports.base import Endpoint
from transports.errors import EndpointClosed

__all__ = ["MAX_LABELS", "Party", "codec_for"]

MAX_LABELS = 4096
"""Most distinct ``(run, step)`` labels a party records in ``stats.rounds_received``."""

_ENCODER = msgspec.msgpack.Encoder()


@lru_cache(maxsize=256)
def codec_for(types: tuple[type[Message], ...], max_frame: int = DEFAULT_MAX_FRAME) -> Codec:
    """One shared (stateless) decoder per set of message types."""
    return Codec(types, max_frame=max_frame)


class Party:
    """Drive ``role`` over ``endpoint``.

    Parameters
    ----------
    role:
        The sans-I/O role; its ``party_id`` must equal ``endpoint.party_id``.
    endpoint:
        Any :class:`~transports.base.Endpoint`.  The party does not close it.
    step_timeout:
        Seconds without progress before ``role.on_timeout()``; ``None`` = never.
    transcript:
        A :class:`Transcript` to record every payload this party sends (or ``None``).
    max_frame:
        Largest accepted incoming frame (passed to the codec).
    error_budget:
        Peer errors one sender may cause here before it is cut off (module
        docstring); ``None`` = never.
    garbage_budget:
        Of those, frames that do not decode (:class:`~mpc_rr.core.DecodeError`);
        ``None`` = only ``error_budget`` applies.
    """

    def __init__(
        self,
        role: Role,
        endpoint: Endpoint,
        *,
        step_timeout: float | None = None,
        transcript: Transcript | None = None,
        max_frame: int = DEFAULT_MAX_FRAME,
        error_budget: int | None = None,
        garbage_budget: int | None = None,
    ) -> None:
        if role.party_id != endpoint.party_id:
            raise UsageError(
                f"Party: role.party_id {role.party_id} != endpoint.party_id {endpoint.party_id}"
            )
        if step_timeout is not None and not step_timeout > 0:
            raise UsageError(f"Party: step_timeout must be > 0 or None, got {step_timeout!r}")
        if not role.message_types:
            raise UsageError(f"Party: role {type(role).__name__} declares no message_types")
        for name, v in (("error_budget", error_budget), ("garbage_budget", garbage_budget)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise UsageError(f"Party: {name} must be None or an int >= 1, got {v!r}")
        self.role = role
        self.endpoint = endpoint
        self.step_timeout = step_timeout
        self.codec = codec_for(tuple(role.message_types), int(max_frame))
        self.stats = PartyStats(role.party_id, type(role).__name__)
        self.transcript = transcript
        self.connection_lost = False
        self.error_budget = error_budget
        self.garbage_budget = garbage_budget
        self._garbage: dict[int, int] = {}  # frames that did not decode, per sender
        #: senders cut off here for going over ``error_budget``, and why
        self.cut_off: dict[int, str] = {}
        #: frames dropped unread because their sender was cut off
        self.cut_dropped = 0

    @property
    def peer_errors(self) -> ErrorLog:
        """The bounded record of what peers did wrong (also in ``stats``)."""
        return self.stats.peer_errors

    def _over(self, src: int, exc: PeerError) -> str | None:
        """Why ``src`` is now over a budget with error ``exc`` (counted already), or ``None``."""
        if self.garbage_budget is not None and isinstance(exc, DecodeError):
            g = self._garbage[src] = self._garbage.get(src, 0) + 1
            if g > self.garbage_budget:
                return f"sent {g} frames that do not decode, over its budget of {self.garbage_budget} per run"
        n = self.stats.peer_errors.counts.get(src, 0)
        if self.error_budget is not None and n > self.error_budget:
            return f"caused {n} errors, over its budget of {self.error_budget} per run"
        return None

    async def _over_budget(self, src: int, why: str) -> None:
        """``src`` is over a budget (``why``): cut it off (module docstring)."""
        self.cut_off[src] = f"party {self.role.party_id}: party {src} {why}; cut it off"
        await self.endpoint.refuse(src, why)

    def _all_gone(self) -> bool:
        """Every party the role waits for is gone for good (cut off here or by the transport)."""
        waiting = self.role.waiting_for()
        gone, cut = self.endpoint.gone, self.cut_off
        return bool(waiting) and all(p in gone or p in cut for p in waiting)

    async def _send(self, sends: list[Send]) -> None:
        if not sends:
            return
        send = self.endpoint.send
        st = self.stats
        transcript = self.transcript
        me = self.role.party_id
        encode = _ENCODER.encode
        rounds = st.rounds_sent
        last_msg: Message | None = None
        data = b""
        size = 0
        for s in sends:
            msg = s.msg
            if msg is not last_msg:  # a broadcast of one object is encoded once
                data = encode(msg)
                size = len(data)
                last_msg = msg
                rounds.add((msg.run, msg.step))
            if transcript is not None:
                transcript.record(trio.current_time(), me, s.dst, data, run=msg.run, step=msg.step)
            st.messages_sent += 1
            st.bytes_sent += size
            await send(s.dst, data)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> Role:
        """Run the role to completion (or abort) and return it."""
        role = self.role
        st = self.stats
        ep = self.endpoint
        poll = ep.poll
        decode = self.codec.decode
        receive = role.receive
        rounds = st.rounds_received
        now = trio.current_time
        checkpoint_if_cancelled = trio.lowlevel.checkpoint_if_cancelled
        t0 = time.perf_counter()
        timeout = math.inf if self.step_timeout is None else self.step_timeout
        deadline = now() + timeout
        polled = 0
        cut = self.cut_off
        budgeted = self.error_budget is not None or self.garbage_budget is not None
        hastened = False  # the deadline was already brought forward in this step
        task_status.started()
        try:
            await self._send(role.start())
            while not role.done:
                # a payload already waiting needs no timeout scope (and no task switch)
                got = poll()
                if got is None:
                    if not hastened and (cut or ep.gone) and self._all_gone():
                        hastened, deadline = True, now()
                    with trio.move_on_at(deadline):
                        got = await ep.receive()
                    if got is None:  # the step deadline passed: the role decides what it means
                        st.deadlines += 1
                        deadline = now() + timeout
                        await self._send(role.on_timeout())
                        continue
                else:
                    polled += 1
                    if polled & 63 == 0:  # a long backlog still notices cancellation
                        await checkpoint_if_cancelled()
                src, data = got
                st.messages_received += 1
                st.bytes_received += len(data)
                if cut and src in cut:
                    self.cut_dropped += 1
                    continue
                try:
                    msg = decode(data, sender=src)
                    sends = receive(src, msg)
                except PeerError as exc:  # DecodeError included: record, name the peer, go on
                    if exc.peer is None:
                        exc.peer = src
                    st.peer_errors.append(exc)
                    if budgeted and exc.peer == src and src not in cut and (why := self._over(src, exc)):
                        await self._over_budget(src, why)
                    continue
                # only labels the role accepted, and at most MAX_LABELS of them: a peer
                # cannot grow this set with labels of its choosing
                if len(rounds) < MAX_LABELS:
                    rounds.add((msg.run, msg.step))
                deadline = now() + timeout
                hastened = False
                await self._send(sends)
        except EndpointClosed as exc:
            self.connection_lost = not role.done
            if not role.done:
                waiting = sorted(role.waiting_for())
                st.error = ProtocolAbort(
                    f"party {role.party_id}: the connection closed before the role finished "
                    f"({exc}); waiting for {waiting}",
                    waiting,
                )
        finally:
            st.wall_s = time.perf_counter() - t0
        if st.error is None and role.error is not None:
            st.error = role.error
        return role
