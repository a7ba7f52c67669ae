"""Classroom traces (``mpc-rr classroom``): a protocol run a class can read, step by step.

A protocol runs in plaintext in the synchronous harness, with every share,
key, mask and random draw from a public seed (a teaching trace, never a
deployment); the trace numbers every message, decodes the values inside it
from the bytes the codec produced, notes what each round achieved (checks
computed from the run), shows injected dropouts and what the protocol did,
and ends with the comparison against the plain computation.

* :mod:`.record` -- watch roles in the harness (no protocol is changed);
* :mod:`.lesson` -- the shared part: decode, lay out items, notes, checks;
* :mod:`.secure_sums`, :mod:`.pipeline`, :mod:`.rrba` -- one lesson per protocol;
* :mod:`.render` (text, mermaid) and :mod:`.html` (a page that steps).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from mpc_rr.core import UsageError

if TYPE_CHECKING:
    from scenarios.classroom.trace import Trace

__all__ = ["PROTOCOLS", "STEPS", "make_trace"]

PROTOCOLS = ("full-mesh", "secagg", "pipeline", "rrba")

STEPS: dict[str, tuple[str, ...]] = {
    "full-mesh": ("keys", "shares", "publish"),
    "secagg": ("keys", "shares", "masked", "unmask"),
    "pipeline": ("record", "release"),
    "rrba": (),
}
"""Where ``--drop ID@STEP`` can strike: the message a data party would send at that step."""


def make_trace(
    protocol: str, parties: int, *, seed: int, drops: Sequence[str] = (), **options: Any
) -> Trace:
    """Build the lesson of ``protocol`` and run it (see :func:`.lesson.build_trace`)."""
    from scenarios.classroom.lesson import build_trace, parse_drop

    if protocol not in PROTOCOLS:
        raise UsageError(f"protocol must be one of {PROTOCOLS}, got {protocol!r}")
    if not 3 <= parties <= 10:
        raise UsageError(f"a classroom run has 3 to 10 parties, got {parties}")
    dropped: dict[int, str] = {}
    for d in drops:
        if not STEPS[protocol]:
            raise UsageError(f"--drop does not apply to {protocol}")
        pid, step = parse_drop(d, STEPS[protocol], parties)
        if pid in dropped:
            raise UsageError(f"--drop: party {pid} is dropped twice")
        dropped[pid] = step
    if protocol == "full-mesh":
        from scenarios.classroom.secure_sums import full_mesh_lesson

        lesson = full_mesh_lesson(parties, seed=seed, drops=dropped, **options)
    elif protocol == "secagg":
        from scenarios.classroom.secure_sums import secagg_lesson

        lesson = secagg_lesson(parties, seed=seed, drops=dropped, **options)
    elif protocol == "pipeline":
        from scenarios.classroom.pipeline import pipeline_lesson

        lesson = pipeline_lesson(parties, seed=seed, drops=dropped, **options)
    else:
        from scenarios.classroom.rrba import rrba_trace

        return rrba_trace(parties, seed=seed, **options)
    return build_trace(lesson)
