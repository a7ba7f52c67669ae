"""The Party actor: binds one sans-I/O role to one endpoint.

A party is a thin loop (DESIGN.md section 3): receive ``(src, bytes)`` from
the endpoint, decode with a strict :class:`~mpc_rr.messages.Codec` built from
``role.message_types``, feed ``role.receive``, encode and send whatever the
role returns, until ``role.done``.  It also

* enforces a *step timeout*: if no message is accepted by the role for
  ``step_timeout`` seconds, it calls ``role.on_timeout()`` (at most
  ``max_timeouts`` times; then the party stops with a
  :class:`~mpc_rr.errors.ProtocolAbort` naming ``role.waiting_for()``);
* records :class:`~mpc_rr.errors.DecodeError` / :class:`~mpc_rr.errors.PeerError`
  raised for a peer (with the peer id) and keeps running;
* counts messages, bytes and rounds sent and received (:class:`PartyStats`);
* optionally records a *transcript*: the list of ``(src, dst, payload)`` it
  sent, in order.

Per-message work is kept small (one decode, one encode per distinct message
object, one channel operation), because 32,561 parties share one process in
simulations.
"""

from __future__ import annotations

import math
import time
from functools import lru_cache

import msgspec
import trio

from mpc_rr.errors import PeerError, ProtocolAbort, UsageError
from mpc_rr.messages import DEFAULT_MAX_FRAME, Codec, Message
from mpc_rr.roles import Role, Send
from parties.costs import PartyStats
from transports.base import Endpoint
from transports.errors import EndpointClosed

__all__ = ["Party", "codec_for"]

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
    max_timeouts:
        How many times ``on_timeout`` may be called before the party gives up.
    transcript:
        Record every payload sent as ``(src, dst, payload)`` in ``self.transcript``.
    max_frame:
        Largest accepted incoming frame (passed to the codec).
    """

    def __init__(
        self,
        role: Role,
        endpoint: Endpoint,
        *,
        step_timeout: float | None = None,
        max_timeouts: int = 1,
        transcript: bool = False,
        max_frame: int = DEFAULT_MAX_FRAME,
    ) -> None:
        if role.party_id != endpoint.party_id:
            raise UsageError(
                f"Party: role.party_id {role.party_id} != endpoint.party_id {endpoint.party_id}"
            )
        if step_timeout is not None and not step_timeout > 0:
            raise UsageError(f"Party: step_timeout must be > 0 or None, got {step_timeout!r}")
        if not role.message_types:
            raise UsageError(f"Party: role {type(role).__name__} declares no message_types")
        self.role = role
        self.endpoint = endpoint
        self.step_timeout = step_timeout
        self.max_timeouts = int(max_timeouts)
        self.codec = codec_for(tuple(role.message_types), int(max_frame))
        self.stats = PartyStats(role.party_id, type(role).__name__)
        self.transcript: list[tuple[int, int, bytes]] | None = [] if transcript else None

    @property
    def peer_errors(self) -> list[PeerError]:
        return self.stats.peer_errors

    async def _send(self, sends: list[Send]) -> None:
        ep = self.endpoint
        st = self.stats
        transcript = self.transcript
        me = self.role.party_id
        last_msg: Message | None = None
        data = b""
        for s in sends:
            msg = s.msg
            if msg is not last_msg:  # a broadcast of one object is encoded once
                data = _ENCODER.encode(msg)
                last_msg = msg
                st.rounds_sent.add((msg.run, msg.step))
            await ep.send(s.dst, data)
            st.messages_sent += 1
            st.bytes_sent += len(data)
            if transcript is not None:
                transcript.append((me, s.dst, data))

    def _fail(self, reason: str) -> None:
        waiting = sorted(self.role.waiting_for())
        err = ProtocolAbort(f"party {self.role.party_id}: {reason}; waiting for {waiting}", waiting)
        self.stats.error = err

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> Role:
        """Run the role to completion (or abort/timeout) and return it."""
        role = self.role
        st = self.stats
        ep = self.endpoint
        codec = self.codec
        t0 = time.perf_counter()
        timeout = math.inf if self.step_timeout is None else self.step_timeout
        deadline = trio.current_time() + timeout
        task_status.started()
        try:
            first = role.start()
            if first:
                await self._send(first)
            while not role.done:
                if timeout == math.inf:
                    src, data = await ep.receive()
                else:
                    got = None
                    with trio.move_on_at(deadline):
                        got = await ep.receive()
                    if got is None:  # the step deadline passed
                        st.timeouts += 1
                        if st.timeouts > self.max_timeouts:
                            self._fail(f"no progress after {st.timeouts - 1} timeout(s)")
                            break
                        await self._send(role.on_timeout())
                        deadline = trio.current_time() + timeout
                        continue
                    src, data = got
                st.messages_received += 1
                st.bytes_received += len(data)
                try:
                    msg = codec.decode(data, sender=src)
                    st.rounds_received.add((msg.run, msg.step))
                    sends = role.receive(src, msg)
                except PeerError as exc:  # DecodeError included: record, name the peer, go on
                    if exc.peer is None:
                        exc.peer = src
                    st.peer_errors.append(exc)
                    continue
                except ProtocolAbort as exc:
                    st.error = exc
                    break
                if timeout != math.inf:
                    deadline = trio.current_time() + timeout
                if sends:
                    await self._send(sends)
        except EndpointClosed as exc:
            if not role.done:
                self._fail(f"endpoint closed before the role finished ({exc})")
        finally:
            st.wall_s = time.perf_counter() - t0
        if st.error is None and role.error is not None:
            st.error = role.error
        return role
