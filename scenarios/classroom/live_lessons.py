"""The live lessons named for their topic (:data:`scenarios.classroom.LIVE_LESSONS`).

* ``cheat`` -- a SecAgg+ round (the pages run ``static/secagg.js``, the bots the library's
  client) whose server is, when the teacher picks one on the teacher page before the round,
  a cheater of :data:`scenarios.classroom.cheats.CHEATS`: it really sends the substituted
  keys, the two survivor sets, or leaves student 1 out.  Nothing tells a page what the server
  plays: each page's own checks (``static/secagg.js``; what they found is shown by
  ``static/detect.js``) catch it and name whom they blame.

:func:`lesson_round` is what :func:`scenarios.classroom.live.make_round` runs for them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np

from mpc_rr.core import UsageError

__all__ = ["HONEST", "lesson_info", "lesson_round", "live_messages"]

HONEST = "honest"
"""The teacher's choice for a round where the server plays fair."""


def _secagg() -> str:
    from scenarios.classroom import LIVE_PROTOCOLS

    return LIVE_PROTOCOLS[1]


def live_messages(lesson: str) -> str:
    """The protocol whose messages lesson ``lesson``'s round speaks."""
    return _secagg()


def lesson_info(lesson: str) -> dict[str, Any]:
    """What the teacher page of lesson ``lesson`` shows (``lesson.json``): the cheat lesson's
    strategies and what each does."""
    from scenarios.classroom.cheats import CHEATS, TARGET

    return {"lesson": lesson, "runs": live_messages(lesson), "cheats": {HONEST: "the server plays fair", **CHEATS}, "target": TARGET}


def lesson_round(lesson: Any, rng: np.random.Generator) -> Any:
    """``build(browsers, bots, run, keys, choice=None)`` for the room (see
    :func:`scenarios.classroom.live.make_round`); ``choice``: the teacher's pick (a strategy of
    :data:`~scenarios.classroom.cheats.CHEATS`, or :data:`HONEST`)."""
    from scenarios.classroom.cheats import CHEATS, cheating_server
    from scenarios.classroom.live import make_round

    honest_build = make_round(dataclasses.replace(lesson, protocol=_secagg()), rng)

    def build(browsers: int, bots: int, run: str, keys: Mapping[int, bytes] | None = None,
              choice: str | None = None) -> Any:  # fmt: skip
        strategy = choice or HONEST
        if strategy != HONEST and strategy not in CHEATS:
            raise UsageError(f"the server can play {HONEST} or {', '.join(CHEATS)}, not {strategy!r}")
        if strategy != HONEST and browsers + bots <= 1:
            raise UsageError("a cheat needs student 1 and someone else in the class")
        setup = honest_build(browsers, bots, run, keys)
        setup.lesson = lesson  # the outcome names the lesson
        if strategy != HONEST:
            setup.roles[0] = cheating_server(setup.roles[0], strategy)
        return setup

    return build
