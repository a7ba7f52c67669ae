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

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "KINDS",
    "MUTATIONS",
    "Campaign",
    "Cheat",
    "Crash",
    "CrashAfter",
    "Drop",
    "Duplicate",
    "Fault",
    "Found",
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
    "check_run",
    "draw_schedule",
    "merge",
    "mutate",
    "render",
    "replay_command",
    "run_schedule",
    "shrink",
    "simulate",
    "target_for",
]

_HOME = {
    "Campaign": "mpc_rr.simulation._campaign",
    "Cheat": "mpc_rr.simulation._schedule",
    "Crash": "mpc_rr.simulation._schedule",
    "CrashAfter": "mpc_rr.simulation._crash",
    "Drop": "mpc_rr.simulation._schedule",
    "Duplicate": "mpc_rr.simulation._schedule",
    "Fault": "mpc_rr.simulation._schedule",
    "Found": "mpc_rr.simulation._campaign",
    "KINDS": "mpc_rr.simulation._invariants",
    "LateJoin": "mpc_rr.simulation._schedule",
    "MUTATIONS": "mpc_rr.simulation._schedule",
    "Mutate": "mpc_rr.simulation._schedule",
    "Outcome": "mpc_rr.simulation._world",
    "PartyEnd": "mpc_rr.simulation._invariants",
    "Schedule": "mpc_rr.simulation._schedule",
    "SimTarget": "mpc_rr.simulation._target",
    "Traffic": "mpc_rr.simulation._schedule",
    "Violation": "mpc_rr.simulation._invariants",
    "WireFaults": "mpc_rr.simulation._wire",
    "broken_variants": "mpc_rr.simulation._target",
    "check_run": "mpc_rr.simulation._invariants",
    "draw_schedule": "mpc_rr.simulation._schedule",
    "merge": "mpc_rr.simulation._campaign",
    "mutate": "mpc_rr.simulation._wire",
    "render": "mpc_rr.simulation._campaign",
    "replay_command": "mpc_rr.simulation._campaign",
    "run_schedule": "mpc_rr.simulation._world",
    "shrink": "mpc_rr.simulation._shrink",
    "simulate": "mpc_rr.simulation._campaign",
    "target_for": "mpc_rr.simulation._target",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.simulation._campaign import (
        Campaign,
        Found,
        merge,
        render,
        replay_command,
        simulate,
    )
    from mpc_rr.simulation._crash import (
        CrashAfter,
    )
    from mpc_rr.simulation._invariants import (
        KINDS,
        PartyEnd,
        Violation,
        check_run,
    )
    from mpc_rr.simulation._schedule import (
        MUTATIONS,
        Cheat,
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
    from mpc_rr.simulation._shrink import (
        shrink,
    )
    from mpc_rr.simulation._target import (
        SimTarget,
        broken_variants,
        target_for,
    )
    from mpc_rr.simulation._wire import (
        WireFaults,
        mutate,
    )
    from mpc_rr.simulation._world import (
        Outcome,
        run_schedule,
    )
