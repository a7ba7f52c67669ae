"""The live class in a real browser: headless Chromium tabs are the students of a real
``mpc-rr classroom serve`` process (selenium + Debian's chromium-driver).

Browser parties and the server's simulated students (the library's roles) run in one round and
give the exact total; every message type round-trips between the page's codec and the library's;
a student leaving mid-round makes the full mesh abort naming who left; garbage is rejected and
named while the class carries on; a second tab, a reload and a full class are handled.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from mpc_rr.core import Codec, WireArray
from scenarios.classroom.live import messages, wire_schema
from tests.scenarios.classroom.browser import (
    chromium,
    classroom,
    close_tabs,
    needs_chromium,
    open_student,
    wait_js,
)

# one worker starts the browser once for the module (pytest-xdist, --dist loadgroup)
pytestmark = [needs_chromium, pytest.mark.xdist_group("browser")]


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    with chromium() as d:
        yield d


def _sample(cls: type, rng: np.random.Generator) -> Any:
    """A message of type ``cls`` with every field set to a non-default value."""
    import msgspec

    values: dict[str, Any] = {}
    bounds = {f.name: f.type for f in msgspec.inspect.type_info(cls).fields}  # type: ignore[attr-defined]
    for name, kind in wire_schema((cls,))["types"][cls.__name__]["fields"]:
        if name == "v":
            continue
        t = bounds[name]
        lo = max(1, getattr(t, "ge", None) or 1)  # within the field's own bounds (e.g. an attempt <= 64)
        hi = min(2**31, (getattr(t, "le", None) or 2**31 - 1) + 1)
        values[name] = {
            "int": int(rng.integers(lo, hi)),
            "str": f"run-{rng.integers(1000)}",
            "bytes": rng.bytes(int(rng.integers(1, 80))),
            "array": WireArray.from_numpy(rng.integers(0, 200, size=(3, 4)).astype(np.uint8)),
            "array?": WireArray.from_numpy(rng.integers(0, 200, size=(2, 2)).astype(np.uint8)),
            "list<bytes>": [rng.bytes(int(rng.integers(1, 64))) for _ in range(3)],
            "list<int>": [int(v) for v in rng.integers(0, 50, 3)],
        }[kind]
    return cls(**values)


def _round_trip_every_message_type(driver: Any) -> None:
    """Each type the live class speaks: library bytes -> page decode + encode -> the same bytes,
    and a message the page builds from the schema (wire.make) decodes in the library."""
    types = tuple(dict.fromkeys(messages("full-mesh") + messages("secagg") + messages("rr-survey")))
    codec = Codec(types)
    rng = np.random.default_rng(5)
    saved = driver.execute_script("const s = window.wire.schema; window.wire.schema = arguments[0]; return s;",
                                  wire_schema(types))  # fmt: skip
    for cls in types:
        msg = _sample(cls, rng)
        data = codec.encode(msg)
        back = driver.execute_script(
            "const b = Uint8Array.from(atob(arguments[0]), c => c.charCodeAt(0));"
            "const m = wire.decode(b); const e = wire.encode(m);"
            "return btoa(String.fromCharCode(...e));",
            base64.b64encode(data).decode(),
        )
        assert base64.b64decode(back) == data, cls.__name__
        assert codec.decode(base64.b64decode(back)) == msg
    built = driver.execute_script(
        "const m = wire.make('MeshPublish', {value: wire.toArray([1, 0, 3], '|u1'), run: 'r', step: 3});"
        "return btoa(String.fromCharCode(...wire.encode(m)));"
    )
    got = codec.decode(base64.b64decode(built))
    assert got.run == "r" and got.step == 3  # type: ignore[attr-defined]
    assert got.value.to_numpy().tolist() == [1, 0, 3]  # type: ignore[attr-defined]
    refused = driver.execute_script(
        "try { wire.decode(Uint8Array.of(0x81, 0xa4, 0x74, 0x79, 0x70, 0x65, 0xa3, 0x42, 0x61, 0x64)); return '' }"
        " catch (e) { return String(e) }"
    )
    assert "unknown message type" in refused
    driver.execute_script("window.wire.schema = arguments[0]", saved)


def _signatures_match_the_library(driver: Any) -> None:
    """signing.js is the library's signed_payload and RFC 6962 tree hash: the page's Ed25519
    signature verifies in the library, the library's in the page, and one of another run, round
    or sender does not; the page's share-batch digest equals the library's."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import (
        Ed25519PrivateKey,
        Ed25519PublicKey,
    )

    from mpc_rr.secure_sum._identity import merkle_paths, signed_payload
    from mpc_rr.secure_sum.secagg._messages import share_digest

    lib = Ed25519PrivateKey.generate()
    lib_sig = lib.sign(signed_payload("secagg", "run-a", "consistency", 5, b"\x01\x02"))
    items = [bytes([i]) * (i + 1) for i in range(5)]
    out = driver.execute_async_script(
        """const [libPk, libSig, items, done] = arguments;
        (async () => {
          const sg = window.signing, h = sg.fromHex, subtle = crypto.subtle;
          const kp = await subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]);
          const pk = sg.toHex(new Uint8Array(await subtle.exportKey("raw", kp.publicKey)));
          const sig = new Uint8Array(await subtle.sign({ name: "Ed25519" }, kp.privateKey,
            sg.payload("full-mesh", "run-b", "keys", 3, Uint8Array.of(7, 7))));
          const verify = sg.verifier({ 5: libPk });
          const ok = await verify(5, h(libSig), "secagg", "run-a", "consistency", Uint8Array.of(1, 2));
          const wrong = [await verify(5, h(libSig), "secagg", "run-b", "consistency", Uint8Array.of(1, 2)),
                         await verify(5, h(libSig), "secagg", "run-a", "keys", Uint8Array.of(1, 2)),
                         await verify(4, h(libSig), "secagg", "run-a", "consistency", Uint8Array.of(1, 2))];
          const root = sg.toHex(await sg.shareDigest(sg.concat(...items.map(h))));  // SecAgg+'s signed batch
          const tree = await sg.merklePaths(items.map(h));  // the full mesh's signed shares
          done({ pk, sig: sg.toHex(sig), ok, wrong, root, treeRoot: sg.toHex(tree.root), paths: tree.paths.map(sg.toHex) });
        })().catch((e) => done({ error: String(e) }));""",
        lib.public_key().public_bytes_raw().hex(), lib_sig.hex(), [i.hex() for i in items],
    )
    assert "error" not in out, out
    assert out["ok"] is True and out["wrong"] == [False, False, False]
    page = Ed25519PublicKey.from_public_bytes(bytes.fromhex(out["pk"]))
    page.verify(bytes.fromhex(out["sig"]), signed_payload("full-mesh", "run-b", "keys", 3, b"\x07\x07"))
    assert out["root"] == share_digest(b"".join(items)).hex()
    assert out["treeRoot"] == merkle_paths(items)[0].hex()
    assert out["paths"] == [b"".join(p).hex() for p in merkle_paths(items)[1]]


