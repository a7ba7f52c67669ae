"""What the role targets check (tests/fuzz/_checks.py), against roles that break each rule."""

from __future__ import annotations

import enum

import numpy as np
import pytest

from mpc_rr.core import Message, PeerError, Role, Send, Transition, table
from tests.fuzz._checks import check_receive
from tests.fuzz._state import difference, state_of


class Note(Message, frozen=True):
    value: int = 0


class S(enum.Enum):
    WAIT = 1
    DONE = 2
    ABORTED = 3


class Counter(Role):
    """Waits for a Note from each of parties 1 and 2; ``how`` says how it meets a bad one."""

    TRANSITIONS = table({(S.WAIT, Note): Transition("_on_note", S.WAIT, also=(S.DONE,))})
    message_types = (Note,)

    def __init__(self, how: str) -> None:
        super().__init__(0, S.WAIT)
        self.how = how
        self.waiting = {1, 2}
        self.seen = np.zeros(3, np.int64)

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> set[int]:
        return self.waiting

    def _on_note(self, src: int, msg: Note) -> list[Send]:
        if msg.value >= 0:
            self.seen[src] += msg.value
            return []
        if self.how == "changes-then-refuses":
            self.seen[src] += 1
        elif self.how == "excludes":
            self.waiting.discard(src)
        elif self.how == "blames-another":
            self.abort("bad note", culprits=[3 - src])
        elif self.how == "blames-the-sender":
            self.abort("bad note", culprits=[src])
        elif self.how == "untyped":
            raise KeyError(src)
        raise PeerError(f"a negative note from {src}", src)


@pytest.mark.parametrize("how", ["refuses", "excludes", "blames-the-sender"])
def test_a_clean_refusal_an_exclusion_and_an_abort_blaming_the_sender_pass(how: str) -> None:
    role = Counter(how)
    check_receive(role, 1, Note(value=-1))
    check_receive(role, 2, Note(value=5))  # accepted (or ignored, once aborted)
    assert role.seen[2] == (0 if how == "blames-the-sender" else 5)
    assert (role.error is not None) == (how == "blames-the-sender")


@pytest.mark.parametrize(("how", "what"), [
    ("changes-then-refuses", "changed its state at"),
    ("blames-another", r"blaming \[2\]"),
])  # fmt: skip
def test_a_refusal_that_changes_the_state_or_blames_another_party_is_a_finding(how: str, what: str) -> None:
    with pytest.raises(AssertionError, match=what):
        check_receive(Counter(how), 1, Note(value=-1))


def test_an_untyped_error_escapes() -> None:
    with pytest.raises(KeyError):
        check_receive(Counter("untyped"), 1, Note(value=-1))


def test_the_state_sees_arrays_sets_and_sharing() -> None:
    a, b = Counter("refuses"), Counter("refuses")
    assert state_of(a) == state_of(b)
    b.seen[1] = 7
    assert state_of(a) != state_of(b) and "seen" in difference(state_of(a), state_of(b))
    b.seen[1] = 0
    b.waiting = {2, 1}  # the same set, built in another order
    assert state_of(a) == state_of(b)
    shared = np.zeros(3, np.int64)
    a.seen = a.other = shared  # type: ignore[attr-defined]
    b.seen, b.other = np.zeros(3, np.int64), np.zeros(3, np.int64)  # type: ignore[attr-defined]
    assert state_of(a) != state_of(b)  # one array twice is not two arrays
