"""Shrinking: the fewest faults of a violating schedule that still violate.

Greedy and deterministic (the ``ddmin`` idea at its simplest): try the schedule without
each of its faults in turn, first half the list at once while that keeps a violation of
the same kind, then one at a time, and keep any removal after which a violation of the
same kind remains; repeat until no single fault can go.  The delivery order seed is kept
(every fault left strikes the same message as before: positions are per link).
"""

from __future__ import annotations

from collections.abc import Callable

from mpc_rr.simulation._schedule import Schedule
from mpc_rr.simulation._target import SimTarget
from mpc_rr.simulation._world import Outcome, run_schedule

__all__ = ["shrink"]


def shrink(schedule: Schedule, target: SimTarget | None = None, *, max_runs: int = 400) -> Outcome:
    """The outcome of the smallest schedule found that still breaks an invariant of the
    kinds ``schedule`` breaks (``schedule``'s own outcome when it breaks none or cannot
    shrink); at most ``max_runs`` runs."""
    first = run_schedule(schedule, target)
    kinds = {v.kind for v in first.violations}
    if not kinds:
        return first
    runs = 0

    def still(s: Schedule) -> Outcome | None:
        nonlocal runs
        runs += 1
        out = run_schedule(s, target)
        return out if {v.kind for v in out.violations} & kinds else None

    best: Outcome = first
    chunk = max(1, len(schedule.faults) // 2)
    while chunk >= 1 and runs < max_runs:
        changed = False
        i = 0
        while i < len(best.schedule.faults) and runs < max_runs:
            cand = best.schedule.without(range(i, i + chunk))
            out = still(cand)
            if out is not None:
                best, changed = out, True
            else:
                i += chunk
        if not changed:
            chunk //= 2
    return best


def minimal(outcome: Outcome, run: Callable[[Schedule], Outcome] = run_schedule) -> bool:
    """Whether no single fault of ``outcome``'s schedule can go without losing its violations."""
    kinds = {v.kind for v in outcome.violations}
    s = outcome.schedule
    return all(not ({v.kind for v in run(s.without([i])).violations} & kinds) for i in range(len(s.faults)))
