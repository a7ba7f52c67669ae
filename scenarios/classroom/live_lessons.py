"""The live lessons named for their topic (:data:`scenarios.classroom.LIVE_LESSONS`).

* ``noise`` -- a SecAgg+ round in which each student adds its share of Skellam noise before its
  answer enters the sum (:mod:`scenarios.classroom.noise_lesson`); the projector shows the noisy
  total, one answer as it entered the sum, and the accountant's epsilon for the class;
* ``cheat`` -- a SecAgg+ round (the pages run ``static/secagg.js``, the bots the library's
  client) whose server is, when the teacher picks one on the teacher page before the round,
  a cheater of :data:`scenarios.classroom.cheats.CHEATS`: it really sends the substituted
  keys, the two survivor sets, or leaves student 1 out; or (live only, :data:`SPLIT_ROSTER`) it
  hands the class a roster in which student 1's key is its own.  Nothing tells a page what the server
  plays: each page's own checks (``static/secagg.js``; what they found is shown by
  ``static/detect.js``) catch it and name whom they blame.

:func:`lesson_round` is what :func:`scenarios.classroom.live.make_round` runs for them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import msgspec
import numpy as np

from mpc_rr.core import Message, Role, UsageError

__all__ = ["HONEST", "SPLIT_ROSTER", "cheat_round", "lesson_info", "lesson_round", "live_messages", "noise_round"]

HONEST = "honest"
"""The teacher's choice for a round where the server plays fair."""

SPLIT_ROSTER = "split-roster"
"""A live-only cheat (the trace has no roster to split): the server hands every page but student
1's a roster in which student 1's signing key is one of its own making, and the class code of
that roster; student 1's page gets the true one.  The other pages' signature checks fail on
student 1's keys, and the class codes read aloud differ."""


def _split_roster(public: dict[str, Any]) -> Any:
    """``public_for(pid)``: the true round for student 1, a forged roster for everyone else."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from scenarios.classroom.cheats import TARGET
    from scenarios.classroom.fingerprint import roster_fingerprint
    from scenarios.classroom.live import public_key_hex

    forged = dict(public["roster"])
    forged[str(TARGET)] = public_key_hex(Ed25519PrivateKey.generate().public_key())  # the server's key
    other = {**public, "roster": forged, "fingerprint": roster_fingerprint(forged)}
    return lambda pid: public if pid == TARGET else other


def _secagg() -> str:
    from scenarios.classroom import LIVE_PROTOCOLS

    return LIVE_PROTOCOLS[1]


def live_messages(lesson: str) -> str:
    """The protocol lesson ``lesson``'s round runs."""
    from scenarios.classroom import LIVE_LESSONS

    return LIVE_LESSONS[2] if lesson == LIVE_LESSONS[2] else _secagg()


def page_messages(lesson: str) -> tuple[type[Message], ...]:
    """The message types lesson ``lesson``'s pages speak (Prio3's pages watch: none)."""
    from scenarios.classroom import LIVE_LESSONS
    from scenarios.classroom.live import messages

    return () if lesson == LIVE_LESSONS[2] else messages(_secagg())


def lesson_info(lesson: Any) -> dict[str, Any]:
    """What the pages of ``lesson`` show (``lesson.json``): the cheat lesson's strategies and
    what each does; the noise lesson's epsilon and delta."""
    from scenarios.classroom.cheats import CHEATS, TARGET
    from scenarios.classroom.noise_lesson import DELTA

    name = lesson.protocol
    info: dict[str, Any] = {"lesson": name, "runs": live_messages(name)}
    if name == live_messages(name) and name not in ("cheat", "noise"):  # Prio3: the pages watch
        info.update(spectate=True)
    elif name == "cheat":
        info.update(cheats={HONEST: "the server plays fair", **CHEATS,
                            SPLIT_ROSTER: "the server gives every page but student 1's a roster with its own key for student 1"},
                    target=TARGET)  # fmt: skip
    else:
        info.update(epsilon=lesson.epsilon, delta=DELTA)
    return info


def lesson_round(lesson: Any, rng: np.random.Generator) -> Any:
    """The round builder of topic lesson ``lesson.protocol`` (:func:`cheat_round`, :func:`noise_round`)."""
    from scenarios.classroom import LIVE_LESSONS

    return {"cheat": cheat_round, "noise": noise_round, LIVE_LESSONS[2]: prio3_round}[lesson.protocol](lesson, rng)


