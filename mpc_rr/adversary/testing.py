"""The conformance kit's adversarial checks (:mod:`mpc_rr.secure_sum.testing`).

Importing this module adds, for every protocol that makes public draws
(:data:`~mpc_rr.adversary.PUBLIC_DRAW_PROTOCOLS`: SecAgg+'s graph and
consistency committee), the check ``public-draws``
(:func:`~mpc_rr.adversary.check_public_draws`): fresh draws for the same roster
and label, an equivocating aggregator and a withholding party named, and an
adaptive coalition -- the server and ``max_corrupt`` of the parties, chosen
with everything public before the draw -- at the baseline, while the named
broken variant (the draw derived from the run label) recovers every input.
About 20 s per protocol: the kit's slow tier.
"""

from __future__ import annotations

from mpc_rr.secure_sum import SumProtocol
from mpc_rr.secure_sum.testing import KitRunner, register_check

__all__ = ["check_public_draws_of"]


def check_public_draws_of(protocol: SumProtocol, runner: KitRunner | None = None) -> None:
    """``protocol``'s public draws pass :func:`~mpc_rr.adversary.check_public_draws`."""
    from mpc_rr.adversary import check_public_draws

    result = check_public_draws(protocol.name)
    assert result.ok, f"{protocol.name}'s public draws: {result}"


def _draws(protocol: SumProtocol) -> bool:
    from mpc_rr.adversary._draw_check import PUBLIC_DRAW_PROTOCOLS

    return protocol.name in PUBLIC_DRAW_PROTOCOLS


register_check("public-draws", check_public_draws_of, any_runner=False, slow=True, applies=_draws)
