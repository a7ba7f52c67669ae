"""A full class in a real browser (``-m slow``): 30 Chromium tabs are the students of one
``mpc-rr classroom serve`` process (the command itself, as its own process)."""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np
import pytest

from scenarios.classroom import LIVE_PROTOCOLS
from tests.scenarios.classroom.browser import (
    chromium,
    classroom,
    classroom_process,
    close_tabs,
    needs_chromium,
    open_student,
    wait_js,
)

pytestmark = [pytest.mark.slow, needs_chromium]

STUDENTS = 30


@pytest.mark.parametrize("protocol", ["full-mesh", "secagg", "rr-survey"])
def test_thirty_browser_students(protocol: str) -> None:
    """30 pages join, answer, and the total is exact (full mesh, SecAgg+: the plain count of the
    answers typed here; rr-survey: every answer counted); the time from the last join to the total
    is printed (target < 10 s on the 2-core machine)."""
    rng = np.random.default_rng(30)
    answers = rng.integers(0, 3, size=STUDENTS).tolist()
    with classroom_process("--protocol", protocol, "--auto-start", str(STUDENTS), "--options", "A,B,C",
                           "--step-timeout", "30", "--max-students", str(STUDENTS)) as srv, chromium() as d:  # fmt: skip
        t_join = 0.0
        for i, a in enumerate(answers):
            open_student(d, srv.url, f"s{i:02d}", a, new_tab=i > 0)
            t_join = time.perf_counter()
        out = srv.outcome(timeout=120)
        t_total = time.perf_counter() - t_join
        seen: Any = wait_js(d, "return window.classroom.result && window.classroom.result.ok", timeout=10)
    load = os.getloadavg()[0]
    print(f"\n{protocol}: {STUDENTS} browser students, last join -> total {t_total:.2f} s "
          f"(server round {out['seconds']} s; load average {load:.1f})")  # fmt: skip
    assert out["ok"] and seen, out
    assert out["count"] == STUDENTS
    if protocol in ("full-mesh", "secagg"):
        assert out["total"] == np.bincount(answers, minlength=3).tolist()
    else:
        assert sum(out["total"]) == STUDENTS
    # the target is 10 s on an idle 2-core machine (docs/classroom.md has the measured figures and
    # the load they were taken at); this bound only catches a hang on a loaded one
    assert t_total < 60.0


@pytest.fixture(scope="module")
def driver() -> Any:
    with chromium() as d:
        yield d


def test_a_student_leaving_mid_round_aborts_the_full_mesh_naming_them(driver: Any) -> None:
    with classroom("full-mesh", auto_start=3, step_timeout=1.5) as srv:
        close_tabs(driver)
        open_student(driver, srv.url, "ann", 0, new_tab=False)
        open_student(driver, srv.url, "bob", 1)
        leaver = open_student(driver, srv.url, "cat", None)  # has not answered yet
        wait_js(driver, "return window.classroom.round !== null")
        driver.switch_to.window(leaver)
        driver.close()  # closing the tab is a real dropout
        driver.switch_to.window(driver.window_handles[0])
        out = srv.outcome()
    assert not out["ok"]
    assert out["dropped"] == [3] and 3 in out["culprits"]
    assert "dropout id=3 name=cat" in "\n".join(srv.stderr_lines)




