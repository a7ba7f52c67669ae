"""A live class on loopback against one device that opens idle WebSockets (real sockets, the
server's own bounds): students and the teacher still get in."""

from __future__ import annotations

import io
import json

import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, RejectConnection, Request, TextMessage

from scenarios.classroom.live import Lesson
from scenarios.classroom.serve import ServeOptions, serve


class _Client:
    """A WebSocket client on a real socket from ``source`` (a loopback address)."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.texts: list[dict] = []
        self.closed: int | None = None

    @classmethod
    async def open(cls, port: int, path: str, source: str) -> _Client | int:
        """The client once accepted, or the HTTP status of its refusal."""
        sock = trio.socket.socket()
        await sock.bind((source, 0))
        await sock.connect(("127.0.0.1", port))
        c = cls(trio.SocketStream(sock))
        await c.stream.send_all(c.ws.send(Request(host="127.0.0.1", target=path)))
        while True:
            for event in await c._events():
                if isinstance(event, AcceptConnection):
                    return c
                if isinstance(event, RejectConnection):
                    await c.stream.aclose()
                    return event.status_code

    async def _events(self) -> list:
        data = await self.stream.receive_some(65536)
        self.ws.receive_data(data or None)
        return list(self.ws.events())

    async def say(self, **msg: object) -> None:
        await self.stream.send_all(self.ws.send(TextMessage(json.dumps(msg))))

    async def until(self, kind: str) -> dict:
        while True:
            for m in self.texts:
                if m.get("type") == kind:
                    return m
            for event in await self._events():
                if isinstance(event, TextMessage):
                    self.texts.append(json.loads(event.data))
                elif isinstance(event, CloseConnection):
                    self.closed = event.code
                    raise AssertionError(f"closed ({event.code} {event.reason}) waiting for {kind}")


async def test_forty_idle_sockets_from_one_device_shut_out_no_student_nor_the_teacher() -> None:
    """Before: the cap (``max_students + 8``) counted every socket; 13 idle WebSockets from one
    client refused every new student and the teacher page (HTTP 403), still after 20 s."""
    lesson = Lesson("full-mesh", options=("A", "B"), seed=1)
    opts = ServeOptions(host="127.0.0.1", port=0, max_students=5)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            info = await nursery.start(lambda task_status: serve(lesson, opts, out=io.StringIO(), task_status=task_status))
            port, key = info["port"], info["room"].teacher_key
            idle = [await _Client.open(port, "/ws/student", "127.0.0.2") for _ in range(40)]
            assert all(isinstance(c, _Client) for c in idle)  # each accepted, then evicted in turn
            students = []
            for i, source in enumerate(["127.0.0.3", "127.0.0.4", "127.0.0.2"]):  # one on the device
                s = await _Client.open(port, "/ws/student", source)
                assert isinstance(s, _Client), s
                await s.say(type="hello", token=f"t{i}", name=f"student {i}", vk="")
                assert (await s.until("welcome"))["name"] == f"student {i}"
                students.append(s)
            teacher = await _Client.open(port, f"/ws/teacher?key={key}", "127.0.0.2")
            assert isinstance(teacher, _Client), teacher
            assert (await teacher.until("snapshot"))["type"] == "snapshot"
            assert info["room"].lobby()["students"] == ["student 0", "student 1", "student 2"]
            nursery.cancel_scope.cancel()


async def test_frames_go_uncompressed_though_the_browser_offers_deflate() -> None:
    """Every browser offers permessage-deflate; the frames are ciphertexts and keys, which do not
    compress, so the server declines it (hypercorn alone would accept it)."""
    from wsproto.extensions import PerMessageDeflate

    from scenarios.classroom import LIVE_PROTOCOLS

    lesson = Lesson(LIVE_PROTOCOLS[0], options=("A", "B"), seed=2)
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            info = await nursery.start(lambda task_status: serve(
                lesson, ServeOptions(host="127.0.0.1", port=0), out=io.StringIO(), task_status=task_status))  # fmt: skip
            stream = await trio.open_tcp_stream("127.0.0.1", info["port"])
            ws = WSConnection(ConnectionType.CLIENT)
            await stream.send_all(ws.send(Request(host="127.0.0.1", target="/ws/student",
                                                  extensions=[PerMessageDeflate()])))  # fmt: skip
            accepted = None
            while accepted is None:
                ws.receive_data(await stream.receive_some(65536))
                accepted = next((e for e in ws.events() if isinstance(e, AcceptConnection)), None)
            assert accepted.extensions == []
            await stream.aclose()
            nursery.cancel_scope.cancel()