def test_browsers_and_bots_give_the_exact_total(driver: Any) -> None:
    """3 browser students + 2 simulated ones in one full-mesh round: the total is the plain count
    of the answers typed here plus the bots'; the server's log holds no answer.  First, on the
    first student's page, every message type round-trips between the page and the library."""
    answers = [0, 2, 2]
    with classroom("full-mesh", bots=2, auto_start=5, options=("A", "B", "C"), step_timeout=5) as srv:
        close_tabs(driver)
        t0 = time.perf_counter()
        for i, a in enumerate(answers):
            open_student(driver, srv.url, f"student {i}", a, new_tab=i > 0)
            if i == 0:
                _round_trip_every_message_type(driver)
                _signatures_match_the_library(driver)
        out = srv.outcome()
        assert out["ok"], out
        typed = np.bincount(answers, minlength=3)
        assert out["total"] == (typed + np.array(out["bot_votes"])).tolist()
        assert out["count"] == 5 and out["dropped"] == [] and out["not_counted"] == []
        text = wait_js(driver, "return window.classroom.result && document.getElementById('result').textContent")
        assert text == "The class: " + ", ".join(f"{o}: {t}" for o, t in zip("ABC", out["total"], strict=True))
        assert time.perf_counter() - t0 < 30
    log = "\n".join(srv.stderr_lines)
    assert "msg=" not in log and "PlainValue" not in log  # the log names events, never values


