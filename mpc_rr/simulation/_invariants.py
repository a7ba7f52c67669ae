"""The invariants every simulated run must keep, and what breaking one looks like.

Checked by :func:`~mpc_rr.simulation.run_schedule` (a result as soon as its party ends,
the step bound after every step, the rest when the run is over) and by the memory
transport's runner on the same roles:

* ``wrong-total`` -- an honest party's total is not the exact sum of the inputs it says
  it counted (checked when none of those is Byzantine: a Byzantine party's input is
  whatever it sent);
* ``disagreement`` -- an honest party 0 and an honest data party finished with different
  totals;
* ``blamed-honest`` -- an honest party aborted naming (as culprit, or as a suspect group
  without a faulty member) a party the schedule left fault-free (party 0 excepted once it
  stopped: a data party may name the coordinator that went quiet);
* ``silent-abort`` -- an honest party 0 aborted naming nobody while the schedule made
  someone faulty (a data party may relay party 0's abort), or an honest party aborted (or never finished) while it made nobody faulty;
* ``leak`` -- the input-recovery attack registered for the protocol
  (:func:`~mpc_rr.adversary.recover`) determines an honest party's input from party 0's
  view (for a protocol without party 0: from everything the relaying hub carried), or a
  cheating party 0 (a :class:`~mpc_rr.simulation.Cheat`) computed one (its ``learned``);
* ``livelock`` -- the run needs more deliveries and deadlines than the bound (every
  party must end within it);
* ``over-budget`` -- honest parties sent more messages than the protocol's cost model
  (:meth:`~mpc_rr.secure_sum.SumProtocol.message_count`) allows, beyond one complaint or
  abort notice per party;
* ``exception`` -- a role raised something other than a typed peer error.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.core import COORDINATOR, Role, Transcript, observe
from mpc_rr.core._errors import RELAY
from mpc_rr.secure_sum import SumResult
from mpc_rr.simulation._schedule import Schedule
from mpc_rr.simulation._target import SimTarget

__all__ = ["KINDS", "PartyEnd", "Violation", "check_result", "check_run", "party_end", "step_bound"]

KINDS = ("wrong-total", "disagreement", "blamed-honest", "silent-abort", "leak", "livelock",
         "over-budget", "exception")  # fmt: skip


@dataclass(frozen=True, order=True)
class Violation:
    """One broken invariant: its kind (:data:`KINDS`), the party it concerns, what happened."""

    kind: str
    party: int
    detail: str

    def __str__(self) -> str:
        return f"{self.kind} (party {self.party}): {self.detail}"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "party": self.party, "detail": self.detail}


@dataclass(frozen=True)
class PartyEnd:
    """How one party ended: ``result`` (its total, whom it counted), ``abort`` (whom it named),
    ``crashed`` or ``unfinished``."""

    party: int
    status: str
    total: tuple[int, ...] = ()
    included: tuple[int, ...] = ()
    named: tuple[int, ...] = ()

    def __str__(self) -> str:
        if self.status == "result":
            return f"party {self.party}: total {list(self.total)} over {list(self.included) or 'unstated'}"
        if self.status == "abort":
            return f"party {self.party}: aborted naming {list(self.named)}"
        return f"party {self.party}: {self.status}"


def party_end(pid: int, role: Role, failed: Iterable[int] = ()) -> PartyEnd:
    """``role``'s end (``failed``: parties whose role raised an untyped exception)."""
    if pid in set(failed):
        return PartyEnd(pid, "exception")
    if getattr(role, "crashed", False):
        return PartyEnd(pid, "crashed")
    if not role.done:
        return PartyEnd(pid, "unfinished")
    err = role.error
    if err is not None:
        named = {int(c) for c in err.culprits} | {int(c) for g in err.suspects for c in g}
        return PartyEnd(pid, "abort", named=tuple(sorted(named)))
    res = role.result
    if isinstance(res, SumResult):
        total = tuple(int(v) for v in np.asarray(res.total, dtype=np.int64).ravel())
        return PartyEnd(pid, "result", total, tuple(int(i) for i in res.included))
    return PartyEnd(pid, "result")


def step_bound(target: SimTarget) -> int:
    """Deliveries plus deadlines a run may take: ten times the fault-free run's messages
    (duplicates, replays) plus twenty deadlines per party."""
    return 10 * target.messages + 20 * (target.parties + 1)


def check_result(schedule: Schedule, target: SimTarget, end: PartyEnd) -> list[Violation]:
    """``wrong-total`` for one finished honest party."""
    if end.status != "result" or end.party in schedule.byzantine or not end.included:
        return []
    if set(end.included) & set(schedule.byzantine):
        return []
    bad = [i for i in end.included if not 1 <= i <= target.parties]
    if bad:
        return [Violation("wrong-total", end.party, f"counts parties {bad} that do not exist")]
    want = tuple(int(v) for v in target.inputs[np.asarray(end.included) - 1].sum(axis=0, dtype=np.int64))
    if end.total != want:
        return [Violation("wrong-total", end.party,
                          f"total {list(end.total)} is not the sum {list(want)} of parties {list(end.included)}")]  # fmt: skip
    return []


