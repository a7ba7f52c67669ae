"""The ``cheat`` lesson: the class catches a cheating SecAgg+ server (Bell et al. 2020 over
Bonawitz et al. 2017, Sec. 4: the active-adversary variant with signed keys and a signed
survivor set).

The server (party 0) plays one of :data:`CHEATS` -- it really sends the substituted keys,
the two survivor sets, or leaves an honest student out -- and the honest parties' own checks
catch it:

* ``key-substitution`` -- the library's :class:`~mpc_rr.adversary.active.CheatingServer`:
  every neighbour key a party receives is the server's own (a man in the middle who would
  read every share); each party checks its neighbours' keys against their signatures under
  the class roster and names the server;
* ``equivocate`` -- the same server telling half of student 1's neighbours that student 1
  dropped and the others that it survived (so that both halves reveal a different share of
  it); each party signs the set it was shown, and the unmask request carries fewer than a
  quorum of signatures on any one set: every party refuses to reveal a share and names the
  server;
* ``drop-student`` -- :class:`DroppingServer`: an honest-looking server that leaves student 1
  out of the sum after its masked answer arrived, as if it had dropped.  Dropouts are
  legitimate in SecAgg+, so the others cannot tell; what they can do is read the signed
  survivor set, which names who was left out, and student 1, who sent its answer and was never
  asked to confirm the set, knows it did not drop.

The trace is ``mpc-rr classroom cheat --cheat STRATEGY``; the live lesson is
``mpc-rr classroom serve --protocol cheat`` (:mod:`.live_lessons`), where the teacher picks the
strategy on the teacher page before each round.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mpc_rr.adversary.active import CheatingServer
from mpc_rr.core import COORDINATOR, Send, UsageError
from mpc_rr.secure_sum.secagg import SecAggServer
from scenarios.classroom.lesson import Context, Lesson, vec

__all__ = ["CHEATS", "DroppingServer", "caught", "cheat_lesson", "cheating_server"]

CHEATS = {
    "key-substitution": "the server replaces every neighbour key by its own (a man in the middle)",
    "equivocate": "the server tells half of student 1's neighbours that student 1 dropped, the others that it stayed",
    "drop-student": "the server leaves student 1 out of the sum after its masked answer arrived, as if it had dropped",
}
"""The strategies a class plays, each with what the server does."""

TARGET = 1
"""The student the server cheats against (equivocation, dropping): party 1, the first to join."""


class _LooksHonest:
    """A cheater whose messages (an abort's reason) name it as the honest server does: the
    students learn what it played from their own checks, not from its class name."""

    party_id: int

    @property
    def name(self) -> str:
        return f"{SecAggServer.__name__} {self.party_id}"


class DroppingServer(_LooksHonest, SecAggServer):
    """A SecAgg+ server that declares ``target`` dropped once the masked inputs are in, though
    its masked input arrived: the sum is exact over the others, and ``target`` is never asked to
    confirm the survivor set (an honest server does this only to a party whose input was late)."""

    def __init__(self, *args: Any, target: int = TARGET, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.target = target

    def _request_unmask(self) -> list[Send]:
        self._drop(self.target, self.state.name)  # the reason an honest server gives a silent party
        return super()._request_unmask()


def cheating_server(honest: SecAggServer, strategy: str) -> SecAggServer:
    """The server of ``strategy`` (:data:`CHEATS`) in place of ``honest`` (same config, graph and
    signing identity)."""
    if strategy not in CHEATS:
        raise UsageError(f"--cheat must be one of {', '.join(CHEATS)}, got {strategy!r}")
    if strategy == "drop-student":
        return DroppingServer(honest.cfg, honest.pinned_graph, identity=honest.identity)
    return _Cheater(honest.cfg, honest.pinned_graph, identity=honest.identity, strategy=strategy, target=TARGET)


class _Cheater(_LooksHonest, CheatingServer):
    """The library's cheating server, named as the honest one."""


def caught(ctx: Context, cheat: str, n: int, x: np.ndarray) -> tuple[list[str], bool]:
    """Who caught the cheating server, with what.  OK when a party named it and it learned no
    input; for ``drop-student``, when the left-out student is the one the signed survivor set
    leaves out and the total is exact over the others."""
    lines = [f"The aggregator cheated ({cheat})."] + ([f"It {CHEATS[cheat].removeprefix('the server ')}."] if cheat in CHEATS else [])
    server = ctx.roles[COORDINATOR]
    if isinstance(server, DroppingServer):
        t = server.target
        victim = ctx.roles[t]
        got = [s for s in ctx.of_type("UnmaskRequest") if s.dst == t]
        lines.append(f"P{t} sent its masked input: {any(s.src == t for s in ctx.of_type('MaskedInput'))}; "
                     f"survivor sets sent to P{t}: {len(got)}")  # fmt: skip
        lines.append(f"P{t}: {victim.error or 'no error'}")
        if server.error is not None or not server.done:
            return [*lines, f"no result: {server.error}"], False
        included = list(server.result.included)
        plain = np.asarray(x)[np.asarray(included, np.int64) - 1].sum(axis=0)
        exact = bool(np.array_equal(server.result.total, plain))
        lines.append(f"the signed survivor set: P{', P'.join(map(str, included))} -- P{t} is left out")
        lines.append(f"the count {vec(server.result.total)} {'==' if exact else '!='} the plain count of "
                     f"the others {vec(plain)}: P{t}'s vote is missing, and only P{t} knows it did not drop")  # fmt: skip
        return lines, t not in included and exact
    named = []
    for i in range(1, n + 1):
        err = ctx.roles[i].error
        if err is not None and COORDINATOR in err.culprits:
            named.append(i)
            lines.append(f"P{i} caught it: {err}")
    learned = getattr(server, "learned", {})
    lines.append(f"inputs the aggregator recovered: {len(learned)}")
    return lines, bool(named) and not learned


def cheat_lesson(
    n: int, *, seed: int, options: int | Sequence[str] = 4, drops: dict[int, str] | None = None,
    cheat: str | None = None,
) -> Lesson:  # fmt: skip
    """SecAgg+ over ``n`` one-hot votes with the server playing ``cheat`` (default
    ``key-substitution``; :data:`CHEATS`)."""
    from scenarios.classroom.secagg_lesson import secagg_lesson

    strategy = cheat or "key-substitution"
    if strategy not in CHEATS:
        raise UsageError(f"--cheat must be one of {', '.join(CHEATS)} in the cheat lesson, got {strategy!r}")
    lesson = secagg_lesson(n, seed=seed, options=options, drops=drops, cheat=strategy)
    lesson.title = f"The class catches a cheating server ({strategy}): SecAgg+, {n} parties"
    lesson.setup[:0] = [
        f"The server plays a cheat: {CHEATS[strategy]}. Every student's checks are its own: "
        "signatures under the class roster (whose fingerprint the class compares aloud) on every "
        "key, share batch and survivor set.",
    ]
    lesson.protocol = "cheat"  # the trace's command: mpc-rr classroom cheat
    lesson.extra["cheat"] = strategy
    lesson.extra["verdict"] = (
        "OK: the honest parties caught the server with their own checks, and it learned no vote."
        if strategy != "drop-student" else
        "OK: the signed survivor set names the student the server left out, and only that student "
        "knows it did not drop.",
        "NOT CAUGHT: the server's cheat went unseen (see above).",
    )  # fmt: skip
    lesson.extra["target"] = TARGET
    return lesson
