"""The web transport's bounds on sockets that have not said hello, driven over ASGI in virtual
time: a hello deadline, a per-address limit that evicts a device's own oldest socket, and
identified sockets (the teacher, students) never counted."""

from __future__ import annotations

import trio

from transports.websocket import WebConn, WebServer


class _Handler:
    """Identifies the teacher at once, a student when it says hello."""

    def __init__(self) -> None:
        self.closed: list[WebConn] = []

    async def on_open(self, conn: WebConn) -> bool:
        if conn.path == "/ws/teacher":
            conn.identify()
        return True

    async def on_text(self, conn: WebConn, text: str) -> None:
        if text == "hello":
            conn.identify()

    async def on_bytes(self, conn: WebConn, data: bytes) -> None: ...

    async def on_close(self, conn: WebConn) -> None:
        self.closed.append(conn)


class _Socket:
    """One client of the ASGI app: what it sent the app, what the app sent it."""

    def __init__(self, app: WebServer, path: str, address: str) -> None:
        self.app, self.path, self.address = app, path, address
        self.sent: list[dict] = []
        self._in, self._out = trio.open_memory_channel[dict](10)
        self.done = trio.Event()

    async def run(self) -> None:
        async def receive() -> dict:
            return await self._out.receive()

        async def send(event: dict) -> None:
            self.sent.append(event)

        await self._in.send({"type": "websocket.connect"})
        scope = {"type": "websocket", "path": self.path, "client": (self.address, 1234)}
        await self.app(scope, receive, send)
        self.done.set()

    @property
    def accepted(self) -> bool:
        return any(e["type"] == "websocket.accept" for e in self.sent)

    @property
    def close_code(self) -> int | None:
        return next((e["code"] for e in self.sent if e["type"] == "websocket.close"), None)

    async def say(self, text: str) -> None:
        await self._in.send({"type": "websocket.receive", "text": text})


async def _open(nursery: trio.Nursery, app: WebServer, path: str, address: str) -> _Socket:
    s = _Socket(app, path, address)
    nursery.start_soon(s.run)
    await trio.sleep(0.01)
    return s


async def test_a_socket_without_hello_is_closed_at_the_deadline(autojump_clock) -> None:
    """Before: no hello deadline; an idle socket was held for as long as the device liked."""
    app = WebServer({}, _Handler(), hello_timeout=5)
    async with trio.open_nursery() as nursery:
        t0 = trio.current_time()
        idle = await _open(nursery, app, "/ws/student", "10.0.0.9")
        talker = await _open(nursery, app, "/ws/student", "10.0.0.9")
        await talker.say("hello")
        await idle.done.wait()
        assert 5 <= trio.current_time() - t0 <= 6.5
        assert idle.accepted and idle.close_code == 1008
        await trio.sleep(60)
        assert not talker.done.is_set() and talker.close_code is None  # identified: no deadline
        assert app.unidentified.closed["no hello"] == 1
        nursery.cancel_scope.cancel()


async def test_forty_idle_sockets_from_one_address_evict_only_their_own(autojump_clock) -> None:
    """Before: one cap over every socket (``max_students + 8``); 13 idle sockets refused every
    new student and the teacher."""
    app = WebServer({}, _Handler(), max_unidentified=16, per_address=4, hello_timeout=5)
    async with trio.open_nursery() as nursery:
        flood = [await _open(nursery, app, "/ws/student", "10.0.0.66") for _ in range(40)]
        assert app.unidentified.held("10.0.0.66") == 4
        assert sum(s.close_code == 1013 for s in flood) == 36
        teacher = await _open(nursery, app, "/ws/teacher", "10.0.0.66")  # even from that device
        students = []
        for i in range(30):  # a student's page says hello as soon as its socket opens
            students.append(await _open(nursery, app, "/ws/student", f"10.0.1.{i}"))
            await students[-1].say("hello")
        await trio.sleep(1)
        assert teacher.accepted and teacher.close_code is None
        assert all(s.accepted and s.close_code is None for s in students)
        assert app.unidentified.count == 4  # students identified: they no longer count
        more = [await _open(nursery, app, "/ws/student", "10.0.0.66") for _ in range(40)]
        assert all(s.accepted and s.close_code is None for s in students)
        assert app.unidentified.held("10.0.0.66") == 4 and sum(s.close_code is None for s in more) == 4
        nursery.cancel_scope.cancel()


async def test_the_global_bound_evicts_from_the_busiest_address(autojump_clock) -> None:
    app = WebServer({}, _Handler(), max_unidentified=6, per_address=4, hello_timeout=5)
    async with trio.open_nursery() as nursery:
        a = [await _open(nursery, app, "/ws/student", "10.0.0.1") for _ in range(4)]
        b = [await _open(nursery, app, "/ws/student", "10.0.0.2") for _ in range(2)]
        c = await _open(nursery, app, "/ws/student", "10.0.0.3")  # past 6: one of 10.0.0.1's goes
        assert a[0].close_code == 1013 and all(s.close_code is None for s in (*a[1:], *b, c))
        assert app.unidentified.closed["unidentified limit"] == 1
        nursery.cancel_scope.cancel()
