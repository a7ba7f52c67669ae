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
