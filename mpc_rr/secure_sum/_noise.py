"""Distributed Skellam noise inside a secure sum: calibration, the client's step, the modulus.

**Who must add noise.**  ``n`` clients; at most ``floor(max_dropout n)`` drop out and at
most ``floor(max_corrupt n)`` collude with the aggregator -- colluders add no noise (or
subtract theirs: they know it).  The fewest honest survivors are therefore

    h_min = n - floor(max_dropout n) - floor(max_corrupt n),

and each client adds ``Sk(v / h_min)`` per cell, so the honest survivors' noise alone is
``Sk(h v / h_min)`` with ``h >= h_min``: variance at least ``v``, exactly Skellam (sums of
Skellams are Skellam; Agarwal, Kairouz & Liu, NeurIPS 2021).  Extra noise is
post-processing (``Sk(a + b) = Sk(a) + Sk(b)``, independent), so the central (epsilon,
delta) of ``Sk(v)`` (:func:`mpc_rr.privacy.skellam_epsilon`) holds for every dropout and
collusion pattern within the bounds.

**The modulus.**  A noisy input ``x + z`` can be negative, so a client sends
``(x + z) mod M`` and the total is lifted back to the integers: residues at or above
``n max_value + B + 1`` stand for negative totals (:func:`decode_noisy_sum`).  This is exact
as long as every cell's total noise lies in ``[-B, B]`` and ``M > n max_value + 2 B``.
With all ``n`` clients' noise (the most there can be: variance ``n v / h_min``), the
Chernoff bound of the Skellam tail, ``P(|Z| >= B) <= 2 exp(V (sqrt(1 + (B/V)^2) - 1) -
B asinh(B/V))``, and a union bound over the cells give the ``B`` for which the sum wraps
with probability at most ``wrap_probability`` (:func:`noise_modulus`).

**Inputs in range.**  Sum protocols that check each input's range (``[0, max_value]``;
Prio3 proves it) take the noise clipped and offset: a client sends
``x + clip(z, -c, c) + c`` in ``[0, max_value + 2c]`` and the total is shifted back by
``c`` per included client (:func:`noise_offset`, :func:`offset_noisy_input`).  The clipped
noise differs from the Skellam noise only when some draw exceeds ``c``; ``c`` is chosen so
that this happens with probability at most ``beta`` over all clients and cells, and the
joint distributions are then within total variation ``beta``: the guarantee becomes
``(epsilon, delta + beta)``.

Protocol moduli: the full mesh works mod ``n + 1`` by default and accepts any modulus in
``[2, 2^56]``; SecAgg+ accepts ``[2, 2^32]``; Prio3 sums in Field64 (``p = 2^64 - 2^32 + 1``)
or Field128, but its validity circuit range-checks each measurement, so a noisy input must
be offset by ``B`` and range-checked in ``[0, max_value + 2 B]`` (:func:`protocol_modulus`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.privacy import (
    Sensitivity,
    skellam_epsilon,
    skellam_noise,
    skellam_tail_radius,
    skellam_variance,
)
from mpc_rr.secure_sum.secagg._params import parties_in

__all__ = [
    "SumNoise",
    "calibrate_noise",
    "decode_noisy_sum",
    "honest_survivors",
    "noise_modulus",
    "noise_offset",
    "noisy_inputs",
    "offset_noisy_input",
    "protocol_modulus",
]

def protocol_modulus(protocol: str) -> int | None:
    """The largest modulus sum ``protocol`` takes (:attr:`SumProtocol.max_modulus`; Prio3: its
    Field64 prime; ``None``: not stated)."""
    from mpc_rr.secure_sum._family import sum_protocol

    return sum_protocol(protocol).max_modulus


def honest_survivors(n: int, max_dropout: float, max_corrupt: float) -> int:
    """``h_min = n - floor(max_dropout n) - floor(max_corrupt n)``: the fewest honest survivors."""
    if n < 1:
        raise UsageError(f"n must be >= 1, got {n}")
    for name, f in (("max_dropout", max_dropout), ("max_corrupt", max_corrupt)):
        if not 0 <= f < 1:
            raise UsageError(f"{name} must be in [0, 1), got {f}")
    h = n - parties_in(max_dropout, n) - parties_in(max_corrupt, n)
    if h < 1:
        raise UsageError(
            f"no honest survivor is guaranteed: n = {n}, max_dropout = {max_dropout}, "
            f"max_corrupt = {max_corrupt} leave h_min = {h}"
        )
    return h


@dataclass(frozen=True)
class SumNoise:
    """The noise of one secure sum: each client adds ``Sk(client_variance)`` per cell.

    ``central_variance`` (``v``) is what the fewest honest survivors (``honest_min``) add
    together; ``epsilon`` is the accountant's figure at ``delta`` for ``v`` and
    ``sensitivity`` (replace-one unless stated).  ``dropouts`` and ``colluders``: the
    counts a protocol stated (:class:`~mpc_rr.secure_sum._protocol.DistributedNoise`); ``None``:
    ``floor(max_dropout n)`` and ``floor(max_corrupt n)``.
    """

    n: int
    max_dropout: float
    max_corrupt: float
    honest_min: int
    central_variance: float
    sensitivity: Sensitivity
    epsilon: float
    delta: float
    dropouts: int | None = None
    colluders: int | None = None

    @property
    def client_variance(self) -> float:
        return self.central_variance / self.honest_min

    def assumption(self) -> str:
        """The sentence the ledger prints next to the central figure."""
        drop = parties_in(self.max_dropout, self.n) if self.dropouts is None else self.dropouts
        bad = parties_in(self.max_corrupt, self.n) if self.colluders is None else self.colluders
        return (
            f"at most {drop} dropouts and "
            f"{bad} colluders (who add no noise) among "
            f"{self.n} parties: the {self.honest_min} honest survivors' Skellam noise alone has "
            f"variance >= {self.central_variance:.4g} per cell"
        )


def calibrate_noise(
    epsilon: float,
    delta: float,
    n: int,
    sensitivity: Sensitivity,
    max_dropout: float = 0.0,
    max_corrupt: float = 0.0,
) -> SumNoise:
    """The per-client noise for a central ``(epsilon, delta)`` in the worst case the run allows."""
    h = honest_survivors(n, max_dropout, max_corrupt)
    if sensitivity.linf != 1:
        raise UsageError(
            f"the Skellam accountant needs unit coordinate changes, got linf = {sensitivity.linf}"
        )
    v = skellam_variance(epsilon, delta, sensitivity.cells)
    eps = skellam_epsilon(v, sensitivity.cells, delta)
    return SumNoise(n, float(max_dropout), float(max_corrupt), h, v, sensitivity, eps, float(delta))


def noisy_inputs(
    x: np.ndarray, noise: SumNoise, rng: np.random.Generator, modulus: int
) -> np.ndarray:
    """A client's input for the sum: ``(x + Sk(client_variance)) mod modulus`` (uint64).

    ``rng``: seeded in simulations, :func:`mpc_rr.core.csprng_generator` in deployments.
    """
    a = np.asarray(x)
    if a.ndim != 1 or a.dtype.kind not in "biu":
        raise UsageError(f"x must be a 1-D integer vector, got shape {a.shape}, dtype {a.dtype}")
    if not 2 <= int(modulus) <= 2**63:
        raise UsageError(f"modulus must be in [2, 2^63], got {modulus}")
    z = skellam_noise(noise.client_variance, a.size, rng)
    out: np.ndarray = np.mod(a.astype(np.int64) + z, int(modulus)).astype(np.uint64)
    return out


def noise_modulus(
    n: int, max_value: int, cells: int, noise: SumNoise, wrap_probability: float = 1e-9
) -> tuple[int, int]:
    """``(M, B)``: the smallest power of two ``M`` and noise bound ``B`` for a sum that wraps
    with probability at most ``wrap_probability`` (any cell's total noise outside
    ``[-B, B]``; all ``n`` clients' noise, union bound over ``cells``)."""
    if not 0 < wrap_probability < 1:
        raise UsageError(f"wrap_probability must be in (0, 1), got {wrap_probability}")
    if max_value < 1 or cells < 1:
        raise UsageError(f"max_value and cells must be >= 1, got {max_value}, {cells}")
    total_var = n * noise.client_variance
    bound = math.ceil(skellam_tail_radius(total_var, wrap_probability / (2 * cells)))
    need = n * max_value + 2 * bound + 1
    return 1 << (need - 1).bit_length(), bound


def decode_noisy_sum(
    total: np.ndarray, modulus: int, n: int, max_value: int, bound: int
) -> np.ndarray:
    """The integer noisy totals from the residues mod ``modulus`` (int64; may be negative).

    Residues above ``n max_value + bound`` stand for negative totals (``r - modulus``).
    """
    if int(modulus) <= n * max_value + 2 * bound:
        raise UsageError(
            f"modulus {modulus} must exceed n * max_value + 2 * bound = {n * max_value + 2 * bound}"
        )
    r = np.asarray(total).astype(np.int64)
    out: np.ndarray = np.where(r > n * max_value + bound, r - int(modulus), r)
    return out


def noise_offset(noise: SumNoise, cells: int, beta: float) -> int:
    """``c`` such that some client's draw of ``Sk(client_variance)`` in some of ``cells`` cells
    leaves ``[-c, c]`` with probability at most ``beta`` (Chernoff bound, union over
    ``n * cells`` draws)."""
    if not 0 < beta < 1:
        raise UsageError(f"beta must be in (0, 1), got {beta}")
    if cells < 1:
        raise UsageError(f"cells must be >= 1, got {cells}")
    return math.ceil(skellam_tail_radius(noise.client_variance, beta / (2 * noise.n * cells)))


def offset_noisy_input(
    x: np.ndarray, noise: SumNoise, offset: int, rng: np.random.Generator
) -> np.ndarray:
    """``x + clip(Sk(client_variance), -offset, offset) + offset`` (int64, nonnegative)."""
    a = np.asarray(x)
    if a.ndim != 1 or a.dtype.kind not in "biu":
        raise UsageError(f"x must be a 1-D integer vector, got shape {a.shape}, dtype {a.dtype}")
    if offset < 0:
        raise UsageError(f"offset must be >= 0, got {offset}")
    z = np.clip(skellam_noise(noise.client_variance, a.size, rng), -offset, offset)
    out: np.ndarray = a.astype(np.int64) + z + offset
    return out