def cheat_round(lesson: Any, rng: np.random.Generator) -> Any:
    """``build(browsers, bots, run, keys, choice=None)`` for the room (see
    :func:`scenarios.classroom.live.make_round`); ``choice``: the teacher's pick (a strategy of
    :data:`~scenarios.classroom.cheats.CHEATS`, or :data:`HONEST`)."""
    from scenarios.classroom.cheats import CHEATS, cheating_server
    from scenarios.classroom.live import make_round

    honest_build = make_round(dataclasses.replace(lesson, protocol=_secagg()), rng)

    def build(browsers: int, bots: int, run: str, keys: Mapping[int, bytes] | None = None,
              choice: str | None = None) -> Any:  # fmt: skip
        strategy = choice or HONEST
        if strategy not in (HONEST, SPLIT_ROSTER) and strategy not in CHEATS:
            raise UsageError(f"the server can play {HONEST}, {', '.join(CHEATS)} or {SPLIT_ROSTER}, not {strategy!r}")
        if strategy != HONEST and browsers + bots <= 1:
            raise UsageError("a cheat needs student 1 and someone else in the class")
        setup = honest_build(browsers, bots, run, keys)
        setup.lesson = lesson  # the outcome names the lesson
        if strategy == SPLIT_ROSTER:
            setup.public_for = _split_roster(setup.public)
        elif strategy != HONEST:
            setup.roles[0] = cheating_server(setup.roles[0], strategy)
        return setup

    return build


def noise_round(lesson: Any, rng: np.random.Generator) -> Any:
    """``build(browsers, bots, run, keys)``: a SecAgg+ round in which every student adds its share
    of Skellam noise (:mod:`scenarios.classroom.noise_lesson`): the pages in the browser
    (``static/noise.js``, from ``crypto.getRandomValues``), the bots from the OS's CSPRNG.  The
    outcome's ``total`` is the noisy count; with it the epsilon, the worst case it holds for, the
    noise's spread and one bot's answer as it entered the sum."""
    from mpc_rr.core import csprng_generator
    from mpc_rr.privacy._discrete import skellam_noise
    from mpc_rr.secure_sum.secagg import SecAggClient, SecAggServer, secagg_public
    from scenarios.classroom.live import SECAGG_DROPOUT, make_round
    from scenarios.classroom.noise_lesson import DELTA, class_noise

    honest_build = make_round(dataclasses.replace(lesson, protocol=_secagg()), rng)

    def build(browsers: int, bots: int, run: str, keys: Mapping[int, bytes] | None = None) -> Any:
        setup = honest_build(browsers, bots, run, keys)
        setup.lesson = lesson
        n, k = browsers + bots, len(lesson.options)
        old = setup.roles[0]
        noise, c = class_noise(n, k, lesson.epsilon, old.cfg.max_dropout, old.cfg.max_corrupt)
        pub = secagg_public(n, k, run=run, max_dropout=SECAGG_DROPOUT, max_value=1 + 2 * c)
        cfg = pub.config
        setup.roles[0] = SecAggServer(cfg, pub.graph, identity=old.identity)
        noisy: dict[int, tuple[list[int], list[int]]] = {}
        gen = csprng_generator()
        for pid in [p for p in setup.roles if p]:
            bot = setup.roles[pid]
            x = np.asarray(bot.x, np.int64)
            z = np.clip(skellam_noise(noise.client_variance, k, gen), -c, c)
            noisy[pid] = (x.tolist(), z.tolist())
            setup.roles[pid] = SecAggClient(pid, cfg, pub.graph, x + z + c, identity=bot.identity)
        setup.public.update(modulus=cfg.modulus, threshold=cfg.threshold, max_dropped=cfg.max_dropped, quorum=cfg.quorum,
                            noise={"variance": noise.client_variance, "offset": c, "epsilon": noise.epsilon,
                                   "delta": DELTA, "honest_min": noise.honest_min})  # fmt: skip
        plain_outcome = setup.outcome

        def outcome(hub: Any) -> dict[str, Any]:
            out: dict[str, Any] = plain_outcome(hub)
            out.update(epsilon=round(noise.epsilon, 4), delta=DELTA, honest_min=noise.honest_min, offset=c,
                       max_dropped=cfg.max_dropped, colluders=n - noise.honest_min - cfg.max_dropped,
                       student_sd=round(math.sqrt(noise.client_variance), 3))  # fmt: skip
            if out.get("ok"):
                count = int(out["count"])
                out["total"] = [int(t) - c * count for t in out["total"]]
                out["noise_sd"] = round(math.sqrt(count * noise.client_variance), 3)
                counted = [p for p in noisy if p not in out["not_counted"]]
                if counted:  # one answer as it entered the sum (a simulated student's: it does not mind)
                    x, z = noisy[counted[-1]]
                    out["example"] = {"id": counted[-1], "answer": int(np.argmax(x)),
                                      "entered": [a + b for a, b in zip(x, z, strict=True)]}  # fmt: skip
            return out

        setup.outcome = outcome
        return setup

    return build


