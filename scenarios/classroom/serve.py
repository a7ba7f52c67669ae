"""``mpc-rr classroom serve``: one trio process serving the teacher's and the students' pages.

Builds the lesson (:mod:`.live`), the room (:class:`parties.room.Room`) and
the web server (:mod:`transports.websocket`, hypercorn's trio worker), prints
the join URL, its QR code and the teacher's URL, and runs rounds until
Ctrl-C -- or, with ``once``, one round, whose outcome it returns.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, TextIO

import numpy as np
import trio

from scenarios.classroom.live import Lesson, make_round, pages, qr_text

__all__ = ["ServeOptions", "lan_address", "serve"]


@dataclass(frozen=True)
class ServeOptions:
    host: str = "0.0.0.0"
    port: int = 8000
    bots: int = 0
    max_students: int = 40
    step_timeout: float = 20.0
    auto_start: int | None = None
    once: bool = False
    teacher_key: str | None = None
    public_host: str | None = None
    https: bool = False


ROUTE_PROBE = "192.0.2.1"
"""A documentation address (TEST-NET-1, RFC 5737): the route towards it names the interface the
room's phones reach.  Connecting a UDP socket only looks the route up; no packet is sent."""


def lan_address(probe: str = ROUTE_PROBE) -> str:
    """This machine's address as the room's phones would reach it (``--public-host`` overrides
    it): the source address of the route towards ``probe``, else the hostname's address (often
    loopback, from /etc/hosts), else ``127.0.0.1``.  Sends nothing."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect((probe, 9))  # UDP: sets the default destination, picks the route; no packet
        addr = str(s.getsockname()[0])
        if not addr.startswith("127.") and addr != "0.0.0.0":
            return addr
    try:
        return socket.gethostbyname(socket.gethostname())
    except OSError:
        return "127.0.0.1"


def is_loopback(host: str) -> bool:
    """``host`` reaches this machine only (127.x, ``localhost``, ``::1``)."""
    return host.startswith("127.") or host in ("localhost", "::1")


async def serve(
    lesson: Lesson, opts: ServeOptions, *, out: TextIO = sys.stdout,
    log: Callable[[str], None] | None = None,
    task_status: trio.TaskStatus[Any] = trio.TASK_STATUS_IGNORED,
) -> dict[str, Any] | None:  # fmt: skip
    """Serve the class; with ``opts.once`` return the first round's outcome."""
    from parties.room import Room
    from transports.websocket import WebServer, self_signed

    rng = np.random.default_rng(lesson.seed)
    room = Room(make_round(lesson, rng), bots=opts.bots, max_students=opts.max_students,
                step_timeout=opts.step_timeout, auto_start=opts.auto_start,
                teacher_key=opts.teacher_key, log=log)  # fmt: skip
    # sockets without a hello: bounded per address, closed after 5 s; a page's outbox holds a
    # round's frames to it (every protocol here sends a party fewer than 4 (n + 2))
    app = WebServer({}, room, queue=max(512, 4 * (opts.max_students + opts.bots + 2)))
    shown = opts.public_host or (lan_address() if opts.host in ("0.0.0.0", "") else opts.host)
    tls, note = None, ""
    with tempfile.TemporaryDirectory(prefix="mpc-rr-class-") as folder:
        if opts.https:
            certfile, keyfile, fp = self_signed((shown, "127.0.0.1", "localhost"), folder)
            tls = (certfile, keyfile)
            note = f"HTTPS with a self-signed certificate (fingerprint {fp}...): accept it once.\n"
        elif not is_loopback(shown):
            note = ("Note: phones need --https (their browsers give WebCrypto only to secure pages; "
                    "http://localhost is one, a LAN address is not).\n")  # fmt: skip
        if is_loopback(shown) and opts.host in ("0.0.0.0", ""):
            note += ("Warning: no LAN address found (no route beyond this machine), so the join "
                     "URL is loopback and only browsers on this machine can join; give the "
                     "address the room reaches with --public-host.\n")  # fmt: skip
        return await _serve(lesson, opts, room, app, shown, tls, note, out, task_status)


async def _serve(
    lesson: Lesson, opts: ServeOptions, room: Any, app: Any, shown: str, tls: tuple[str, str] | None,
    note: str, out: TextIO, task_status: trio.TaskStatus[Any],
) -> dict[str, Any] | None:  # fmt: skip
    from transports.websocket import Page, serve_web

    scheme = "https" if tls else "http"
    async with trio.open_nursery() as nursery:
        port = await nursery.start(partial(serve_web, app, opts.host, opts.port, tls=tls))
        join = f"{scheme}://{shown}:{port}/"
        app.pages = {path: Page(body, ctype) for path, (body, ctype) in pages(lesson, join).items()}
        teacher = f"{scheme}://127.0.0.1:{port}/teacher?key={room.teacher_key}"
        print(f"Students join at {join}\n{qr_text(join)}{note}Teacher page (keep it to yourself): {teacher}",
              file=out, flush=True)  # fmt: skip
        task_status.started({"port": port, "join": join, "teacher": teacher, "room": room})
        await room.run(rounds=1 if opts.once else None)
        for student in room.connected():  # the last frames (the result) reach every page first
            if student.conn is not None:
                student.conn.close(1000, "the class is over")
        for conn in tuple(room.teachers):
            conn.close(1000, "the class is over")
        with trio.move_on_after(2.0):
            while app.open_conns:
                await trio.sleep(0.02)
        nursery.cancel_scope.cancel()
    return room.results[0] if room.results else None