def test_secagg_browsers_and_bots_recover_two_dropouts(driver: Any) -> None:
    """SecAgg+ with 5 browser students and 2 simulated ones: one student closes the tab before
    answering (a dropout at the key step), one bot crashes after sharing its keys (its masks are
    removed with the shares the browsers hold of its mask key): the total is exactly the other
    five answers."""
    answers = [0, 1, 1, 0]
    with classroom("secagg", bots=2, auto_start=7, step_timeout=1.5, drop_bot="masked") as srv:
        close_tabs(driver)
        for i, a in enumerate(answers):
            open_student(driver, srv.url, f"student {i}", a, new_tab=i > 0)
        leaver = open_student(driver, srv.url, "leaver", None)
        wait_js(driver, "return window.classroom.round !== null")
        driver.close()
        driver.switch_to.window(driver.window_handles[0])
        out = srv.outcome()
        log = wait_js(driver, "return window.classroom.result && window.classroom.log.join('\\n')")
    assert out["ok"], out
    assert leaver and out["dropped"] == [5] and out["count"] == 5 and out["not_counted"] == [5, 7]
    assert out["total"] == (np.bincount(answers, minlength=2) + np.array(out["bot_votes"])).tolist()
    assert "mask-key shares for 1 dropped" in log  # this browser helped unmask the crashed bot


def test_a_real_room_refusals_reload_and_garbage(driver: Any) -> None:
    """rr-survey, 3 seats + 2 bots: a second tab with a taken name and a fourth student are
    refused; a reload rejoins; a hostile student's garbage is rejected and named, and the round
    still ends with everyone else (the aggregator counts whoever answered by its deadline)."""
    with classroom("rr-survey", bots=2, auto_start=99, max_students=3, step_timeout=1.5, p=0.75) as srv:
        close_tabs(driver)
        open_student(driver, srv.url, "ann", 0, new_tab=False)
        bob = open_student(driver, srv.url, "bob", 1)
        driver.refresh()  # a reload: the tab keeps its token, the student rejoins
        wait_js(driver, "return window.classroom.state === 'in the lobby'")
        driver.find_elements("css selector", "#options button")[1].click()
        open_student(driver, srv.url, "ann", 1)  # a second tab with a name already in the class
        assert "already in the class" in wait_js(driver, "return document.getElementById('refused').textContent")
        driver.switch_to.window(bob)
        driver.execute_script("""
            const ws = new WebSocket('ws://' + location.host + '/ws/student');
            ws.binaryType = 'arraybuffer';
            const got = window.mallory = [];
            ws.onmessage = (e) => {
              if (typeof e.data !== 'string') return;
              const m = JSON.parse(e.data); got.push(m.type);
              if (m.type === 'round') {
                ws.send(Uint8Array.of(1, 2));                       // shorter than a peer id
                ws.send(Uint8Array.of(0, 0, 0, 0, 0xc1, 0xff));     // not msgpack
                ws.send(Uint8Array.of(0, 0, 0, 0, 0x80));           // no message type
                ws.send(wire.frame(9, wire.make('PlainValue', {x: wire.toArray([1, 0], '<i8'), run: m.run})));  // nobody's
                ws.send(wire.frame(0, wire.make('PlainValue', {x: wire.toArray([1, 0], '<i8'), run: 'old'})));  // old run
                ws.send('{"type": "start"}');                       // a student cannot start
                ws.send('not json');
                setTimeout(() => done(got), 300);
              }
            };
            ws.onopen = () => ws.send(JSON.stringify({type: 'hello', token: 'mallory-token', name: 'mallory'}));
        """)
        wait_js(driver, "return window.mallory.includes('welcome')")
        open_student(driver, srv.url, "dan", 0)
        assert "class is full" in wait_js(driver, "return document.getElementById('refused').textContent")
        driver.switch_to.new_window("tab")
        driver.get(srv.teacher)  # the teacher starts the round from the page
        wait_js(driver, "return document.getElementById('count').textContent === '3'")
        driver.find_element("id", "start").click()
        out = srv.outcome()
    log = "\n".join(srv.stderr_lines)
    assert out["ok"], out
    assert out["count"] == 4 and sum(out["total"]) == 4  # ann, bob, 2 bots; not mallory
    assert out["not_counted"] == [3]  # mallory (party 3) never sent a valid answer
    assert len(out["estimate"]) == 2 and out["p"] == 0.75
    assert "rejoin name=bob" in log
    assert log.count("garbage who=mallory") == 7
    for what in ("shorter than its 4-byte peer id", "party 9, who is not in this round", "not a lobby message",
                 "MessagePack data is malformed", "missing required field `type`", "a frame of run 'old'", "unexpected lobby message 'start'"):
        assert what in log, what
    assert "refused name=dan" in log and "refused name=ann" in log
    assert json.dumps(out)  # the outcome is plain JSON


