"""A sum that carries distributed noise, for any protocol with the capability.

:class:`~mpc_rr.secure_sum._protocol.DistributedNoise` is what a protocol states (how many clients a
completed run may leave out, how many may collude, the modulus it sums in);
:func:`plan_noisy_sum` turns that into one :class:`NoisySum`:

* **calibration** (:func:`~mpc_rr.secure_sum.calibrate_noise`'s rule, from the protocol's
  counts): ``h_min = n - dropouts - colluders`` honest survivors each add
  ``Sk(v / h_min)`` per cell, so their noise alone has variance ``v`` and the central
  ``(epsilon, delta)`` of ``Sk(v)`` (the dp-accounting PLD) holds for every dropout and
  collusion pattern within the protocol's bounds;
* **the inputs**: a client sends ``x + clip(z, -c, c) + c`` in ``[0, max_value + 2c]``
  (:func:`~mpc_rr.secure_sum.offset_noisy_input`), an ordinary input of the protocol
  (SecAgg+ and the full mesh check the range, Prio3 proves it); ``c`` is chosen so that
  some draw is clipped with probability at most ``clip_share * delta``
  (:func:`~mpc_rr.secure_sum.noise_offset`) -- the release is then
  ``(epsilon, delta)``-DP with the accountant's share ``(1 - clip_share) delta``;
* **no wrap**: the protocol's modulus for that ``max_value`` must exceed
  ``n (max_value + 2c)`` (checked in :meth:`NoisySum.public`), so the noisy sum is exact;
  :meth:`NoisySum.decode` removes the ``c`` of each included client.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.privacy import Sensitivity, skellam_epsilon, skellam_variance
from mpc_rr.secure_sum._family import sum_protocol, sum_protocols
from mpc_rr.secure_sum._noise import SumNoise, noise_offset, offset_noisy_input
from mpc_rr.secure_sum._protocol import DistributedNoise, SumProtocol, SumPublic

__all__ = ["NoisySum", "carries_noise", "noise_protocol_names", "plan_noisy_sum"]

DEFAULT_CLIP_SHARE = 0.01
"""The share of ``delta`` spent on the chance that some client's draw is clipped."""


def carries_noise(protocol: SumProtocol | str) -> bool:
    """Whether ``protocol`` can carry distributed noise (:class:`DistributedNoise`)."""
    spec = sum_protocol(protocol) if isinstance(protocol, str) else protocol
    return isinstance(spec, DistributedNoise)


def noise_protocol_names() -> tuple[str, ...]:
    """The registered sum protocols that can carry distributed noise."""
    return tuple(p.name for p in sum_protocols() if isinstance(p, DistributedNoise))