def _blame(schedule: Schedule, ends: Mapping[int, PartyEnd], roles: Mapping[int, Role]) -> list[Violation]:
    faulty = schedule.faulty()
    # who knows who failed: party 0 when it takes part (a data party may only relay its abort,
    # or name party 0 once it stopped)
    judge = COORDINATOR if COORDINATOR in ends else None
    stopped = judge is not None and ends[COORDINATOR].status in ("abort", "crashed", "exception")
    excused = faulty | ({COORDINATOR} if stopped else set())
    out = []
    for pid, end in ends.items():
        if pid in schedule.byzantine:
            continue
        if end.status == "abort":
            err = roles[pid].error
            assert err is not None
            culprits = {int(c) for c in err.culprits}
            wrong = sorted(c for c in culprits if c not in excused and c != pid)
            wrong += sorted({c for g in err.suspects if not set(g) & (excused | {RELAY}) for c in g})
            if wrong:
                out.append(Violation("blamed-honest", pid, f"aborted naming fault-free parties {wrong}: {err}"))
        if not faulty and end.status in ("abort", "unfinished"):
            out.append(Violation("silent-abort", pid, f"{end.status} in a run without faults"))
    return out


def _agreement(schedule: Schedule, target: SimTarget, ends: Mapping[int, PartyEnd]) -> list[Violation]:
    if target.coordinator() is None or COORDINATOR in schedule.byzantine:
        return []
    head = ends.get(COORDINATOR)
    if head is None or head.status != "result" or not head.total:
        return []
    return [Violation("disagreement", pid, f"total {list(e.total)}, party 0's {list(head.total)}")
            for pid, e in ends.items()
            if pid != COORDINATOR and pid not in schedule.byzantine and e.status == "result"
            and e.total and e.total != head.total]  # fmt: skip


def _learned(schedule: Schedule, target: SimTarget, roles: Mapping[int, Role]) -> list[Violation]:
    """What a cheating party 0 of the adversary module says it computed (``learned``)."""
    learned = getattr(roles.get(COORDINATOR), "learned", None) or {}
    return [Violation("leak", int(t), f"the cheating party 0 computed party {t}'s input {np.asarray(v).tolist()}")
            for t, v in sorted(learned.items())
            if t not in schedule.byzantine and 1 <= t <= target.parties
            and np.array_equal(np.asarray(v, np.int64), target.inputs[t - 1].astype(np.int64))]  # fmt: skip


def _leaks(schedule: Schedule, target: SimTarget, transcript: Transcript) -> list[Violation]:
    from mpc_rr.adversary import attacks_for

    proto = target.protocol
    attack = attacks_for(proto.name).recover
    if not proto.hides_inputs or attack is None:
        return []
    view = observe(transcript, proto.message_types())
    if target.coordinator() is not None:
        view = view.of(COORDINATOR)
    try:
        rec = attack(view, (), public=target.public())
    except Exception:  # a view the attack cannot read gives it nothing
        return []
    truth = target.inputs.argmax(axis=1)
    return [Violation("leak", int(t), f"party 0 recovers party {t}'s input (cell {c})")
            for t, c in sorted(rec.recovered.items())
            if t not in schedule.byzantine and 1 <= t <= target.parties and int(c) == int(truth[t - 1])]  # fmt: skip


def _budget(schedule: Schedule, target: SimTarget, sent: Mapping[int, int]) -> list[Violation]:
    allowed = target.messages + 2 * (target.parties + 1)
    honest = sum(c for p, c in sent.items() if p not in schedule.byzantine)
    if honest > allowed:
        return [Violation("over-budget", -1, f"honest parties sent {honest} messages; the cost model "
                                              f"allows {allowed}")]  # fmt: skip
    return []


def check_run(
    schedule: Schedule,
    target: SimTarget,
    roles: Mapping[int, Role],
    transcript: Transcript,
    sent: Mapping[int, int],
    failed: Iterable[int] = (),
) -> tuple[dict[int, PartyEnd], list[Violation]]:
    """Every party's end and every invariant broken by the finished run."""
    ends = {pid: party_end(pid, role, failed) for pid, role in sorted(roles.items())}
    out: list[Violation] = []
    for end in ends.values():
        out += check_result(schedule, target, end)
        if end.status == "result" and end.party not in schedule.byzantine:
            out += target.central(schedule, end.party, roles[end.party])
    out += _blame(schedule, ends, roles)
    out += _agreement(schedule, target, ends)
    out += _leaks(schedule, target, transcript) + _learned(schedule, target, roles)
    out += _budget(schedule, target, sent)
    return ends, out