def test_a_substituted_key_makes_its_students_page_alarm(driver: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server that hands the whole class (consistently: the same roster, the same code for
    everyone) another key for student 1 than student 1's page sent: student 1's page finds its
    own key missing from the roster, alarms and takes no part; the others show the code the
    projector shows.  Before: no page checked the roster, so such a server could speak for
    student 1 to the others unseen."""
    import secrets

    import scenarios.classroom.serve as serve_module
    from scenarios.classroom.fingerprint import roster_fingerprint

    honest = serve_module.make_round

    def substituting(lesson: Any, rng: Any) -> Any:
        build = honest(lesson, rng)

        def hostile(browsers: int, bots: int, run: str, keys: Any = None) -> Any:
            setup = build(browsers, bots, run, keys)
            setup.public["roster"]["1"] = secrets.token_bytes(32).hex()  # not student 1's key
            setup.public["fingerprint"] = roster_fingerprint(setup.public["roster"])
            return setup

        return hostile

    monkeypatch.setattr(serve_module, "make_round", substituting)
    with classroom("full-mesh", bots=2, auto_start=4, options=("A", "B"), step_timeout=3) as srv:
        close_tabs(driver)
        victim = open_student(driver, srv.url, "student 0", 0, new_tab=False)
        other = open_student(driver, srv.url, "student 1", 1)
        driver.switch_to.window(victim)
        alarm = wait_js(driver, "return window.classroom.alarm")
        assert "a key for you (party 1) that is not this page's" in alarm
        assert "Do not trust this round" in driver.find_element("id", "alarm").text
        driver.switch_to.window(other)
        fp = wait_js(driver, "return window.classroom.fingerprint")
        assert driver.execute_script("return window.classroom.alarm") is None
        assert fp in driver.find_element("id", "fingerprint").text
        assert fp == driver.execute_script("return window.classroom.round.fingerprint")  # the server's
        out = srv.outcome()
        assert not out["ok"], out  # the full mesh cannot finish without student 1, who took no part


def test_the_teacher_page_stays_small_as_the_frames_grow(driver: Any) -> None:
    """The teacher's page after a full-mesh round of 5 and of 25 parties (about 2 n^2 frames: 60
    and 1,300): one grid cell per party, the same table rows (one per step and message type), at most
    SAW_PER_TYPE frames of a type field by field -- its DOM grows with the class, not with the
    frames -- and it shows every frame counted and the total."""
    from parties.room import SAW_PER_TYPE
    from scenarios.classroom import LIVE_PROTOCOLS

    seen = {}
    for bots in (5, 25):
        with classroom(LIVE_PROTOCOLS[0], bots=bots) as srv:  # the full mesh
            close_tabs(driver)
            driver.get(srv.teacher)
            wait_js(driver, "return document.getElementById('url').textContent.length > 0")
            driver.find_element("id", "start").click()
            out = srv.outcome()
            seen[bots] = wait_js(driver, """const r = window.teacher.result; return r && {
                ok: r.ok, frames: window.teacher.frames, shown: document.getElementById('nmsg').textContent,
                cells: document.querySelectorAll('#students > span').length,
                rows: Array.from(document.querySelectorAll('#steps tr'), (tr) => tr.cells[1].textContent),
                saw: Array.from(document.querySelectorAll('#saw b'), (b) => b.textContent.split(' ')[0]),
                elements: document.getElementsByTagName('*').length}""")
        page = seen[bots]
        assert out["ok"] and page["ok"] and page["cells"] == bots
        assert page["frames"] >= 2 * bots * (bots - 1) and page["shown"] == f"{page['frames']:,}"
        assert max(page["saw"].count(name) for name in page["rows"]) <= SAW_PER_TYPE
    small, large = seen[5], seen[25]
    assert small["rows"] == large["rows"]
    assert large["elements"] - small["elements"] <= (25 - 5) + SAW_PER_TYPE * len(large["rows"]) < large["frames"] / 10
