"""Adding a protocol touches no command: a toy sum protocol defined and registered in this file
alone runs through ``mpc-rr secure-sum``, a scenario kind, ``classroom`` and ``attack eavesdrop``.

The toy is a plaintext sum with a scale option: every client sends ``scale * x``
to the hub, which divides the total back.  Its class gives its roles, messages,
steps and options, and the adversary's input recovery is registered for it --
all below -- and nothing else in the code base is edited to run it.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import msgspec
import numpy as np
import pytest
from msgspec import Meta

from mpc_rr.adversary import attacked, register_attacks, unregister_attacks
from mpc_rr.adversary._recovery import Recovery
from mpc_rr.core import (
    COORDINATOR,
    AllIn,
    Message,
    PeerError,
    Role,
    Send,
    Transition,
    WireArray,
    get_protocol,
    protocol_names,
    register_protocol,
    table,
    unregister_protocol,
)
from mpc_rr.core._roles import NOBODY, ONLY_COORDINATOR, broadcast
from mpc_rr.core._views import View
from mpc_rr.secure_sum import SumProtocol, SumResult, sum_protocol_names
from scenarios.cli import main

NAME = "toy-sum"


class ToyValue(Message, frozen=True):
    """A client's scaled vector, to the hub."""

    y: WireArray


class ToyTotal(Message, frozen=True):
    """The hub's total, back to every client."""

    total: WireArray


class ToyOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    scale: Annotated[int, Meta(ge=1, le=1000, description="every client multiplies its vector by it")] = 1


@dataclass(frozen=True)
class ToyPublic:
    n: int
    cells: int
    run: str
    scale: int

    def as_json(self) -> dict[str, Any]:
        return {"n": self.n, "cells": self.cells, "scale": self.scale}


class _S(enum.Enum):
    WAITING = "waiting"
    DONE = "done"
    ABORTED = "aborted"


class ToyClient(Role):
    message_types = (ToyTotal,)
    patience = 3

    def __init__(self, pid: int, pub: ToyPublic, x: np.ndarray) -> None:
        super().__init__(pid, _S.WAITING)
        self.pub, self.x, self.run = pub, np.asarray(x, np.int64), pub.run

    def start(self) -> list[Send]:
        y = WireArray.from_numpy(self.pub.scale * self.x)
        return [Send(COORDINATOR, ToyValue(y=y, run=self.run))]

    def waiting_for(self) -> frozenset[int]:
        return NOBODY if self.done else ONLY_COORDINATOR

    def _on_total(self, src: int, msg: ToyTotal) -> list[Send]:
        self.finish(SumResult(msg.total.to_numpy(dtype=np.int64), (), -1, 0))
        return []

    TRANSITIONS = table({(_S.WAITING, ToyTotal): Transition("_on_total", _S.DONE)})


class ToyHub(Role):
    message_types = (ToyValue,)

    def __init__(self, pub: ToyPublic) -> None:
        super().__init__(COORDINATOR, _S.WAITING)
        self.pub, self.run = pub, pub.run
        self._missing = set(range(1, pub.n + 1))
        self._sum = np.zeros(pub.cells, np.int64)

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> set[int]:
        return set() if self.done else self._missing

    def _on_value(self, src: int, msg: ToyValue) -> list[Send]:
        if src not in self._missing:
            raise PeerError(f"{self.name}: unexpected ToyValue from party {src}", src)
        self._sum += msg.y.to_numpy(dtype=np.int64, shape=(self.pub.cells,), sender=src)
        self._missing.discard(src)
        return []

    def _publish(self) -> list[Send]:
        total = self._sum // self.pub.scale
        self.finish(SumResult(total, tuple(range(1, self.pub.n + 1)), self.pub.n, 0))
        return broadcast(range(1, self.pub.n + 1), ToyTotal(total=WireArray.from_numpy(total), run=self.run))

    TRANSITIONS = table({
        (_S.WAITING, ToyValue): Transition("_on_value", _S.WAITING),
        (_S.WAITING, AllIn): Transition("_publish", _S.DONE),
    })


