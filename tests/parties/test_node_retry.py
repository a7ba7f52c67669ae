"""Issue 21: a client whose handshake the hub sheds (under a flood of outsiders) comes back,
after waits that grow and are jittered, instead of failing the run.  Before: a close after
TLS, while it waited for its welcome, was final ("no welcome (connection closed)")."""

from __future__ import annotations

import numpy as np
import trio

from parties.node import RETRY_FIRST, _connect_retrying
from transports.pki import client_context
from transports.tcp import open_hub


async def _proxy(port: int, drop: int, task_status=trio.TASK_STATUS_IGNORED) -> None:
    """Forward connections to ``port``; the first ``drop`` are closed once the client has
    finished TLS and sent its hello, before the hub sees them: the client waits for its
    welcome and reads a close without a reason (how a hub shedding handshakes looks)."""
    seen = 0

    async def pipe(a: trio.SocketStream, b: trio.SocketStream, cut: trio.CancelScope | None) -> None:
        chunks = 0
        try:
            async for chunk in a:
                chunks += 1
                if cut is not None and chunks > 1:  # the client's second flight: cut here
                    cut.cancel()
                    return
                await b.send_all(chunk)
        except trio.BrokenResourceError:
            pass

    async def handle(s: trio.SocketStream) -> None:
        nonlocal seen
        seen += 1
        up = await trio.open_tcp_stream("127.0.0.1", port)
        async with trio.open_nursery() as n:
            n.start_soon(pipe, s, up, n.cancel_scope if seen <= drop else None)
            n.start_soon(pipe, up, s, None)
        await s.aclose()
        await up.aclose()

    await trio.serve_tcp(handle, 0, host="127.0.0.1", task_status=task_status)


async def test_a_shed_handshake_is_retried_with_growing_jittered_waits(roster_for) -> None:
    roster = roster_for(3)
    async with open_hub(roster, port=0) as hub, trio.open_nursery() as nursery:
        (listener,) = await nursery.start(_proxy, hub.port, 3)
        r = roster.with_hub_address("127.0.0.1", listener.socket.getsockname()[1])
        extra: dict[str, object] = {}
        t0 = trio.current_time()
        c = await _connect_retrying(r, 1, client_context(r, 1), True, 30.0, extra,
                                    np.random.default_rng(7))  # fmt: skip
        waited = trio.current_time() - t0
        assert extra["connect_attempts"] == 4  # three shed, the fourth welcomed
        assert waited >= 0.5 * RETRY_FIRST * (1 + 2 + 4)  # each wait at least half its step
        await c.send(0, b"in")
        assert await hub.receive() == (1, b"in")
        await c.aclose()
        nursery.cancel_scope.cancel()