@dataclass(frozen=True)
class NoisySum:
    """Distributed noise in one sum of ``protocol`` among ``n`` clients over ``cells`` cells.

    ``noise``: the calibration (its ``delta`` is the accountant's share); ``offset``: ``c``;
    ``max_value``: the largest noiseless input; ``clip_delta``: the chance that some draw is
    clipped; ``options``: the protocol's parsed options the bounds were read from; ``spec``:
    the protocol itself (``None``: the one registered as ``protocol``).
    """

    protocol: str
    n: int
    cells: int
    noise: SumNoise
    offset: int
    max_value: int
    clip_delta: float
    options: Any = None
    spec: SumProtocol | None = field(default=None, compare=False, repr=False)

    @property
    def delta(self) -> float:
        """The release's delta: the accountant's plus the clipping's."""
        return self.noise.delta + self.clip_delta

    @property
    def input_max(self) -> int:
        """The largest input a client sends: ``max_value + 2c``."""
        return self.max_value + 2 * self.offset

    def public(self, *, run: str) -> SumPublic:
        """The protocol's public parameters for the noisy inputs; raises :class:`UsageError`
        when its modulus cannot hold ``n`` of them."""
        spec = self.spec if self.spec is not None else sum_protocol(self.protocol)
        pub = spec.public(self.n, self.cells, run=run, max_value=self.input_max, options=self.options)
        assert isinstance(spec, DistributedNoise)
        modulus = spec.noisy_modulus(pub)
        if modulus is not None and int(modulus) <= self.n * self.input_max:
            raise UsageError(
                f"distributed noise: the {self.protocol} sum works mod {modulus}, too small for "
                f"{self.n} noisy inputs up to {self.input_max}"
            )
        return pub

    def noisy_input(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """A client's input: ``x + clip(z, -c, c) + c`` (``rng``: seeded in simulations,
        :func:`~mpc_rr.core.csprng_generator` in deployments)."""
        a = np.asarray(x)
        if a.shape != (self.cells,) or a.dtype.kind not in "biu":
            raise UsageError(f"x must be an integer vector of {self.cells} cells, got {a.shape} {a.dtype}")
        if a.size and (int(a.min()) < 0 or int(a.max()) > self.max_value):
            raise UsageError(f"x must lie in [0, {self.max_value}], got [{a.min()}, {a.max()}]")
        return offset_noisy_input(a, self.noise, self.offset, rng)

    def decode(self, total: np.ndarray, included: int) -> np.ndarray:
        """The noisy integer totals (int64, may be negative) of a sum over ``included`` clients."""
        if not 0 <= int(included) <= self.n:
            raise UsageError(f"included must be in [0, {self.n}], got {included}")
        out: np.ndarray = np.asarray(total, dtype=np.int64) - int(included) * self.offset
        return out

    def epsilon_for(self, honest: int) -> float:
        """The central epsilon (at the accountant's delta) when ``honest`` clients' noise is in
        the total: ``Sk(honest * client_variance)``; ``inf`` for no honest client."""
        if honest < 1:
            return math.inf
        return skellam_epsilon(honest * self.noise.client_variance, self.noise.sensitivity.cells,
                               self.noise.delta)  # fmt: skip


@lru_cache(maxsize=64)
def _calibrated(epsilon: float, delta: float, cells: int) -> tuple[float, float]:
    """The central variance for ``(epsilon, delta)`` over ``cells`` unit shifts, and its epsilon
    (a PLD search of about a second: memoized, every block and protocol of a run shares it)."""
    v = skellam_variance(epsilon, delta, cells)
    return v, skellam_epsilon(v, cells, delta)


def plan_noisy_sum(
    protocol: SumProtocol | str,
    n: int,
    *,
    cells: int,
    epsilon: float,
    delta: float,
    sensitivity: Sensitivity,
    options: Any = None,
    max_value: int = 1,
    clip_share: float = DEFAULT_CLIP_SHARE,
) -> NoisySum:
    """The noise of a central ``(epsilon, delta)`` in a sum of ``protocol`` among ``n`` clients
    (module docstring); ``options``: the protocol's (parsed and fitted to ``n`` here).

    Raises :class:`UsageError` for a protocol without :class:`DistributedNoise`, bounds that
    leave no honest survivor, or a parameter out of range.
    """
    spec = sum_protocol(protocol) if isinstance(protocol, str) else protocol
    if not isinstance(spec, DistributedNoise):
        raise UsageError(
            f"the {spec.name} sum cannot carry distributed noise; the sums that can: "
            f"{', '.join(noise_protocol_names()) or 'none registered'}"
        )
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise UsageError(f"epsilon must be finite and > 0, got {epsilon}")
    if not 0 < delta < 1:
        raise UsageError(f"delta must be in (0, 1), got {delta}")
    if not 0 < clip_share < 1:
        raise UsageError(f"clip_share must be in (0, 1), got {clip_share}")
    if n < 1 or cells < 1 or max_value < 1:
        raise UsageError(f"n, cells and max_value must be >= 1, got {n}, {cells}, {max_value}")
    if sensitivity.linf != 1:
        raise UsageError(f"the Skellam accountant needs unit coordinate changes, got linf = {sensitivity.linf}")
    parsed = spec.options_for(options, n)
    dropouts, colluders = (int(v) for v in spec.noise_bounds(parsed, n))
    honest = n - dropouts - colluders
    if honest < 1:
        raise UsageError(
            f"distributed noise in {spec.name}: no honest survivor is guaranteed among {n} parties "
            f"({dropouts} may drop out and {colluders} collude); lower the bounds or add parties"
        )
    accountant = (1 - clip_share) * delta
    v, eps = _calibrated(float(epsilon), accountant, sensitivity.cells)
    noise = SumNoise(n, dropouts / n, colluders / n, honest, v, sensitivity, eps, accountant,
                     dropouts=dropouts, colluders=colluders)  # fmt: skip
    clip = clip_share * delta
    return NoisySum(spec.name, int(n), int(cells), noise, noise_offset(noise, cells, clip),
                    int(max_value), clip, parsed, spec)  # fmt: skip
