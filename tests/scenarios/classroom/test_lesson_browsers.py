"""The lessons named for their topic in a real browser: headless Chromium tabs are students (the
rest bots) of a real ``mpc-rr classroom serve``; the teacher's page drives the round.

``cheat``: the teacher picks what the server plays on the teacher page; each student page's own
checks catch it and name the server (key substitution, equivocation) or name the student the
server left out (dropping a student), and the left-out student's page says so.

``noise``: each page draws its share of Skellam noise (its sampler checked against the
library's distribution) and adds it to its answer; the projector shows the noisy total, one
answer as it entered the sum and the accountant's epsilon.

``prio3``: the simulated students vote with the library's proofs and the pages watch; the
projector and every page name the rejected votes.

A browser test costs seconds (Chromium alone starts in 2-5 s on the shared machine): all are
``-m slow``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
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
        " shown: document.getElementById('detected').innerText, alarm: window.classroom.alarm,"
        " code: window.classroom.fingerprint}")
    return out


CAUGHT = {
    "key-substitution": ("NeighborKeys", "do not carry its signature"),
    "equivocate": ("UnmaskRequest", "signed the survivor set, a quorum is"),
}


@pytest.mark.slow
@pytest.mark.parametrize("cheat", ["key-substitution", "equivocate", "drop-student", "split-roster"])
def test_every_page_catches_the_server_the_teacher_plays(driver: Any, cheat: str) -> None:
    """2 pages + 3 bots; the teacher plays ``cheat``.  Key substitution: every page shows the check
    that failed and names the server, and the round ends without a total.  Equivocation about
    party 1: party 2's page, shown the set that drops party 1, finds it signed by fewer than a
    quorum and names the server (party 1's side of the split has the quorum: no set but one can).
    Split roster: student 1's page shows the projector's class code, the other page another one,
    and its check of student 1's keys fails, naming the server.
    Dropping student 1 (the first page): the total counts the four others; the second page names
    party 1 as left out of the signed survivor set; the first says the server left it out."""
    with classroom("cheat", bots=3, step_timeout=2 if cheat == "equivocate" else 0.6, options=("A", "B")) as srv:
        close_tabs(driver)
        tabs = [open_student(driver, srv.url, f"student {i}", i, new_tab=i > 0) for i in range(2)]
        teacher = _teacher_starts(driver, srv, 2, cheat=cheat)
        wait_js(driver, "return window.teacher.result")
        projector = driver.find_element("id", "fingerprint").text
        assert f"The server played: {cheat}." in driver.find_element("id", "cheat-now").text
        pages = [_detected(driver, t) for t in tabs]
        driver.switch_to.window(teacher)
        driver.close()  # the server ends once every page is gone
        driver.switch_to.window(tabs[-1])
        out = srv.outcome()
    assert "CheatingServer" not in str(out) and "cheat" not in str(out.get("error", ""))
    if cheat == "split-roster":  # only the class codes, read aloud, and the others' checks show it
        victim, other = pages
        assert not out["ok"] or 2 in out["not_counted"], out  # the page that caught it takes no part
        assert victim["code"] == projector != other["code"]
        assert victim["found"] == [] and victim["alarm"] is None
        assert [f["type"] for f in other["found"]] == ["NeighborKeys"] and other["found"][0]["culprits"] == [0]
        assert "the keys of party 1 do not carry its signature" in other["found"][0]["what"]
    elif cheat in CAUGHT:
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


@pytest.mark.slow
def test_the_pages_skellam_sampler_matches_the_library(driver: Any) -> None:
    """noise.js's Skellam draws (Poisson by multiplication, split into pieces of rate <= 16):
    20,000 draws at variance 4 and 100 have the mean, variance and P(0) of the library's
    distribution (skellam_pmf) within 6 standard errors; a broken sampler (e.g. one Poisson
    instead of a difference, or the rate not halved) misses by far more."""
    from mpc_rr.privacy._discrete import skellam_pmf

    with classroom("noise", bots=4, options=("A", "B")) as srv:
        close_tabs(driver)
        driver.get(srv.url)
        wait_js(driver, "return !!(window.noise && window.noise.sample)")
        n = 20_000
        for v in (4.0, 100.0):
            draws = driver.execute_script("return window.noise.sample(arguments[0], arguments[1])", v, n)
            a = np.asarray(draws, np.int64)
            se_var = math.sqrt((2 * v * v + v) / n)
            p0 = float(skellam_pmf(0, v))
            assert abs(a.mean()) < 6 * math.sqrt(v / n), (v, a.mean())
            assert abs(a.var() - v) < 6 * se_var, (v, a.var())
            assert abs((a == 0).mean() - p0) < 6 * math.sqrt(p0 * (1 - p0) / n), (v, (a == 0).mean(), p0)


@pytest.mark.slow
def test_each_page_adds_its_noise_and_the_projector_shows_epsilon(driver: Any) -> None:
    """noise lesson, 2 pages + 6 bots: each page draws its noise, shows it and sends answer +
    noise + c; the total on the projector is the noisy count (within the noise's clip of the true
    one), with the accountant's epsilon for n = 8 and one bot's answer as it entered the sum."""
    from scenarios.classroom.noise_lesson import class_noise

    answers = [0, 1]
    with classroom("noise", bots=6, step_timeout=3, options=("Yes", "No")) as srv:
        close_tabs(driver)
        tabs = [open_student(driver, srv.url, f"student {i}", a, new_tab=i > 0) for i, a in enumerate(answers)]
        teacher = _teacher_starts(driver, srv, 2)
        wait_js(driver, "return window.teacher.result")
        shown = driver.find_element("id", "noise-now").text
        pages = []
        for t in tabs:
            driver.switch_to.window(t)
            wait_js(driver, "return window.classroom.result")
            pages.append((driver.execute_script("return window.noise.last"), driver.find_element("id", "coin").text))
        driver.switch_to.window(teacher)
        driver.close()
        driver.switch_to.window(tabs[0])
        out = srv.outcome()
    noise, c = class_noise(8, 2, 1.0, 0.34, 0.1)
    assert out["ok"] and out["count"] == 8, out
    assert out["epsilon"] == round(noise.epsilon, 4) and out["honest_min"] == noise.honest_min and out["offset"] == c
    true = np.bincount(answers, minlength=2) + np.asarray(out["bot_votes"])
    page_noise = sum(np.asarray(p["z"]) for p, _ in pages)
    assert np.abs(np.asarray(out["total"]) - true - page_noise).max() <= 6 * c  # the bots' noise, clipped
    for (last, coin), a in zip(pages, answers, strict=True):
        assert last["x"] == [int(a == 0), int(a == 1)] and max(map(abs, last["z"])) <= c
        assert last["entered"] == [x + z for x, z in zip(last["x"], last["z"], strict=True)]
        assert "Your noise, drawn on this device" in coin
    assert f"epsilon = {noise.epsilon:.2f}" in shown and "for this class of 8" in shown
    assert "Noisy total: Yes " in shown and "One answer as it entered the sum (simulated student" in shown


@pytest.mark.slow
def test_the_watching_pages_and_the_projector_name_the_rejected_votes(driver: Any) -> None:
    """prio3, 2 watching pages + 6 bots (the library proves: the pages do not): the projector and
    every page name simulated students 5 (a count of 5) and 6 (a double vote) as rejected; the pages
    sent no protocol frame."""
    with classroom("prio3", bots=6, step_timeout=3, options=("Yes", "No")) as srv:
        close_tabs(driver)
        tabs = [open_student(driver, srv.url, f"student {i}", None, new_tab=i > 0) for i in range(2)]
        teacher = _teacher_starts(driver, srv, 2)
        wait_js(driver, "return window.teacher.result")
        shown = driver.find_element("id", "proofs-now").text
        pages = []
        for t in tabs:
            driver.switch_to.window(t)
            wait_js(driver, "return window.classroom.result")
            pages.append((driver.find_element("id", "detected").text, driver.execute_script("return window.detect.sentTypes")))
        driver.switch_to.window(teacher)
        driver.close()
        driver.switch_to.window(tabs[0])
        out = srv.outcome()
    assert out["ok"] and [r["id"] for r in out["rejected"]] == [5, 6], out
    named = "simulated student 5 (counts 5 for one option), simulated student 6 (votes twice)"
    assert f"Rejected and named: {named}" in shown
    for text, sent in pages:
        assert f"The aggregators rejected and named: {named}" in text and sent == []
