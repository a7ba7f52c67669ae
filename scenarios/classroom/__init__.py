"""Classroom traces (``mpc-rr classroom``): a protocol run a class can read, step by step.

A protocol runs in plaintext in the synchronous harness, with every share,
key, mask and random draw from a public seed (a teaching trace, never a
deployment); the trace numbers every message, decodes the values inside it
from the bytes the codec produced, notes what each round achieved (checks
computed from the run), shows injected dropouts and what the protocol did,
and ends with the comparison against the plain computation.

* :mod:`.record` -- watch roles in the harness (no protocol is changed);
* :mod:`.lesson` -- the shared part: decode, lay out items, notes, checks;
* :mod:`.secure_sums`, :mod:`.secagg_lesson`, :mod:`.pipeline`, :mod:`.rrba` -- the lessons
  registered here for their protocols (:func:`register_lesson`; :mod:`.poll`: the class poll
  the secure-sum lessons count); :mod:`.sum_lesson` -- the lesson of any other sum protocol;
* :mod:`.render` (text, mermaid) and :mod:`.html` (a page that steps).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from mpc_rr.core import UsageError, get_protocol, protocols

if TYPE_CHECKING:
    from scenarios.classroom.trace import Trace

__all__ = ["LIVE_LESSONS", "LIVE_PROTOCOLS", "classroom_protocols", "lesson_options", "lesson_protocol", "make_trace", "register_lesson", "steps_of"]

_LESSONS: dict[str, str | Callable[..., Any]] = {}
_RUNS: dict[str, str] = {}  # a lesson named for its topic (not a protocol) -> the protocol it runs


def register_lesson(protocol: str, lesson: str | Callable[..., Any], *, runs: str | None = None) -> None:
    """``lesson`` (a function, or ``"module:attribute"`` imported on first use) teaches
    ``protocol``; without one, a sum protocol is taught by :mod:`.sum_lesson`.  A lesson named
    for its topic (``mpc-rr classroom cheat``) gives the protocol it ``runs`` (its steps are
    where ``--drop`` strikes)."""
    _LESSONS[protocol] = lesson
    if runs is not None:
        _RUNS[protocol] = runs


def _live_protocols() -> tuple[str, ...]:
    from mpc_rr.secure_sum.full_mesh import SPEC as MESH
    from mpc_rr.secure_sum.secagg import SPEC as SECAGG

    return (MESH.name, SECAGG.name, "rr-survey")


def _prio3() -> str:
    from mpc_rr.secure_sum.prio3 import SPEC as PRIO3

    return PRIO3.name


LIVE_LESSONS = ("cheat", "noise", _prio3())
"""The live lessons named for their topic (:mod:`.live_lessons`): ``cheat``, the teacher plays a
cheating SecAgg+ server and every page shows what it caught; ``noise``, every page adds its
share of distributed noise to its answer; Prio3's, the simulated students' votes with their
validity proofs (the pages watch: they do not prove)."""

LIVE_PROTOCOLS = _live_protocols() + LIVE_LESSONS
"""What a live class runs (:mod:`.live`): the full mesh through the board, SecAgg+, an RR
survey whose answers reach the teacher unprotected (no sum protocol), and the topic lessons
(:data:`LIVE_LESSONS`)."""


def _register_builtin() -> None:
    from mpc_rr.pipeline import PIPELINE
    from mpc_rr.rrba import RRBA
    from mpc_rr.secure_sum.full_mesh import BOARD_SPEC, SPEC
    from mpc_rr.secure_sum.secagg import SPEC as SECAGG

    here = "scenarios.classroom"
    register_lesson(SPEC.name, f"{here}.secure_sums:full_mesh_lesson")
    register_lesson(BOARD_SPEC.name, f"{here}.secure_sums:board_lesson")
    register_lesson(SECAGG.name, f"{here}.secagg_lesson:secagg_lesson")
    register_lesson(PIPELINE.name, f"{here}.pipeline:pipeline_lesson")
    register_lesson(RRBA.name, f"{here}.rrba:rrba_trace")
    register_lesson("cheat", f"{here}.cheats:cheat_lesson", runs=SECAGG.name)
    register_lesson("noise", f"{here}.noise_lesson:noise_lesson", runs=SECAGG.name)
    from mpc_rr.secure_sum.prio3 import SPEC as PRIO3

    register_lesson(PRIO3.name, f"{here}.prio3_lesson:prio3_lesson")


_register_builtin()

LESSON_OPTIONS = ("options", "publication", "p", "cheat", "epsilon")
"""The lesson options a command can set (each lesson takes those it names)."""


def classroom_protocols() -> tuple[str, ...]:
    """Protocols a class can run: those with a registered lesson, and every sum protocol; then
    the lessons named for their topic."""
    named = tuple(s.name for s in protocols() if s.name in _LESSONS or s.family == "sum")
    return named + tuple(k for k in _LESSONS if k in _RUNS and k not in named)


def lesson_protocol(name: str) -> str:
    """The protocol lesson ``name`` runs (itself, unless the lesson is named for its topic)."""
    return _RUNS.get(name, name)


def steps_of(protocol: str) -> tuple[str, ...]:
    """Where ``--drop ID@STEP`` can strike: the message a data party would send at that step
    (empty: the lesson takes no dropouts)."""
    spec = get_protocol(_RUNS.get(protocol, protocol))
    fn = _lesson(protocol)
    return spec.steps if "drops" in inspect.signature(fn).parameters else ()


def _lesson(protocol: str) -> Any:
    spec = get_protocol(_RUNS.get(protocol, protocol))
    lesson = _LESSONS.get(protocol)
    if isinstance(lesson, str):
        module, _, attr = lesson.partition(":")
        lesson = _LESSONS[protocol] = getattr(importlib.import_module(module), attr)
    if lesson is not None:
        return lesson
    if spec.family == "sum":
        from functools import partial

        from scenarios.classroom.sum_lesson import sum_lesson

        fn = partial(sum_lesson, protocol=protocol)
        fn.__signature__ = inspect.signature(sum_lesson).replace(  # type: ignore[attr-defined]
            parameters=[v for k, v in inspect.signature(sum_lesson).parameters.items() if k != "protocol"]
        )
        return fn
    raise UsageError(f"{protocol} has no classroom lesson; protocols with one: {', '.join(classroom_protocols())}")


def lesson_options(protocol: str) -> tuple[str, ...]:
    """The lesson options (:data:`LESSON_OPTIONS`) ``protocol``'s lesson takes."""
    params = inspect.signature(_lesson(protocol)).parameters
    return tuple(o for o in LESSON_OPTIONS if o in params)


def make_trace(
    protocol: str, parties: int, *, seed: int, drops: Sequence[str] = (), **options: Any
) -> Trace:
    """Build the lesson of ``protocol`` and run it (see :func:`.lesson.build_trace`)."""
    from scenarios.classroom.lesson import build_trace, parse_drop
    from scenarios.classroom.trace import Trace

    if protocol not in classroom_protocols():
        raise UsageError(f"protocol must be one of {classroom_protocols()}, got {protocol!r}")
    if not 3 <= parties <= 10:
        raise UsageError(f"a classroom run has 3 to 10 parties, got {parties}")
    steps = steps_of(protocol)
    dropped: dict[int, str] = {}
    for d in drops:
        if not steps:
            raise UsageError(f"--drop does not apply to {protocol}")
        pid, step = parse_drop(d, steps, parties)
        if pid in dropped:
            raise UsageError(f"--drop: party {pid} is dropped twice")
        dropped[pid] = step
    lesson = _lesson(protocol)
    extra = {"drops": dropped} if steps else {}
    built = lesson(parties, seed=seed, **extra, **options)
    return built if isinstance(built, Trace) else build_trace(built)
