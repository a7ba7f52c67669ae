"""Every role reads as its protocol's state diagram: what ``table()`` and ``Role`` check.

A table whose states cannot all reach DONE or ABORTED is refused (naming the
stuck states); a transition declares, with ``also``, the other states its
handler may end in, and the diagram draws them; a handler that finishes where
its transition declares no way out is a usage error; every handler a table
names is a method of the role, checked when the class is created.
"""

from __future__ import annotations

import enum

import pytest

from mpc_rr.core import (
    COORDINATOR,
    AllIn,
    Deadline,
    DropAt,
    Role,
    Send,
    SubMessage,
    Transition,
    UsageError,
    run_roles,
    state_diagram,
    table,
)
from mpc_rr.core._roles import each
from mpc_rr.secure_sum.plainsum import PlainValue, make_role


class S(enum.Enum):
    OPEN = "open"
    CLOSED = "closed"
    DONE = "done"
    ABORTED = "aborted"


class Other(enum.Enum):
    X = "x"
    DONE = "done"
    ABORTED = "aborted"


def test_a_table_with_a_state_that_cannot_end_names_it() -> None:
    with pytest.raises(UsageError, match=r"transition table over S: states \['OPEN', 'CLOSED'\] cannot "
                                         r"reach DONE or ABORTED by its transitions"):  # fmt: skip
        table({
            (S.OPEN, AllIn): Transition("_close", S.CLOSED),
            (S.CLOSED, AllIn): Transition("_open", S.OPEN),  # the loop's way out is not declared
        })
    loop = table({
        (S.OPEN, AllIn): Transition("_close", S.CLOSED),
        (S.CLOSED, AllIn): Transition("_open", S.OPEN, also=(S.DONE,)),
    })
    assert state_diagram(loop) == [
        ("OPEN", "all in", "CLOSED"),
        ("CLOSED", "all in", "OPEN"),
        ("CLOSED", "all in", "DONE"),
    ]
    # a state the table never names is not its concern (another table of the same enum may use it)
    table({(S.OPEN, AllIn): Transition("_end", S.DONE)})


def test_a_table_keeps_to_one_enum_with_done_and_aborted() -> None:
    with pytest.raises(UsageError, match=r"mixes state enums \['Other', 'S'\]"):
        table({(S.OPEN, AllIn): Transition("_end", S.DONE, also=(Other.DONE,))})

    class NoEnd(enum.Enum):
        A = "a"

    with pytest.raises(UsageError, match="its State enum needs DONE and ABORTED members"):
        table({(NoEnd.A, AllIn): Transition("_stay", NoEnd.A)})
    with pytest.raises(UsageError, match="'to' and 'also' must be State enum members"):
        Transition("_end", S.DONE, also=("DONE",))  # type: ignore[arg-type]


def test_every_handler_a_table_names_is_a_method_of_the_role() -> None:
    with pytest.raises(UsageError, match=r"Typo: the transition \(OPEN, PlainValue\) names handler "
                                         r"'_on_valeu', which is not a method of Typo"):  # fmt: skip

        class Typo(Role):
            TRANSITIONS = table({(S.OPEN, PlainValue): Transition("_on_valeu", S.DONE)})

            def start(self) -> list[Send]:
                return []

            def _on_value(self, src: int, msg: PlainValue) -> list[Send]:
                return []

    with pytest.raises(UsageError, match=r"Chooser: the transition \(OPEN, deadline\) names handler '_gone'"):

        class Chooser(Role):  # the tables an instance may choose are checked too
            TABLES = (table({(S.OPEN, Deadline): Transition("_gone", S.DONE)}),)

            def start(self) -> list[Send]:
                return []


class Loop(Role):
    """Counts down through OPEN -> CLOSED -> OPEN ... and finishes when nothing is left."""

    TRANSITIONS = table({
        (S.OPEN, AllIn): Transition("_close", S.CLOSED),
        (S.CLOSED, AllIn): Transition("_open", S.OPEN, also=(S.DONE,)),
    })

    def __init__(self, rounds: int) -> None:
        super().__init__(COORDINATOR, S.CLOSED)
        self.left, self.trail = rounds, [S.CLOSED.name]

    def start(self) -> list[Send]:
        return self._check_all_in()

    def _open(self) -> list[Send]:
        self.trail.append("open")
        if self.left == 0:
            self.finish(self.trail)
        self.left -= 1
        return []

    def _close(self) -> list[Send]:
        self.trail.append("close")
        return []


class Undeclared(Loop):
    """Finishes in a transition that declares no way out."""

    def _close(self) -> list[Send]:
        self.finish("early")
        return []


def test_a_declared_loop_runs_and_an_undeclared_finish_is_a_usage_error() -> None:
    role = Loop(2)
    role.start()
    assert role.result == ["CLOSED", "open", "close", "open", "close", "open"]
    with pytest.raises(UsageError, match=r"Undeclared 0: _close finished the run, but its transition "
                                         r"leads to CLOSED; declare it: Transition\('_close', \.\.\., "
                                         r"also=\(DONE,\)\)"):  # fmt: skip
        Undeclared(1).start()


def test_each_and_state_diagram_of_a_role_or_its_class() -> None:
    entries = each((S.OPEN, S.CLOSED), SubMessage, "_pass", S.DONE)
    assert {k: t.to for k, t in entries.items()} == {(S.OPEN, SubMessage): S.DONE, (S.CLOSED, SubMessage): S.DONE}
    assert state_diagram(Loop) == state_diagram(Loop(1)) == state_diagram(Loop.TRANSITIONS)
    assert Transition("_x", S.OPEN).handler_name == "_x"


def test_a_crashed_party_is_done_without_result_or_error() -> None:
    roles = {i: make_role(i, 4, 1, {"cells": 2}) for i in range(4)}
    roles[2] = DropAt(roles[2], PlainValue)
    run_roles(roles)
    dropped = roles[2]
    assert isinstance(dropped, DropAt) and dropped.crashed and dropped.done
    assert dropped.state.name == "DONE" and dropped.result is None and dropped.error is None
    assert roles[COORDINATOR].error is not None  # the hub timed out waiting for it
    assert state_diagram(DropAt) == [
        ("RUNNING", "sub-protocol message", "RUNNING"),
        ("RUNNING", "sub-protocol message", "DONE"),
        ("RUNNING", "deadline", "RUNNING"),
        ("RUNNING", "deadline", "DONE"),
    ]