def test_a_board_that_forges_the_shares_it_relays_is_named_by_the_browser_pages(
    driver: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 25: the board passes every share on with a zeroed ciphertext (the sender's signature
    and audit path kept); each page's share does not open, the path no longer leads to the
    sender's signed tree hash, so the page names the board alone (student.js checks it as
    FullMeshParty does)."""
    from msgspec.structs import replace

    from mpc_rr.core import Send
    from mpc_rr.secure_sum import full_mesh

    class ForgingBoard(full_mesh.BulletinBoard):
        def _release(self, src: int) -> list[Send]:
            return [Send(s.dst, replace(s.msg, ciphertext=bytes(len(s.msg.ciphertext))))
                    if isinstance(s.msg, full_mesh.MeshShare) else s for s in super()._release(src)]  # fmt: skip

    monkeypatch.setattr(full_mesh, "BulletinBoard", ForgingBoard)
    with classroom("full-mesh", bots=1, auto_start=3, step_timeout=1.5) as srv:
        seen = _two_pages_named(driver, srv.url, "return window.classroom.culprits")
        out = srv.outcome()
    assert not out["ok"]
    for culprits, errors in seen:
        assert culprits == [0] and "relayed by the board from party" in errors, (culprits, errors)


def _two_pages_named(driver: Any, url: str, read: str) -> list[tuple[Any, str]]:
    """Two student pages (ann, bob) join; once each has named someone: what ``read`` returns on
    it, and its errors."""
    close_tabs(driver)
    pages = [open_student(driver, url, "ann", 0, new_tab=False), open_student(driver, url, "bob", 1)]
    seen = []
    for page in pages:
        driver.switch_to.window(page)
        errors = wait_js(driver, "return window.classroom.culprits && window.classroom.errors.join('\\n')")
        seen.append((driver.execute_script(read), errors))
    return seen


def test_a_bot_that_signs_garbage_shares_is_named_alone_by_the_browser_pages(
    driver: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The simulated student seals random bytes instead of its shares and signs them: each page's
    share from it does not open, yet signature and path check out, so the page names the bot."""
    from mpc_rr.secure_sum import full_mesh

    class GarbageBot(full_mesh.FullMeshParty):
        def _seal(self, key: bytes, plaintext: bytes, aad: bytes) -> bytes:
            return os.urandom(len(plaintext) + 16)

    monkeypatch.setattr(full_mesh, "FullMeshParty", GarbageBot)
    with classroom("full-mesh", bots=1, auto_start=3, step_timeout=1.5) as srv:
        seen = _two_pages_named(driver, srv.url, "return [window.classroom.culprits, window.classroom.round.id]")
        out = srv.outcome()
    assert not out["ok"] and out["culprits"] == [], out  # the pages' complaint: the board names no page
    for (culprits, me), errors in seen:
        assert len(culprits) == 1 and culprits[0] not in (0, me), (culprits, errors)
        assert f"from party {culprits[0]}, signed by it (it sent garbage)" in errors, errors


@pytest.mark.parametrize("protocol", LIVE_PROTOCOLS[:2])  # the full mesh and SecAgg+
def test_a_lecture_hall_of_a_hundred_pages_and_bots(protocol: str) -> None:
    """100 students: 5 Chromium pages and 95 of the server's bots in one round; the total is exact
    (the pages' answers plus the bots'), it reaches the teacher's page, whose grid has a cell per
    student and whose DOM stays a few hundred elements while the round relays thousands of frames
    (SecAgg+: 1,200; the full mesh: about 20,000).  The time from the last join to the total on the teacher's page
    is printed (docs/classroom.md has the measured figures)."""
    pages, bots = 5, 95
    rng = np.random.default_rng(100)
    answers = rng.integers(0, 3, size=pages).tolist()
    with classroom(protocol, options=("A", "B", "C"), bots=bots, auto_start=pages + bots, max_students=pages,
                   step_timeout=60) as srv, chromium() as d:  # fmt: skip
        d.get(srv.teacher)
        teacher = d.current_window_handle
        wait_js(d, "return document.getElementById('url').textContent.length > 0")
        for i, a in enumerate(answers):
            open_student(d, srv.url, f"s{i}", a)
        t_join = time.time()
        out = srv.outcome(timeout=180)
        d.switch_to.window(teacher)
        page: Any = wait_js(d, """const r = window.teacher.result; return r && {ok: r.ok, total: r.total,
            at: window.teacher.resultAt, frames: window.teacher.frames,
            cells: document.querySelectorAll('#students > span').length,
            elements: document.getElementsByTagName('*').length}""", timeout=30)  # fmt: skip
    print(f"\n{protocol}: {pages} pages + {bots} bots, last join -> total on the teacher page "
          f"{page['at'] / 1000 - t_join:.2f} s (server round {out['seconds']} s, {page['frames']} frames, "
          f"load {os.getloadavg()[0]:.1f})")  # fmt: skip
    assert out["ok"] and page["ok"] and out["count"] == pages + bots, out
    expected = (np.bincount(answers, minlength=3) + np.asarray(out["bot_votes"])).tolist()
    assert out["total"] == page["total"] == expected
    assert page["cells"] == pages + bots
    assert page["frames"] >= 12 * (pages + bots) and page["elements"] < 1000  # secagg: 12 per student
