"""The ``noise`` lesson: distributed noise inside a secure sum -- one answer hidden, the total
close, and the epsilon the library's accountant gives for the class.

Each party adds its share of Skellam noise to its one-hot answer before the answer enters the
SecAgg+ sum (Agarwal, Kairouz & Liu, NeurIPS 2021; :mod:`mpc_rr.secure_sum._noise`), as the
pipeline's dependence phase does: party ``i`` draws ``z_i ~ Sk(v / h_min)`` per option, where
``h_min`` is the fewest honest survivors the round allows (at most ``floor(max_dropout n)``
dropouts and ``floor(max_corrupt n)`` colluders, who add no noise), and sends
``x_i + clip(z_i, -c, c) + c`` -- in ``[0, 1 + 2c]``, the range SecAgg+ sums exactly.  The
total less ``c`` per included party is the true count plus the honest survivors' noise, whose
variance is at least ``v``: the smallest central Skellam variance whose epsilon at
``0.99 delta`` is the one asked for (:func:`~mpc_rr.secure_sum._noise.calibrate_noise`; the
epsilon on the screen is the library accountant's for that ``v``).  ``c`` is chosen so that
any draw is clipped with probability at most ``0.01 delta``
(:func:`~mpc_rr.secure_sum._noise.noise_offset`): the guarantee is ``(epsilon, delta)`` with
``delta =`` :data:`DELTA`.  Changing one student's answer moves two counts by one each
(replace-one: ``L1 = 2``).

Trace: ``mpc-rr classroom noise`` (the noise drawn from the seed: a teaching trace); live:
``mpc-rr classroom serve --protocol noise`` (each page draws its noise from
``crypto.getRandomValues``: ``static/noise.js``; each bot from the OS's CSPRNG).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import msgspec
import numpy as np

from mpc_rr.core import COORDINATOR, UsageError, WireArray
from mpc_rr.privacy._discrete import Sensitivity, skellam_noise
from mpc_rr.secure_sum._noise import SumNoise, calibrate_noise, honest_survivors, noise_offset
from scenarios.classroom.lesson import Context, Lesson, Note, Sent, drop_roles, vec
from scenarios.classroom.poll import entropies, labels, names, poll_inputs, vote_lines

__all__ = ["DELTA", "EPSILON", "class_noise", "noise_lesson", "poll_sensitivity"]

DELTA = 1e-6
"""The delta at which the lesson's epsilon is stated."""

EPSILON = 1.0
"""The default central epsilon of the class's total."""

def poll_sensitivity() -> Sensitivity:
    """A poll's one-hot answer, replace-one: one student changing its answer moves two cells by 1."""
    return Sensitivity(l1=2, l2=math.sqrt(2), linf=1, relation="replace-one")


def class_noise(n: int, options: int, epsilon: float, max_dropout: float, max_corrupt: float) -> tuple[SumNoise, int]:
    """``(noise, c)`` for a class of ``n`` over ``options`` answers: each student's Skellam
    variance for a central ``epsilon`` at ``0.99`` :data:`DELTA` in the worst case of honest
    survivors, and the clip-and-offset ``c`` (clipping probability ``0.01`` :data:`DELTA`)."""
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise UsageError(f"--epsilon must be finite and > 0, got {epsilon}")
    h = honest_survivors(n, max_dropout, max_corrupt)
    v, eps = _central(float(epsilon))
    noise = SumNoise(n, float(max_dropout), float(max_corrupt), h, v, poll_sensitivity(), eps, 0.99 * DELTA)
    return noise, noise_offset(noise, options, 0.01 * DELTA)


@functools.lru_cache(maxsize=16)
def _central(epsilon: float) -> tuple[float, float]:
    """The central variance and its epsilon (the accountant's, at ``0.99 DELTA``): they depend on
    epsilon and the sensitivity alone, not on the class (a few PLD evaluations: kept)."""
    noise = calibrate_noise(epsilon, 0.99 * DELTA, 1, poll_sensitivity())
    return noise.central_variance, noise.epsilon


def _field(value: Any) -> str:
    if isinstance(value, WireArray):
        a = value.to_numpy()
        return vec(a) if a.ndim == 1 else f"{a.shape} array"
    if isinstance(value, bytes):
        return f"{len(value)} B {value[:8].hex()}..." if len(value) > 8 else value.hex()
    if isinstance(value, list | tuple):
        return f"{len(value)} items"
    return str(value)


