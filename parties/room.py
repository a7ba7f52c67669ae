"""A live room: browsers and simulated students as the parties of one protocol run at a time.

The actor behind ``mpc-rr classroom serve`` (the lesson side, which protocol
and how its result is read, is :mod:`scenarios.classroom.live`).  Students
open a WebSocket (:mod:`transports.websocket`); the room keeps the lobby,
starts a round when the teacher asks (or when ``auto_start`` students are
in), numbers the round's students ``1..n`` (browsers first, then the bots),
runs the server's own roles -- the aggregator or board (party 0) and every
bot -- as :class:`~parties.party.Party` actors over local endpoints, and
relays the browsers' frames.  The teacher's start may carry a lesson's ``choice`` (what a
cheating server plays: handed to ``make_round``), and a round may tell each browser its own
public part (``public_for(id)``, e.g. a server that splits the roster).

Every binary frame a browser sends is decoded with the round's strict codec
*before* it is relayed: garbage (a short frame, an unknown message, a frame of
another run, a destination outside the round) is rejected and named on the
teacher's page, and the class carries on; a browser that sends
:data:`GARBAGE_LIMIT` bad frames is disconnected.  Text frames are the
lobby's JSON (``hello`` from a student, ``start`` from the teacher).

A student is a ``token`` (kept by the browser tab across reloads) and a name
unique in the room: a reload rejoins as the same student (the round it was
in counts it as a dropout), a second tab with the same name is refused, a
student who joins during a round waits for the next one, and more than
``max_students`` are refused.  What the teacher sees is a bounded list of
events (:data:`EVENT_LOG`); the round's relayed frames reach it as a summary
(:data:`PROGRESS_EVERY`: counts and bytes per step and message type, each party's
last step, and at most :data:`SAW_PER_TYPE` frames of each type field by field), so a
class of hundreds, whose round relays tens of thousands of frames, costs the
teacher's page a few updates a second, not one per frame.
"""

from __future__ import annotations

import json
import math
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import trio

from mpc_rr.core import Codec, DecodeError, Message, Role
from parties.party import Party, codec_for
from parties.room_progress import SAW_PER_TYPE, Progress
from transports.websocket import LocalEndpoint, WebConn, pack_ws, unpack_ws

__all__ = ["EVENT_LOG", "GARBAGE_LIMIT", "SAW_PER_TYPE", "Progress", "Room", "RoundSetup", "Student"]

GARBAGE_LIMIT = 20
"""Bad frames after which a browser is disconnected."""

EVENT_LOG = 20_000
"""Events kept for a teacher page that (re)connects."""

MAX_NAME = 40

PROGRESS_EVERY = 0.25
"""Seconds between two summaries of the round's relayed frames sent to the teacher."""

LOBBY_EVERY = 0.25
"""Seconds between two lobby broadcasts while students stream in (each carries every name:
one per join would be quadratic in the class size)."""


class RoundSetup(Protocol):
    """One round as the lesson builds it (see :mod:`scenarios.classroom.live`)."""

    message_types: tuple[type[Message], ...]
    roles: dict[int, Role]
    """The server's roles: party 0 (aggregator or board) and the bots."""
    public: dict[str, Any]
    """What every browser is told at the start (n, run, options, ...); its id is added."""

    def outcome(self, hub: Role) -> dict[str, Any]:
        """The round's result as JSON, from the server role once it stopped."""


MakeRound = Callable[..., RoundSetup]
"""``make_round(browsers, bots, run, keys)``: browsers are ids ``1..browsers``, bots the next
ids; ``keys``: each browser's Ed25519 verification key (32 raw bytes), sent when it joined;
``choice=`` (a string) too when the teacher's start carried one (a lesson's option)."""


@dataclass(eq=False)
class Student:
    token: str
    name: str
    conn: WebConn | None = None
    garbage: int = 0
    rounds: int = 0
    vk: bytes = b""  # its Ed25519 verification key (the page's per-student signing key)


