"""The live room without a browser: fake connections (transports.websocket.WebConn) drive the
lobby, a round with a silent student, and the reveal after it."""

from __future__ import annotations

import json

import numpy as np
import trio

from parties.room import Room
from scenarios.classroom.live import Lesson, make_round
from transports.websocket import WebConn


def _texts(conn: WebConn) -> list[dict]:
    out = []
    while True:
        try:
            event = conn._in.receive_nowait()
        except (trio.WouldBlock, trio.EndOfChannel, trio.ClosedResourceError):
            return out
        if "text" in event:
            out.append(json.loads(event["text"]))


async def test_lobby_round_and_reveal(autojump_clock) -> None:
    room = Room(make_round(Lesson("rr-survey"), np.random.default_rng(0)), bots=1, step_timeout=0.2)
    teacher = WebConn("/ws/teacher", f"key={room.teacher_key}", 64)
    assert await room.on_open(teacher)
    assert not await room.on_open(WebConn("/ws/teacher", "key=wrong", 8))
    ann = WebConn("/ws/student", "", 64)
    assert await room.on_open(ann)
    await room.on_text(ann, json.dumps({"type": "hello", "token": "t-ann", "name": "  Ann  "}))
    assert [m["type"] for m in _texts(ann)] == ["welcome", "lobby"]
    await room.on_text(ann, json.dumps({"type": "reveal", "answer": 1}))  # before any round: refused
    out = await room.run_round()  # Ann never answers: the hub counts the bot alone
    assert out["ok"] and out["count"] == 1 and out["not_counted"] == [1]
    assert [m["type"] for m in _texts(ann)] == ["round", "end", "lobby"]
    await room.on_text(teacher, json.dumps({"type": "reveal"}))
    assert _texts(ann) == [{"type": "reveal?"}]
    await room.on_text(ann, json.dumps({"type": "reveal", "answer": 1}))
    await room.on_text(ann, json.dumps({"type": "reveal", "answer": 0}))  # a second reveal: refused
    kinds = [(e["type"], e.get("name") or e.get("who")) for e in room.events if e["type"] in ("reveal", "garbage")]
    assert kinds == [("garbage", "Ann"), ("reveal", "Ann"), ("garbage", "Ann")]
    teacher_events = [m for m in _texts(teacher) if m["type"] == "reveal"]
    assert teacher_events[0]["answer"] == 1


async def test_a_late_joiner_waits_for_the_next_round(autojump_clock) -> None:
    room = Room(make_round(Lesson("rr-survey"), np.random.default_rng(1)), bots=2, step_timeout=0.3)
    ann, bob = WebConn("/ws/student", "", 64), WebConn("/ws/student", "", 64)
    assert await room.on_open(ann)  # a silent student: the round lasts until the hub's deadline
    await room.on_text(ann, json.dumps({"type": "hello", "token": "t-ann", "name": "Ann"}))
    outcomes = []

    async def round_() -> None:
        outcomes.append(await room.run_round())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(round_)
        await trio.sleep(0.05)
        assert room.round is not None
        assert await room.on_open(bob)
        await room.on_text(bob, json.dumps({"type": "hello", "token": "t-bob", "name": "Bob"}))
        assert _texts(bob)[0] == {"type": "welcome", "name": "Bob", "waiting": True}
    assert outcomes[0]["n"] == 3  # Ann and the bots: Bob came late
    assert "round" not in [m["type"] for m in _texts(bob)]
    second = await room.run_round()
    assert second["n"] == 4 and second["not_counted"] == [1, 2]  # Bob is in (and silent)
    assert _texts(bob)[0]["type"] == "round"


async def test_a_flood_is_cut_at_the_source(autojump_clock) -> None:
    from mpc_rr.core import Codec, WireArray
    from mpc_rr.secure_sum.plainsum import PlainValue
    from transports.websocket import pack_ws

    room = Room(make_round(Lesson("rr-survey"), np.random.default_rng(2)), bots=2, step_timeout=0.3)
    ann = WebConn("/ws/student", "", 64)
    assert await room.on_open(ann)
    await room.on_text(ann, json.dumps({"type": "hello", "token": "t-ann", "name": "Ann"}))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(room.run_round)
        await trio.sleep(0.05)
        assert room.round is not None
        frame = Codec([PlainValue]).encode(PlainValue(x=WireArray.from_numpy(np.array([1, 0])), run=room.round.run))
        for _ in range(40):
            await room.on_bytes(ann, pack_ws(0, frame))
    floods = [e for e in room.events if e["type"] == "garbage" and "frames in one round" in e["what"]]
    assert len(floods) == 40 - 4 * (3 + 1 + 2) and floods[0]["who"] == "Ann"