def noise_lesson(
    n: int, *, seed: int, options: int | Sequence[str] = 2, drops: dict[int, str] | None = None,
    epsilon: float = EPSILON,
) -> Lesson:  # fmt: skip
    """``n`` one-hot votes, each with its party's Skellam noise, summed by SecAgg+."""
    from mpc_rr.secure_sum import step_messages, sum_protocol
    from mpc_rr.secure_sum.secagg import secagg_public, secagg_roles
    from scenarios.classroom import lesson_protocol
    from scenarios.classroom.secagg_lesson import CLASSROOM_MAX_DROPOUT

    drops = drops or {}
    protocol = lesson_protocol("noise")
    answers = labels(options)
    k = len(answers)
    x = poll_inputs(n, k, seed).astype(np.int64)
    run = f"classroom-noise-{seed}"
    cfg = secagg_public(n, k, run=run, max_dropout=CLASSROOM_MAX_DROPOUT).config
    noise, c = class_noise(n, k, epsilon, cfg.max_dropout, cfg.max_corrupt)
    rng = np.random.default_rng([seed, 0x6E6F697365])  # a teaching trace: the noise from the seed
    z = np.clip(skellam_noise(noise.client_variance, (n, k), rng), -c, c)
    sent = x + z + c
    public = secagg_public(n, k, run=run, max_dropout=CLASSROOM_MAX_DROPOUT, max_value=1 + 2 * c)
    modulus = public.config.modulus
    roles = secagg_roles(sent, public, entropy=entropies(seed))
    params = {"modulus": modulus, "offset": c, "threshold": public.config.threshold,
              "max_dropped": public.config.max_dropped}  # fmt: skip
    spec = sum_protocol(protocol)
    roles = drop_roles(roles, drops, step_messages(protocol))
    step_of = {(t[0] if isinstance(t, tuple) else t).__name__: s for s, t in spec.step_messages().items()}
    rounds: dict[str, tuple[str, str]] = {}
    current = spec.steps[0]
    for t in spec.message_types():
        current = step_of.get(t.__name__, current)
        rounds[t.__name__] = (current, f"Round {spec.steps.index(current) + 1} - {current}")
    sd_total = math.sqrt(n * noise.client_variance)
    setup = [
        f"{n} parties P1..P{n} each vote for one of {', '.join(answers)} (one-hot x_i) and add their "
        f"share of noise before the vote enters the SecAgg+ sum: z_i ~ Skellam(variance "
        f"{noise.client_variance:.4g}) per option, the difference of two Poisson draws.",
        f"Who must add noise: at most {cfg.max_dropped} dropout(s) and "
        f"{n - noise.honest_min - cfg.max_dropped} colluder(s) with the aggregator (who add none) leave "
        f"h_min = {noise.honest_min} honest survivors; their noise alone has variance >= "
        f"{noise.central_variance:.4g} per option.",
        f"Privacy of the total: epsilon = {noise.epsilon:.3f} at delta = {DELTA:g} (the library's "
        f"Skellam accountant, one student changing its answer moves two counts by one), for every "
        f"dropout and collusion pattern within those bounds.",
        f"Each party sends x_i + z_i + c with c = {c}: in [0, {1 + 2 * c}], the range SecAgg+ sums "
        f"exactly mod {modulus} (a draw beyond +-{c} is clipped: probability <= {0.01 * DELTA:g}, "
        f"counted in delta). The aggregator subtracts c per included party. The total's noise has "
        f"standard deviation {sd_total:.2f} per option when everyone stays.",
        "Private inputs and each party's noise (printed only because this is a classroom):",
        *(f"{line}  noise z_{i} = {vec(z[i - 1])}  enters the sum as {vec(x[i - 1] + z[i - 1])} + c"
          for i, line in enumerate(vote_lines(x, answers), 1)),
    ]  # fmt: skip

    def describe(s: Sent) -> list[tuple[str, str]]:
        fields = msgspec.structs.asdict(s.msg)
        # signatures are randomized (ECDSA in the simulated PKI): their size only, so that the
        # same seed gives the same trace
        return [(f, f"{len(v)} B" if isinstance(v, bytes) and "signature" in f else _field(v))
                for f, v in fields.items() if f not in ("run", "step", "v")]  # fmt: skip

    def notes(key: str, ctx: Context) -> list[Note]:
        if key != "masked":
            return []
        out: list[Note] = []
        for s in ctx.of_type("MaskedInput"):
            i = s.src
            out.append((
                f"P{i}'s answer as it entered the sum (under the masks): x_{i} + z_{i} = "
                f"{vec(x[i - 1] + z[i - 1])}. Even unmasked it would not say which option P{i} chose "
                f"for sure: the noise's standard deviation is {math.sqrt(noise.client_variance):.2f}.",
                (i,),
            ))  # fmt: skip
        return out

    def check(ctx: Context) -> tuple[list[str], bool]:
        server = ctx.roles[COORDINATOR]
        if server.error is not None or not server.done:
            return [f"no result: {server.error}"], False
        res = spec.result_of(server)
        inc = list(res.included)
        got = np.asarray(res.total, np.int64) - c * len(inc)
        plain = x[np.asarray(inc) - 1].sum(axis=0)
        noise_sum = z[np.asarray(inc) - 1].sum(axis=0)
        same = bool(np.array_equal(got, plain + noise_sum))
        return [
            f"inputs included: P{', P'.join(map(str, inc))}",
            f"noisy total (the sum less c = {c} per included party): {vec(got)}",
            f"true count of the included votes (computed directly): {vec(plain)}",
            f"their noise summed: {vec(noise_sum)}; true count + noise = {vec(plain + noise_sum)} "
            f"{'== the noisy total: OK' if same else '!= the noisy total: WRONG'}",
            f"epsilon = {noise.epsilon:.3f} at delta = {DELTA:g} for the total; the noise per option "
            f"has standard deviation {math.sqrt(len(inc) * noise.client_variance):.2f}",
        ], same

    return Lesson(
        protocol="noise", title=f"Distributed noise in a SecAgg+ sum, {n} parties, epsilon {noise.epsilon:.2f}",
        seed=seed, roles=roles, participants=names(n, "Agg"), setup=setup, rounds=rounds,
        describe=describe, notes=notes, check=check, drops=drops,
        extra={"inputs": x.tolist(), "noise": z.tolist(), "modulus": modulus, "offset": c,
               "epsilon": noise.epsilon, "delta": DELTA, "honest_min": noise.honest_min,
               "client_variance": noise.client_variance, "params": params,
               "verdict": ("OK: the noisy total is the true count plus the parties' noise; no single "
                           "answer was ever in the clear.", "NO NOISY TOTAL (see above).")},
    )  # fmt: skip