def toy_public(n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> ToyPublic:
    return ToyPublic(n, cells, run, options.scale if options is not None else 1)


def toy_role(pid: int, pub: ToyPublic, x: np.ndarray | None, *, entropy: object = None) -> Role:
    return ToyHub(pub) if pid == COORDINATOR else ToyClient(pid, pub, np.asarray(x))


def recover_toy(view: View, members: object = (), *, public: Any = None, **_: Any) -> Recovery:
    """The hub reads every scaled vector: the hot cell is where it is non-zero."""
    got = {s.src: int(np.argmax(m.y.to_numpy())) for s, m in view.select(ToyValue)}
    return Recovery(NAME, view.observer, (), got, 0, None, None)


class ToySum(SumProtocol):
    """A plaintext sum with a scale option, registered by a test file."""

    name = NAME
    summary = "a plaintext sum with a scale option, registered by a test file"
    steps = ("value",)
    options = ToyOptions

    def public(self, n: int, cells: int, *, run: str, max_value: int = 1, options: Any = None) -> ToyPublic:
        return toy_public(n, cells, run=run, max_value=max_value, options=options)

    def role(self, party_id: int, public: Any, x: Any, *, entropy: Any = None, identity: Any = None) -> Role:
        return toy_role(party_id, public, x, entropy=entropy)

    def message_types(self) -> tuple[type[Message], ...]:
        return (ToyValue, ToyTotal)

    def step_messages(self) -> dict[str, type[Message]]:
        return {"value": ToyValue}

    def message_count(self, n: int, options: Any) -> int:
        return 2 * n

    def memory_estimate(self, n: int, cells: int, options: Any) -> int:
        return 24 * n * cells


TOY = ToySum()


@pytest.fixture
def toy() -> Iterator[str]:
    register_protocol(TOY, replace=True)
    register_attacks(NAME, recover=recover_toy)  # the adversary's part, registered by its owner
    yield NAME
    unregister_protocol(NAME)
    unregister_attacks(NAME)


def test_the_toy_is_a_registered_sum_protocol(toy: str) -> None:
    assert toy in protocol_names() and toy in protocol_names(family="sum") and toy in sum_protocol_names()
    assert get_protocol(toy) is TOY
    assert toy in attacked("recover")


def test_secure_sum_runs_it_with_its_own_option_flag(toy: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["secure-sum", "--protocol", toy, "--parties", "12", "--cells", "5", "--workers", "1",
            "--scale", "7", "--json"]  # fmt: skip
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["protocol"] == toy and out["exact"] and out["survivors"] == 12
    assert out["params"]["scale"] == 7 and out["messages"] == 24
    # its option is refused for another protocol, naming the one that has it
    assert main(["secure-sum", "--protocol", "secagg", "--parties", "5", "--scale", "2"]) == 2
    assert "--scale only apply to --protocol toy-sum" in capsys.readouterr().err


def test_a_scenario_kind_runs_it(toy: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    study = tmp_path / "toy.toml"
    study.write_text(
        f'[scenario]\nname = "toy"\nseed = 3\nrepeats = 2\nmetrics = ["exact", "messages"]\n\n'
        f'[protocol]\nkind = "secure-sum"\nprotocol = "{toy}"\ntransport = "harness"\ncells = 4\n\n'
        f'[protocol.options]\nscale = 3\n\n[grid]\nparties = [6, 9]\n'
    )
    db = tmp_path / "r.db"
    assert main(["scenario", "run", str(study), "--store", str(db), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["results", "export", "--json", "--store", str(db)]) == 0
    runs = json.loads(capsys.readouterr().out)
    rows = runs["runs"] if isinstance(runs, dict) else runs
    assert len(rows) == 4
    assert all(r["metrics"]["exact"] for r in rows)
    assert sorted(r["metrics"]["messages"] for r in rows) == [12, 12, 18, 18]


def test_the_classroom_teaches_it(toy: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["classroom", toy, "--parties", "4", "--seed", "2", "--format", "json"]) == 0
    trace = json.loads(capsys.readouterr().out)
    sent = [i for i in trace["items"] if i["kind"] == "message"]
    assert [i["type"] for i in sent] == ["ToyValue"] * 4 + ["ToyTotal"] * 4
    assert trace["ok"] and any("== plain count: OK" in line for line in trace["check"])
    # a dropout at its one step: the hub waits, then aborts naming the silent party
    assert main(["classroom", toy, "--parties", "4", "--drop", "2@value"]) == 1
    assert "timed out waiting for parties [2]" in capsys.readouterr().out


def test_the_eavesdropper_attacks_it(toy: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["attack", "eavesdrop", "--protocol", toy, "--parties", "10", "--transport", "memory",
            "--json", "--no-plot", "--permutations", "20"]  # fmt: skip
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["protocol"] == toy and out["headline"] == "content"
    assert out["content"]["recovered"] == 10 and out["success"] == 1.0  # a plaintext sum leaks it all
