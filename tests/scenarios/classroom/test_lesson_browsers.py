"""The lessons named for their topic in a real browser: headless Chromium tabs are students (the
rest bots) of a real ``mpc-rr classroom serve``; the teacher's page drives the round.

``cheat``: the teacher picks what the server plays on the teacher page; each student page's own
checks catch it and name the server (key substitution, equivocation) or name the student the
server left out (dropping a student), and the left-out student's page says so.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.scenarios.classroom.browser import (
    chromium,
    classroom,
    close_tabs,
    needs_chromium,
    open_student,
    wait_js,
)

pytestmark = [needs_chromium, pytest.mark.xdist_group("browser")]


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    with chromium() as d:
        yield d


def _teacher_starts(driver: Any, srv: Any, students: int, **choice: str) -> str:
    """Open the teacher page, wait for the class, pick (a <select> by id -> value), start."""
    from selenium.webdriver.support.ui import Select

    driver.switch_to.new_window("tab")
    driver.get(srv.teacher)
    wait_js(driver, f"return document.getElementById('count').textContent === '{students}'")
    for sel, value in choice.items():
        wait_js(driver, f"return document.getElementById('{sel}')")
        Select(driver.find_element("id", sel)).select_by_value(value)
    driver.find_element("id", "start").click()
    handle: str = driver.current_window_handle
    return handle


def _detected(driver: Any, tab: str) -> dict[str, Any]:
    driver.switch_to.window(tab)
    wait_js(driver, "return window.classroom.result")  # the round's end reached this page
    out: dict[str, Any] = driver.execute_script(
        "return {found: window.detect.found, leftOut: window.detect.leftOut, excluded: window.detect.excluded,"
        " shown: document.getElementById('detected').innerText, alarm: window.classroom.alarm}")
    return out


CAUGHT = {
    "key-substitution": ("NeighborKeys", "do not carry its signature"),
    "equivocate": ("UnmaskRequest", "signed the survivor set, a quorum is"),
}


@pytest.mark.parametrize("cheat", [  # the default tier runs one; -m slow the others
    "key-substitution", pytest.param("equivocate", marks=pytest.mark.slow),
    pytest.param("drop-student", marks=pytest.mark.slow),
])  # fmt: skip
def test_every_page_catches_the_server_the_teacher_plays(driver: Any, cheat: str) -> None:
    """2 pages + 3 bots; the teacher plays ``cheat``.  Key substitution: every page shows the check
    that failed and names the server, and the round ends without a total.  Equivocation about
    party 1: party 2's page, shown the set that drops party 1, finds it signed by fewer than a
    quorum and names the server (party 1's side of the split has the quorum: no set but one can).
    Dropping student 1 (the first page): the total counts the four others; the second page names
    party 1 as left out of the signed survivor set; the first says the server left it out."""
    with classroom("cheat", bots=3, step_timeout=0.6 if cheat == "key-substitution" else 2, options=("A", "B")) as srv:
        close_tabs(driver)
        tabs = [open_student(driver, srv.url, f"student {i}", i, new_tab=i > 0) for i in range(2)]
        teacher = _teacher_starts(driver, srv, 2, cheat=cheat)
        wait_js(driver, "return window.teacher.result")
        assert f"The server played: {cheat}." in driver.find_element("id", "cheat-now").text
        pages = [_detected(driver, t) for t in tabs]
        driver.switch_to.window(teacher)
        driver.close()  # the server ends once every page is gone
        driver.switch_to.window(tabs[-1])
        out = srv.outcome()
    assert "CheatingServer" not in str(out) and "cheat" not in str(out.get("error", ""))
    if cheat in CAUGHT:
        where, what = CAUGHT[cheat]
        assert not out["ok"], out
        if cheat == "equivocate":  # party 1 and half its neighbours were shown the set with a quorum:
            victim, pages = pages[0], pages[1:]  # party 2 was shown the other set, signed by too few
            assert victim["found"] == [] and victim["shown"] == ""
        for page in pages:
            assert [f["type"] for f in page["found"]] == [where], page
            assert what in page["found"][0]["what"] and page["found"][0]["culprits"] == [0]
            assert "This page caught the server cheating" in page["shown"]
            assert "It names: the server (party 0)" in page["shown"]
    else:
        assert out["ok"] and out["count"] == 4 and out["not_counted"] == [1], out
        victim, other = pages
        assert victim["found"] == [] and victim["leftOut"] == []
        assert "The server left this page out of the sum" in victim["shown"] and "you are party 1" in victim["shown"]
        assert other["found"] == [] and other["excluded"] is None and other["leftOut"] == [1]
        assert "The signed survivor set leaves out: party 1" in other["shown"]


@pytest.mark.slow
def test_an_honest_round_of_the_cheat_lesson_catches_nothing(driver: Any) -> None:
    """The same pages with the server playing fair: nothing is caught, nobody left out, the total
    counts everyone (the checks above are not alarms that always ring)."""
    with classroom("cheat", bots=3, step_timeout=3, options=("A", "B")) as srv:
        close_tabs(driver)
        tabs = [open_student(driver, srv.url, f"student {i}", i, new_tab=i > 0) for i in range(2)]
        _teacher_starts(driver, srv, 2, cheat="honest")
        out = srv.outcome()
        pages = [_detected(driver, t) for t in tabs]
    assert out["ok"] and out["count"] == 5, out
    for page in pages:
        assert page["found"] == [] and page["leftOut"] == [] and page["excluded"] is None and page["shown"] == ""
