"""The ``prio3`` lesson: each vote with its validity proof; a party trying to vote twice is
rejected and named.

Prio3 (draft-irtf-cfrg-vdaf; :mod:`mpc_rr.secure_sum.prio3`): each client splits its one-hot
vote into two secret shares, one for the leader (party 0, the server) and one sealed to the
helper (party 1, also a client), with a fully linear proof (Boneh et al., CRYPTO 2019) that the
vote is one-hot (the Histogram circuit).  The two aggregators check the proof on their shares
alone -- neither sees the vote -- and leave out, naming it, a report whose proof fails.  Here the
last party submits a vote with two ones (it votes twice), and from five parties on the one
before it a count of 5 for one option: both are rejected and named; under SecAgg+ or the full
mesh, which check nothing of an input, both would move the count.

The trace is ``mpc-rr classroom prio3``.  The helper's key and every party's signing key come
from the seed (a teaching trace: in a deployment the helper's key is pinned from a file and the
keys are the PKI's), so the same seed gives the same trace.  The live lesson
(:func:`scenarios.classroom.live_lessons.prio3_round`) has the simulated students vote with the
library's proofs while the pages watch: the browser does not prove (its client would need
Field64/Field128 arithmetic and TurboSHAKE128, which WebCrypto does not have).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence

import msgspec
import numpy as np

from mpc_rr.core import COORDINATOR, Role
from mpc_rr.secure_sum import SeededEntropy, simulated_pki
from mpc_rr.secure_sum.prio3 import SPEC as PRIO3
from mpc_rr.secure_sum.prio3 import Prio3Client, Prio3Options
from mpc_rr.secure_sum.prio3._roles import public
from mpc_rr.secure_sum.prio3._roles import role as prio3_role
from scenarios.classroom.lesson import Context, Lesson, Note, Sent, vec
from scenarios.classroom.poll import entropies, labels, poll_inputs, vote_lines

__all__ = ["cheaters", "prio3_lesson"]

HELPER = 1


def cheaters(n: int, options: int) -> dict[int, tuple[str, list[int]]]:
    """Who tries to cheat, how, and the vector it submits: the last party votes twice (two ones);
    from five parties on, the one before it submits a count of 5 for the first option."""
    out = {n: ("votes twice", [1, 1] + [0] * (options - 2))}
    if n >= 5:
        out[n - 1] = ("counts 5 for one option", [5] + [0] * (options - 1))
    return out


def _short(value: object) -> str:
    if isinstance(value, bytes):
        return f"{len(value)} B {value[:8].hex()}..." if len(value) > 8 else value.hex()
    if isinstance(value, list | tuple):
        return f"{len(value)} items"
    to_numpy = getattr(value, "to_numpy", None)
    if to_numpy is not None:
        a = to_numpy()
        return vec(a) if a.ndim == 1 else f"{a.shape} array"
    return str(value)


def prio3_lesson(n: int, *, seed: int, options: int | Sequence[str] = 4) -> Lesson:
    """``n`` one-hot votes with their proofs through Prio3's leader (P0) and helper (P1); the
    parties of :func:`cheaters` submit invalid votes."""
    answers = labels(options)
    k = len(answers)
    x = poll_inputs(n, k, seed).astype(np.int64)
    run = f"classroom-prio3-{seed}"
    bad = cheaters(n, k)
    helper_sk = SeededEntropy(seed, "classroom/prio3-helper").key(32)
    from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

    helper_pk = X25519PrivateKey.from_private_bytes(helper_sk).public_key().public_bytes_raw()
    ids = simulated_pki(list(range(n + 1)), entropy=SeededEntropy(seed, "classroom/pki"))
    fd, path = tempfile.mkstemp(prefix="mpc-rr-classroom-helper-")
    try:
        os.write(fd, helper_sk)
        os.close(fd)
        opts = PRIO3.one_hot_options({}, (k,))
        opts = msgspec.structs.replace(opts, helper_key=helper_pk.hex(), helper_secret=path)
        assert isinstance(opts, Prio3Options)
        pub = public(n, k, run=run, options=opts)
        ent = entropies(seed)
        roles: dict[int, Role] = {COORDINATOR: prio3_role(COORDINATOR, pub, None, entropy=ent(0), identity=ids[0])}
        for i in range(1, n + 1):
            if i in bad:
                encoded = pub.vdaf.field.array(bad[i][1])
                roles[i] = Prio3Client(i, pub, x[i - 1], entropy=ent(i), encoded=encoded, identity=ids[i])
            else:
                roles[i] = prio3_role(i, pub, x[i - 1], entropy=ent(i), identity=ids[i])
    finally:
        os.unlink(path)
    spec = PRIO3
    step_of = {(t[0] if isinstance(t, tuple) else t).__name__: s for s, t in spec.step_messages().items()}
    rounds: dict[str, tuple[str, str]] = {}
    current = spec.steps[0]
    for t in spec.message_types():
        current = step_of.get(t.__name__, current)
        rounds[t.__name__] = (current, f"Round {spec.steps.index(current) + 1} - {current}")
    setup = [
        f"{n} parties P1..P{n} each vote for one of {', '.join(answers)}. Each sends its vote as two "
        f"secret shares -- one for the leader P0, one sealed to the helper P1 (also a voter) -- with "
        f"a proof that the vote is one-hot (the Histogram circuit over {opts.field.capitalize()}). "
        f"The leader and the helper check the proof on their shares alone; a report whose proof "
        f"fails is left out, and its sender named.",
        "Private inputs (printed only because this is a classroom):",
        *vote_lines(x, answers),
        *(f"  P{i} {how}: it submits {vec(v)} instead, with a proof" for i, (how, v) in sorted(bad.items())),
        f"Under SecAgg+ or the full mesh, which check nothing of an input, these {len(bad)} report(s) "
        f"would add {vec(np.sum([v for _, v in bad.values()], axis=0))} to the count.",
    ]  # fmt: skip

    def describe(s: Sent) -> list[tuple[str, str]]:
        fields = msgspec.structs.asdict(s.msg)
        return [(f, _short(v)) for f, v in fields.items() if f not in ("run", "step", "v", "nonces", "public_shares")]

    def notes(key: str, ctx: Context) -> list[Note]:
        totals = ctx.of_type("Prio3Total")
        if not totals:
            return []
        named = [int(r) for r in totals[0].msg.rejected.to_numpy()]  # type: ignore[attr-defined]
        return [(
            f"The leader and the helper each turned their share of every report's proof into a "
            f"verifier share and compared them (the aggregation job): for a one-hot vote they agree, "
            f"for {', '.join(f'P{r}' for r in named) or 'nobody'} they do not -- a vote with two ones "
            f"or a 5 fails the circuit's check although neither aggregator saw any vote. Those "
            f"reports are left out and their senders named with the total.",
            tuple(named) or (COORDINATOR,),
        )]  # fmt: skip

    def check(ctx: Context) -> tuple[list[str], bool]:
        leader = ctx.roles[COORDINATOR]
        if leader.error is not None or not leader.done:
            return [f"no result: {leader.error}"], False
        res = spec.result_of(leader)
        rejected = sorted(int(r) for r in getattr(res, "rejected", ()))
        inc = list(res.included)
        plain = x[np.asarray(inc) - 1].sum(axis=0)
        same = bool(np.array_equal(res.total, plain))
        lines = [f"rejected and named: {', '.join(f'P{r} ({bad[r][0]})' if r in bad else f'P{r}' for r in rejected) or 'nobody'}",
                 f"inputs included: P{', P'.join(map(str, inc))}",
                 f"plain count of the honest votes (computed directly): {vec(plain)}",
                 f"P0's result: {vec(res.total)} {'== plain count: OK' if same else '!= plain count: WRONG'}"]  # fmt: skip
        return lines, same and rejected == sorted(bad)

    participants = {COORDINATOR: "P0", **{i: f"P{i}" for i in range(1, n + 1)}}
    return Lesson(
        protocol=spec.name, title=f"Prio3: votes with validity proofs, {n} parties, {len(bad)} trying to cheat",
        seed=seed, roles=roles, participants=participants, setup=setup, rounds=rounds, describe=describe,
        notes=notes, check=check, diagrams=[type(roles[COORDINATOR]), Prio3Client],
        extra={"inputs": x.tolist(), "cheaters": {str(i): v for i, (_, v) in bad.items()}, "helper": HELPER,
               "verdict": ("OK: every invalid vote was rejected and named, and the count is the honest votes'.",
                           "NOT OK: an invalid vote was counted, or an honest one rejected (see above).")},
    )  # fmt: skip