@dataclass(eq=False)
class _Round:
    run: str
    setup: RoundSetup
    codec: Codec
    browsers: dict[int, Student]
    local: dict[int, LocalEndpoint]
    started: float = field(default_factory=time.perf_counter)
    dropped: set[int] = field(default_factory=set)
    sent: dict[int, int] = field(default_factory=dict)  # frames relayed per browser this round
    budget: int = 0  # at most this many: every protocol here sends fewer than 4 (n + 2)
    ids: dict[Student, int] = field(default_factory=dict)  # browser -> its id in the round
    progress: Progress = field(default_factory=lambda: Progress())


class Room:
    """The lobby, the rounds and the relay (see the module docstring)."""

    def __init__(
        self, make_round: MakeRound, *, bots: int = 0, max_students: int = 40,
        step_timeout: float = 20.0, auto_start: int | None = None, teacher_key: str | None = None,
        log: Callable[[str], None] | None = None,
    ) -> None:  # fmt: skip
        self.make_round = make_round
        self.bots = int(bots)
        self.max_students = int(max_students)
        self.step_timeout = float(step_timeout)
        self.auto_start = auto_start
        self.teacher_key = teacher_key or secrets.token_urlsafe(9)
        self.log = log or (lambda line: None)
        self.students: dict[str, Student] = {}  # token -> student (connected or not)
        self._by_conn: dict[WebConn, Student] = {}  # each connected student's socket
        self._lobby_sent = -math.inf  # when the lobby was last broadcast (trio's clock)
        self._lobby_due = False  # a broadcast held back (LOBBY_EVERY)
        self.teachers: set[WebConn] = set()
        self.events: deque[dict[str, Any]] = deque(maxlen=EVENT_LOG)
        self.round: _Round | None = None
        self._progress: tuple[str, Progress] | None = None  # the latest round's summary
        self.results: list[dict[str, Any]] = []
        self._last_round: set[str] = set()  # tokens of the last round's browser students
        self._revealed: set[str] = set()
        self.round_done = trio.Event()
        self._start = trio.Event()
        self._runs = 0
        self.choice: str | None = None  # what the teacher picked for the next round, if anything
        self.t0 = time.perf_counter()

    # -- what the teacher sees ----------------------------------------------------------
    def emit(self, kind: str, **data: Any) -> None:
        event = {"type": kind, "t": round(time.perf_counter() - self.t0, 3), **data}
        self.events.append(event)
        text = json.dumps(event)
        for conn in tuple(self.teachers):
            conn.send_text(text)
        if kind not in ("msg",):
            self.log(f"[{event['t']:8.3f}] {kind} " + " ".join(f"{k}={v}" for k, v in data.items()))

    def connected(self) -> list[Student]:
        return [s for s in self.students.values() if s.conn is not None]

    def lobby(self) -> dict[str, Any]:
        names = [s.name for s in self.connected()]
        return {"students": names, "bots": self.bots, "round": self.round is not None}

    def _broadcast_lobby(self, *, now: bool = False) -> None:
        """Tell every student and the teacher who is in -- at most every :data:`LOBBY_EVERY`
        seconds while students stream in (the held-back one goes out from :meth:`run`)."""
        self._auto_start()
        if not now and trio.current_time() - self._lobby_sent < LOBBY_EVERY:
            self._lobby_due = True
            return
        self._lobby_due, self._lobby_sent = False, trio.current_time()
        lobby = self.lobby()
        text = json.dumps({"type": "lobby", **lobby})
        for s in self.connected():
            assert s.conn is not None
            s.conn.send_text(text)
        self.emit("lobby", **lobby)

    async def _lobby_pump(self) -> None:
        """Send the held-back lobby broadcast (:meth:`_broadcast_lobby`) once it is due."""
        while True:
            await trio.sleep(LOBBY_EVERY)
            if self._lobby_due:
                self._broadcast_lobby(now=True)

    def _attach(self, student: Student, conn: WebConn | None) -> None:
        if student.conn is not None:
            self._by_conn.pop(student.conn, None)
        student.conn = conn
        if conn is not None:
            self._by_conn[conn] = student

    def _auto_start(self) -> None:
        if self.auto_start is not None and self.round is None and len(self.connected()) + self.bots >= self.auto_start:
            self.auto_start = None  # the first round only: the teacher starts the next ones
            self._start.set()

    # -- connections (transports.websocket.WebHandler) ----------------------------------
    async def on_open(self, conn: WebConn) -> bool:
        if conn.path == "/ws/teacher":
            if f"key={self.teacher_key}" not in conn.query.split("&"):
                return False
            conn.identify()  # the teacher: never counted against the students or the unidentified
            self.teachers.add(conn)
            events = list(self.events)
            if self._progress is not None:
                run, progress = self._progress
                events.append({"type": "progress", "run": run, **progress.everything()})
            conn.send_text(json.dumps({"type": "snapshot", "events": events}))
            return True
        return conn.path == "/ws/student"

    async def on_close(self, conn: WebConn) -> None:
        self.teachers.discard(conn)
        student = self._student_of(conn)
        if student is None:
            return
        self._attach(student, None)
        rnd = self.round
        pid = self._id_in_round(student)
        if rnd is not None and pid is not None and pid not in rnd.dropped:
            rnd.dropped.add(pid)
            self.emit("dropout", id=pid, name=student.name, why=conn.close_reason or "tab closed")
        else:
            self.emit("leave", name=student.name, why=conn.close_reason or "tab closed")
        self._broadcast_lobby()

    async def on_text(self, conn: WebConn, text: str) -> None:
        try:
            msg = json.loads(text)
            kind = msg["type"]
        except (ValueError, KeyError, TypeError):
            self._garbage(conn, f"text frame that is not a lobby message ({text[:40]!r})")
            return
        if conn in self.teachers:
            if kind == "start":
                choice = msg.get("choice")  # a lesson's option for the round (the cheat lesson's strategy)
                self.choice = choice[:40] if isinstance(choice, str) and choice else None
                self._start.set()
            elif kind == "reveal" and self.round is None:  # ask the last round's students
                self._revealed.clear()
                for token in self._last_round:
                    student = self.students.get(token)
                    if student is not None and student.conn is not None:
                        student.conn.send_text(json.dumps({"type": "reveal?"}))
                self.emit("reveal-asked", students=len(self._last_round))
            return
        student = self._student_of(conn)
        if kind == "hello" and student is None:
            self._hello(conn, msg)
        elif kind == "reveal" and student is not None and student.token in self._last_round \
                and student.token not in self._revealed and isinstance(msg.get("answer"), int) \
                and 0 <= msg["answer"] < 64:  # fmt: skip
            # a student's choice, after the round: the class checks the total against it
            self._revealed.add(student.token)
            self.emit("reveal", name=student.name, answer=msg["answer"])
        else:
            self._garbage(conn, f"unexpected lobby message {str(kind)[:20]!r}")

    def _hello(self, conn: WebConn, msg: dict[str, Any]) -> None:
        token, name = str(msg.get("token", ""))[:64], " ".join(str(msg.get("name", "")).split())[:MAX_NAME]
        refuse = None
        try:  # the page's signing key (a reload makes a new one: the newest page is the student)
            vk = bytes.fromhex(str(msg.get("vk", "")))
        except ValueError:
            vk = b"?"
        if not token or not name:
            refuse = "a name is needed"
        elif len(vk) not in (0, 32):
            refuse = "a malformed verification key (32 bytes of Ed25519, hex)"
        elif any(s.name == name and s.token != token and s.conn for s in self.students.values()):
            refuse = f"{name!r} is already in the class (another tab?)"
        elif token not in self.students and len(self.connected()) >= self.max_students:
            refuse = f"the class is full ({self.max_students} students)"
        if refuse:
            conn.send_text(json.dumps({"type": "refused", "reason": refuse}))
            self.emit("refused", name=name, why=refuse)
            conn.close(1008, refuse)
            return
        student = self.students.get(token)
        rejoin = student is not None
        if student is not None and student.conn is not None:
            # the same tab reloaded (its old socket not closed yet) or a duplicated tab: the
            # newest page is the student; the old one is told and closed (mid-round: a dropout)
            old, pid, rnd = student.conn, self._id_in_round(student), self.round
            old.send_text(json.dumps({"type": "refused", "reason": "this page was opened again (reload or another tab)"}))
            old.close(1000, "replaced by a newer page")
            self._attach(student, None)
            if rnd is not None and pid is not None and pid not in rnd.dropped:
                rnd.dropped.add(pid)
                self.emit("dropout", id=pid, name=student.name, why="page opened again")
        if student is None and len(self.students) >= 4 * self.max_students:
            # bounded: forget students who left and were not in the last round
            for t in [t for t, s in self.students.items() if s.conn is None and t not in self._last_round]:
                del self.students[t]
        if student is None:
            student = self.students[token] = Student(token, name)
        self._attach(student, conn)
        student.name, student.vk = name, vk
        conn.identify()  # a student now: bounded by max_students, no longer by the hello deadline
        conn.send_text(json.dumps({"type": "welcome", "name": name, "waiting": self.round is not None}))
        self.emit("rejoin" if rejoin else "join", name=name, late=self.round is not None)
        self._broadcast_lobby()

    def _student_of(self, conn: WebConn) -> Student | None:
        return self._by_conn.get(conn)

    def _id_in_round(self, student: Student) -> int | None:
        rnd = self.round
        return None if rnd is None else rnd.ids.get(student)

    def _garbage(self, conn: WebConn, what: str) -> None:
        student = self._student_of(conn)
        who = student.name if student else f"connection {conn.number}"
        self.emit("garbage", who=who, what=what)
        if student is not None:
            student.garbage += 1
            if student.garbage >= GARBAGE_LIMIT:
                conn.close(1008, f"{GARBAGE_LIMIT} bad frames")
        else:
            conn.close(1008, "bad frame before hello")

    async def on_bytes(self, conn: WebConn, data: bytes) -> None:
        student = self._student_of(conn)
        rnd = self.round
        src = None if student is None else self._id_in_round(student)
        if rnd is None or src is None or src in rnd.dropped:
            self._garbage(conn, "a protocol frame outside a round it is in")
            return
        try:
            dst, payload = unpack_ws(data)
            msg = rnd.codec.decode(payload, sender=src)
        except (ValueError, DecodeError) as exc:
            self._garbage(conn, str(exc)[:200])
            return
        if msg.run != rnd.run:
            self._garbage(conn, f"a frame of run {msg.run[:20]!r}, not this round's {rnd.run!r}")
            return
        if dst == src or (dst not in rnd.browsers and dst not in rnd.local):
            self._garbage(conn, f"a frame for party {dst}, who is not in this round")
            return
        sent = rnd.sent[src] = rnd.sent.get(src, 0) + 1
        if sent > rnd.budget:  # a flood would fill the others' outboxes: cut it at the source
            self._garbage(conn, f"more than {rnd.budget} frames in one round")
            return
        self._route(src, dst, payload, msg)

    # -- the relay -------------------------------------------------------------------------
    def _route(self, src: int, dst: int, payload: bytes, msg: Message | None = None) -> None:
        rnd = self.round
        if rnd is None:
            return
        if msg is None:
            msg = rnd.codec.decode(payload, sender=src)  # our own roles' frames: cannot fail
        rnd.progress.add(src, dst, msg, len(payload))
        ep = rnd.local.get(dst)
        if ep is not None:
            ep.deliver(src, payload)
            return
        student = rnd.browsers.get(dst)
        if student is not None and student.conn is not None and dst not in rnd.dropped:
            student.conn.send_bytes(pack_ws(src, payload))

    # -- rounds ------------------------------------------------------------------------------
    async def run(self, *, rounds: int | None = None) -> None:
        """Run rounds as they are asked for (``rounds``: stop after that many)."""
        done = 0
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._lobby_pump)
            while rounds is None or done < rounds:
                self._auto_start()
                await self._start.wait()
                self._start = trio.Event()
                if not self.connected() and not self.bots:
                    continue
                await self.run_round()
                done += 1
            nursery.cancel_scope.cancel()

    def _send_progress(self, rnd: _Round) -> None:
        """The round's frames so far, to the teachers (not kept in the event log: the last
        summary is, see :meth:`on_open`)."""
        event = {"type": "progress", "run": rnd.run, "t": round(time.perf_counter() - self.t0, 3),
                 **rnd.progress.flush()}  # fmt: skip
        text = json.dumps(event)
        for conn in tuple(self.teachers):
            conn.send_text(text)

    async def _progress_pump(self, rnd: _Round) -> None:
        while True:
            await trio.sleep(PROGRESS_EVERY)
            if rnd.progress.dirty:
                self._send_progress(rnd)

    async def run_round(self) -> dict[str, Any]:
        """One round with everyone connected now; returns (and records) its outcome."""
        self._runs += 1
        run = f"class-{self._runs}-{secrets.token_hex(3)}"
        present = self.connected()
        browsers = {i + 1: s for i, s in enumerate(present)}
        try:
            keys = {i: s.vk for i, s in browsers.items()}
            extra = {} if self.choice is None else {"choice": self.choice}
            setup = self.make_round(len(browsers), self.bots, run, keys, **extra)
        except Exception as exc:  # a round the lesson refuses (e.g. too few students)
            self.emit("refused-round", why=str(exc))
            return {"ok": False, "error": str(exc)}
        codec = codec_for(tuple(setup.message_types))
        ids = frozenset({0, *browsers, *setup.roles})
        rnd = _Round(run, setup, codec, browsers, {}, budget=4 * (len(ids) + 2))
        rnd.ids = {s: pid for pid, s in browsers.items()}
        self._progress = (run, rnd.progress)
        for pid in setup.roles:
            rnd.local[pid] = LocalEndpoint(pid, ids, self._route)
        self.round = rnd
        n = len(ids) - 1
        self.emit("round", run=run, n=n, browsers={i: s.name for i, s in browsers.items()},
                  bots=sorted(p for p in setup.roles if p), public=setup.public)  # fmt: skip
        for pid, s in browsers.items():
            s.rounds += 1
            assert s.conn is not None
            # what this browser is told (a lesson's cheating server may tell each its own: public_for)
            public = setup.public_for(pid) if hasattr(setup, "public_for") else setup.public
            s.conn.send_text(json.dumps({"type": "round", "id": pid, "n": n, "run": run, **public}))
        hub = setup.roles[0]
        parties = {pid: Party(role, rnd.local[pid], step_timeout=self.step_timeout)
                   for pid, role in setup.roles.items()}  # fmt: skip
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._progress_pump, rnd)
            for pid, party in parties.items():
                if pid != 0:
                    nursery.start_soon(party.run)
            await parties[0].run()
            with trio.move_on_after(2.0):  # bots finish on the hub's last message
                while not all(r.done for r in setup.roles.values()):
                    await trio.sleep(0.02)
            nursery.cancel_scope.cancel()
        outcome = {"run": run, "n": n, "seconds": round(time.perf_counter() - rnd.started, 3),
                   "dropped": sorted(rnd.dropped), **setup.outcome(hub)}  # fmt: skip
        errors = [str(e) for e in parties[0].peer_errors]
        if errors:
            outcome["peer_errors"] = errors[:20]
        self._send_progress(rnd)  # the final counts reach the teacher before the total
        text = json.dumps({"type": "end", **outcome})
        for s in browsers.values():
            if s.conn is not None:
                s.conn.send_text(text)
        self.round = None
        self._last_round = {s.token for s in browsers.values()}
        for ep in rnd.local.values():
            ep.close()
        self.emit("end", **outcome)
        self.results.append(outcome)
        self.round_done.set()
        self.round_done = trio.Event()
        self._broadcast_lobby(now=True)
        return outcome
