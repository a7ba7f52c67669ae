"""The ``cheat`` lesson without a browser: its traces (golden, per seed), the dropping server,
and the live round the teacher's pick builds.  The pages' side: ``test_lesson_browsers.py``."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from mpc_rr.core import COORDINATOR, UsageError
from mpc_rr.secure_sum.secagg import SecAggServer
from scenarios.classroom import classroom_protocols, lesson_protocol, make_trace, steps_of
from scenarios.classroom.cheats import CHEATS, DroppingServer
from scenarios.classroom.lesson import vec
from scenarios.classroom.live import Lesson, make_round, messages, pages
from scenarios.classroom.render import text
from scenarios.cli import main

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("cheat", sorted(CHEATS))
def test_cheat_trace_is_golden_per_seed(cheat: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["classroom", "cheat", "--parties", "5", "--seed", "2", "--cheat", cheat])
    out = capsys.readouterr().out
    path = GOLDEN / f"cheat-5-{cheat}.txt"
    if os.environ.get("MPC_RR_UPDATE_GOLDEN"):
        path.write_text(out)
    assert out == path.read_text(), f"{path.name} changed (MPC_RR_UPDATE_GOLDEN=1 to accept)"
    assert code == 0
    assert out.startswith(f"mpc-rr classroom cheat: The class catches a cheating server ({cheat})")


def test_key_substitution_and_equivocation_are_caught_by_the_parties_naming_the_server() -> None:
    for cheat, where in (("key-substitution", "bad NeighborKeys"), ("equivocate", "bad UnmaskRequest")):
        t = make_trace("cheat", 5, seed=4, cheat=cheat)
        caught = [c for c in t.check if " caught it: " in c]
        assert t.ok and caught and all(where in c for c in caught), (cheat, t.check)
        assert t.check[-1] == "inputs the aggregator recovered: 0"
        assert "CheatingServer" not in text(t)  # it never names its own class


def test_a_dropped_student_is_left_out_of_an_exact_sum_and_only_it_was_not_asked() -> None:
    t = make_trace("cheat", 5, seed=4, cheat="drop-student")
    x = np.asarray(t.extra["inputs"])
    assert t.ok
    assert "the signed survivor set: P2, P3, P4, P5 -- P1 is left out" in t.check
    assert f"the count {vec(x[1:].sum(axis=0))} == the plain count of the others" in " ".join(t.check)
    asked = {m.dst for m in t.messages if m.type == "UnmaskRequest"}
    assert asked == {2, 3, 4, 5}  # P1 sent its masked input and was never shown the set
    assert 1 in {m.src for m in t.messages if m.type == "MaskedInput"}


def test_an_honest_server_in_the_same_run_includes_everyone() -> None:
    """The check can fail: the dropping server's verdict holds only because it dropped P1."""
    t = make_trace("secagg", 5, seed=4)
    assert t.ok and "inputs included: P1, P2, P3, P4, P5" in t.check


def test_the_cheat_lesson_is_registered_as_a_topic_of_secagg() -> None:
    assert "cheat" in classroom_protocols()
    assert lesson_protocol("cheat") == lesson_protocol(SecAggServer.__module__ and "secagg")
    assert steps_of("cheat") == steps_of("secagg")


def test_bad_cheats_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classroom", "cheat", "--cheat", "replay"]) == 2
    assert "--cheat must be one of key-substitution, equivocate, drop-student" in capsys.readouterr().err
    build = make_round(Lesson("cheat"), np.random.default_rng(0))
    with pytest.raises(UsageError, match="can play honest, key-substitution, equivocate, drop-student or split-roster"):
        build(0, 5, "r", {}, choice="forge-shares")


@pytest.mark.parametrize("choice", [None, "honest", *CHEATS])
def test_the_live_round_runs_the_server_the_teacher_picked(choice: str | None) -> None:
    build = make_round(Lesson("cheat", seed=3), np.random.default_rng(3))
    setup = build(0, 5, "run-1", {}, choice=choice)
    server = setup.roles[COORDINATOR]
    assert isinstance(server, SecAggServer)
    assert setup.public["protocol"] == "secagg"  # the pages run SecAgg+ ...
    assert "cheat" not in setup.public and choice not in setup.public.values()  # ... and are not told the cheat
    assert server.name == "SecAggServer 0"
    assert (type(server) is SecAggServer) == (choice in (None, "honest"))
    assert isinstance(server, DroppingServer) == (choice == "drop-student")
    assert getattr(server, "strategy", choice if choice in ("key-substitution", "equivocate") else None) == (
        choice if choice in ("key-substitution", "equivocate") else None)
    assert messages("cheat") == messages("secagg")


def test_the_teacher_page_lists_the_strategies() -> None:
    import json

    info = json.loads(pages(Lesson("cheat"), "http://x/")["/lesson.json"][0])
    assert info["lesson"] == "cheat" and info["runs"] == "secagg"
    assert list(info["cheats"]) == ["honest", *CHEATS, "split-roster"]


def test_a_split_roster_tells_student_1_the_truth_and_the_others_another_class() -> None:
    """The live-only cheat: every page but student 1's gets a roster whose key for student 1 is
    not the one student 1's page sent, and the class code of that roster."""
    build = make_round(Lesson("cheat", seed=3), np.random.default_rng(3))
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    keys = {i: Ed25519PrivateKey.generate().public_key().public_bytes_raw() for i in (1, 2, 3)}
    setup = build(3, 2, "run-1", keys, choice="split-roster")
    mine, theirs = setup.public_for(1), setup.public_for(2)
    assert mine is setup.public and setup.public_for(3) is theirs
    assert mine["roster"]["1"] == keys[1].hex() != theirs["roster"]["1"]
    assert {k: v for k, v in mine["roster"].items() if k != "1"} == {k: v for k, v in theirs["roster"].items() if k != "1"}
    assert mine["fingerprint"] != theirs["fingerprint"]
    assert type(setup.roles[COORDINATOR]) is SecAggServer  # the server itself plays the protocol honestly
