"""The classroom's web transport: frame header, bounded outbox, pages and refusals over ASGI."""

from __future__ import annotations

import pytest
import trio

from transports.websocket import Page, WebConn, WebServer, pack_ws, unpack_ws


def test_frame_header_round_trips_and_short_frames_are_named() -> None:
    assert unpack_ws(pack_ws(7, b"abc")) == (7, b"abc")
    with pytest.raises(ValueError, match="shorter than its 4-byte peer id"):
        unpack_ws(b"\x00\x01")


async def test_a_browser_that_does_not_read_is_dropped_not_buffered() -> None:
    conn = WebConn("/ws/student", "", queue=3)
    for _ in range(3):
        conn.send_bytes(b"x")
    assert not conn.closed
    conn.send_bytes(b"one too many")
    assert conn.closed and "outbox full" in conn.close_reason
    conn.send_text("after close")  # ignored, never raises


class _Refuse:
    async def on_open(self, conn: WebConn) -> bool:
        return True  # the server's own bound refuses it

    async def on_text(self, conn: WebConn, text: str) -> None: ...

    async def on_bytes(self, conn: WebConn, data: bytes) -> None: ...

    async def on_close(self, conn: WebConn) -> None: ...


async def test_asgi_pages_404_and_connection_cap() -> None:
    app = WebServer({"/": Page(b"hello")}, _Refuse(), max_unidentified=0)
    sent: list[dict] = []

    async def send(event: dict) -> None:
        sent.append(event)

    async def receive() -> dict:
        return {"type": "websocket.connect"}

    await app({"type": "http", "method": "GET", "path": "/"}, receive, send)
    await app({"type": "http", "method": "GET", "path": "/nope"}, receive, send)
    assert [e.get("status") for e in sent if e["type"] == "http.response.start"] == [200, 404]
    assert sent[1]["body"] == b"hello"
    sent.clear()
    await app({"type": "websocket", "path": "/ws/student"}, receive, send)
    assert sent == [{"type": "websocket.close", "code": 1013}] and app.refused == 1
    await trio.lowlevel.checkpoint()