@dataclasses.dataclass
class _Prio3Round:
    lesson: Any
    message_types: tuple[type[Message], ...]
    roles: dict[int, Role]
    public: dict[str, Any]
    bot_votes: np.ndarray
    cheats: dict[int, str]

    def outcome(self, hub: Any) -> dict[str, Any]:
        base: dict[str, Any] = {"protocol": self.lesson.protocol, "options": list(self.lesson.options),
                                "bot_votes": self.bot_votes.tolist(), "spectate": True}  # fmt: skip
        if hub.error is not None:
            return {**base, "ok": False, "error": str(hub.error), "culprits": list(hub.error.culprits)}
        res = hub.result
        rejected = sorted(int(r) for r in res.rejected)
        return {**base, "ok": True, "total": [int(v) for v in res.total], "count": int(res.n_included),
                "not_counted": rejected, "rejected": [{"id": r, "why": self.cheats.get(r, "its proof failed")}
                                                      for r in rejected]}  # fmt: skip


def prio3_round(lesson: Any, rng: np.random.Generator) -> Any:
    """``build(browsers, bots, run, keys)``: a Prio3 round among the bots alone -- the library
    makes each vote's validity proof; the last bot votes twice, and from five bots on the one
    before it counts 5 (:func:`scenarios.classroom.prio3_lesson.cheaters`).  The pages watch (the
    browser does not prove): they are told the round, and at its end the aggregators' verdict.
    The bots are Prio3's clients ``1..bots`` (party 1 also the helper), the server its leader."""
    import os
    import tempfile

    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    from mpc_rr.secure_sum import simulated_pki
    from mpc_rr.secure_sum.prio3 import SPEC as PRIO3
    from mpc_rr.secure_sum.prio3 import Prio3Client
    from mpc_rr.secure_sum.prio3._roles import public
    from mpc_rr.secure_sum.prio3._roles import role as prio3_role
    from scenarios.classroom.prio3_lesson import cheaters

    def build(browsers: int, bots: int, run: str, keys: Mapping[int, bytes] | None = None) -> _Prio3Round:
        k = len(lesson.options)
        if bots < 3:
            raise UsageError(f"the Prio3 lesson needs at least 3 bots (the simulated students vote), got {bots}")
        answers = rng.integers(0, k, size=bots)
        x = np.eye(k, dtype=np.int64)[answers]
        bad = cheaters(bots, max(k, 2))
        sk = X25519PrivateKey.generate()
        ids = simulated_pki(list(range(bots + 1)))
        fd, path = tempfile.mkstemp(prefix="mpc-rr-class-helper-")
        try:
            os.write(fd, sk.private_bytes_raw())
            os.close(fd)
            opts = PRIO3.one_hot_options({}, (k,))
            opts = msgspec.structs.replace(opts, helper_key=sk.public_key().public_bytes_raw().hex(), helper_secret=path)
            pub = public(bots, k, run=run, options=opts)
            roles: dict[int, Role] = {0: prio3_role(0, pub, None, identity=ids[0])}
            for i in range(1, bots + 1):
                if i in bad:
                    roles[i] = Prio3Client(i, pub, x[i - 1], encoded=pub.vdaf.field.array(bad[i][1][:k]), identity=ids[i])
                else:
                    roles[i] = prio3_role(i, pub, x[i - 1], identity=ids[i])
        finally:
            os.unlink(path)
        honest = [i for i in range(1, bots + 1) if i not in bad]
        votes = x[np.asarray(honest) - 1].sum(axis=0)
        public_part = {"protocol": lesson.protocol, "question": lesson.question, "options": list(lesson.options),
                       "browsers": browsers, "spectate": True}  # fmt: skip
        return _Prio3Round(lesson, tuple(PRIO3.message_types()), roles, public_part, votes,
                           {i: how for i, (how, _) in bad.items()})

    return build
