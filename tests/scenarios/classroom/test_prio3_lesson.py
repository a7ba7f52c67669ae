"""The ``prio3`` lesson's trace: golden per seed; the parties that vote twice or count 5 are
rejected and named, and the count is the honest votes'."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

import scenarios.classroom.prio3_lesson as prio3_lesson
from scenarios.classroom import make_trace
from scenarios.cli import main

GOLDEN = Path(__file__).parent / "golden"


def test_prio3_trace_is_golden_per_seed(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["classroom", "prio3", "--parties", "5", "--seed", "2"])
    out = capsys.readouterr().out
    path = GOLDEN / "prio3-5.txt"
    if os.environ.get("MPC_RR_UPDATE_GOLDEN"):
        path.write_text(out)
    assert out == path.read_text(), f"{path.name} changed (MPC_RR_UPDATE_GOLDEN=1 to accept)"
    assert code == 0


@pytest.mark.parametrize("n", [4, 6])
def test_a_double_vote_and_a_count_of_five_are_rejected_and_named(n: int) -> None:
    t = make_trace("prio3", n, seed=3)
    x = np.asarray(t.extra["inputs"])
    bad = sorted(int(i) for i in t.extra["cheaters"])
    assert bad == ([n] if n < 5 else [n - 1, n])
    honest = [i for i in range(1, n + 1) if i not in bad]
    assert t.ok
    assert t.check[0].startswith("rejected and named: ") and all(f"P{i} (" in t.check[0] for i in bad)
    assert f"inputs included: P{', P'.join(map(str, honest))}" in t.check
    assert any(str(x[np.asarray(honest) - 1].sum(axis=0).tolist()).replace(",", "") in c for c in t.check)
    totals = [m for m in t.messages if m.type == "Prio3Total"]
    assert totals and all(dict(m.values)["rejected"] == str(bad).replace(",", "") for m in totals)


def test_the_check_fails_when_a_cheater_slips_through(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 'cheater' that submits a valid one-hot vote is counted: the lesson's check says so."""
    monkeypatch.setattr(prio3_lesson, "cheaters", lambda n, k: {n: ("votes twice", [1] + [0] * (k - 1))})
    t = make_trace("prio3", 4, seed=3)
    assert not t.ok and t.check[0] == "rejected and named: nobody"


def test_the_live_round_rejects_and_names_the_bots_that_cheat() -> None:
    """``classroom serve --protocol prio3``: the bots vote with the library's proofs (the pages
    watch); the room's round ends with the double vote and the count of 5 rejected and named."""
    import trio

    from parties.room import Room
    from scenarios.classroom.live import Lesson, make_round, messages

    room = Room(make_round(Lesson("prio3", options=("A", "B", "C")), np.random.default_rng(5)), bots=6, step_timeout=2)
    out = trio.run(room.run_round)
    assert out["ok"], out
    assert [r["id"] for r in out["rejected"]] == [5, 6] and out["count"] == 4
    assert {r["why"] for r in out["rejected"]} == {"votes twice", "counts 5 for one option"}
    assert out["total"] == out["bot_votes"]  # the honest bots' votes, exactly
    assert messages("prio3") == ()  # the pages speak nothing: they do not prove