async def test_the_newest_page_of_a_student_wins() -> None:
    """A reload whose old socket is still open, or a duplicated tab (same token): the new page is
    the student, the old one is told and closed."""
    room = Room(make_round(Lesson("rr-survey"), np.random.default_rng(3)))
    first, second = WebConn("/ws/student", "", 16), WebConn("/ws/student", "", 16)
    for conn in (first, second):
        assert await room.on_open(conn)
        await room.on_text(conn, json.dumps({"type": "hello", "token": "t", "name": "Ann"}))
    assert first.closed and {"type": "refused", "reason": "this page was opened again (reload or another tab)"} in _texts(first)
    await room.on_close(first)  # the old socket's close comes later: it changes nothing
    assert [s.conn for s in room.students.values()] == [second]
    assert [e["type"] for e in room.events if e["type"] in ("join", "rejoin", "leave")] == ["join", "rejoin"]


async def test_the_teacher_gets_a_summary_that_does_not_grow_with_the_frames() -> None:
    """A full mesh relays about 2 n^2 frames; the teacher's socket (an outbox of 64 frames) gets
    a few summaries -- the same rows (one per step and message type) at 7 and 31 parties, at
    most SAW_PER_TYPE frames of a type field by field, every party's last step -- and stays open.
    One event per frame would overflow its outbox and close it."""
    from parties.room import SAW_PER_TYPE
    from scenarios.classroom import LIVE_PROTOCOLS

    rows, frames = {}, {}
    for bots in (6, 30):
        room = Room(make_round(Lesson(LIVE_PROTOCOLS[0]), np.random.default_rng(bots)), bots=bots, step_timeout=5)
        teacher = WebConn("/ws/teacher", f"key={room.teacher_key}", 64)
        assert await room.on_open(teacher)
        out = await room.run_round()
        texts = _texts(teacher)
        assert out["ok"] and not teacher.closed
        progress = [m for m in texts if m["type"] == "progress"]
        last = progress[-1]
        assert last["frames"] == sum(r["frames"] for r in last["steps"]) >= 2 * bots * (bots - 1)
        assert len(texts) < 40  # the round's events and a few summaries
        frames[bots] = last["frames"]
        rows[bots] = [(r["step"], r["msg"]) for r in last["steps"]]
        saw = [f for m in progress for f in m["saw"]]
        assert max(sum(f["msg"] == name for f in saw) for _, name in rows[bots]) <= SAW_PER_TYPE
        moved = {k for m in progress for k in m["moved"]}
        assert moved == {str(i) for i in range(bots + 1)}  # the server and every student
        late = WebConn("/ws/teacher", f"key={room.teacher_key}", 64)  # a teacher page that reconnects
        assert await room.on_open(late)
        (snapshot,) = _texts(late)
        again = [e for e in snapshot["events"] if e["type"] == "progress"]
        assert again[-1]["moved"].keys() == moved and len(again[-1]["saw"]) == len(saw)
    assert rows[6] == rows[30] and frames[30] > 40 * 40


async def test_students_streaming_in_get_a_lobby_a_quarter_second_not_one_per_join(autojump_clock) -> None:
    """50 joins in a burst: the first student is told the lobby once at once, then once more with
    every name when the held-back broadcast is due -- not 50 times (each with every name)."""
    from parties.room import LOBBY_EVERY

    room = Room(make_round(Lesson("rr-survey"), np.random.default_rng(4)), max_students=60)
    conns = [WebConn("/ws/student", "", 256) for _ in range(50)]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(room._lobby_pump)
        for i, conn in enumerate(conns):
            assert await room.on_open(conn)
            await room.on_text(conn, json.dumps({"type": "hello", "token": f"t{i}", "name": f"s{i}"}))
        lobbies = [m for m in _texts(conns[0]) if m["type"] == "lobby"]
        assert len(lobbies) == 1
        await trio.sleep(1.5 * LOBBY_EVERY)
        lobbies = [m for m in _texts(conns[0]) if m["type"] == "lobby"]
        assert len(lobbies) == 1 and len(lobbies[0]["students"]) == 50
        nursery.cancel_scope.cancel()
