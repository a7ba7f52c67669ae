"""Deterministic simulation testing: sum protocols under seeded fault schedules.

From one integer seed, :func:`draw_schedule` draws a :class:`Schedule` -- delivery order,
drops, duplicates, crashes of any party at any point of its sends, late joins, Byzantine
parties whose messages are rewritten -- and :func:`run_schedule` runs a registered sum
protocol through it by driving its sans-I/O roles directly, checking the invariants of
:mod:`mpc_rr.simulation._invariants` (exact totals or an abort naming only faulty parties,
no honest input recovered by party 0, termination within a step bound, messages within
the cost model).  :func:`shrink` reduces a violating schedule to the fewest faults that
still violate; :func:`simulate` runs many seeds.  Pure: no I/O, no clock, no thread.
"""

from mpc_rr.simulation._crash import CrashAfter
from mpc_rr.simulation._invariants import KINDS, PartyEnd, Violation
from mpc_rr.simulation._schedule import (
    MUTATIONS,
    Crash,
    Drop,
    Duplicate,
    Fault,
    LateJoin,
    Mutate,
    Schedule,
    Traffic,
    draw_schedule,
)
from mpc_rr.simulation._target import SimTarget, broken_variants, target_for
from mpc_rr.simulation._wire import WireFaults, mutate
from mpc_rr.simulation._world import Outcome, run_schedule

__all__ = [
    "KINDS",
    "MUTATIONS",
    "Crash",
    "CrashAfter",
    "Drop",
    "Duplicate",
    "Fault",
    "LateJoin",
    "Mutate",
    "Outcome",
    "PartyEnd",
    "Schedule",
    "SimTarget",
    "Traffic",
    "Violation",
    "WireFaults",
    "broken_variants",
    "draw_schedule",
    "mutate",
    "run_schedule",
    "target_for",
]
