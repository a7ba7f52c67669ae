"""The range of the shuffle accountant (:mod:`mpc_rr.privacy._shuffle`), checkable without
importing it: a command line refuses a plan outside it before loading scipy."""

from __future__ import annotations

from mpc_rr.core import UsageError

__all__ = ["MAX_EPSILON0", "MAX_PARTIES", "check_epsilon0", "check_numerical_parties"]

MAX_EPSILON0 = 700.0
"""The largest local epsilon the accountant takes: it computes e^eps0 as a float, which
overflows past 709 (and a report that keeps its value with odds e^700 hides nothing)."""

MAX_PARTIES = 2**31 - 1
"""The numerical bound's largest n: scipy's binomial functions take n as a C int.  More parties
only amplify more (a shuffle of more reports is a post-processing of fewer, the others' reports
known), so the figure at this n bounds any larger one."""


def check_epsilon0(eps0: float) -> None:
    """Refuse a local epsilon above :data:`MAX_EPSILON0`."""
    if eps0 > MAX_EPSILON0:
        raise UsageError(f"epsilon0 must be at most {MAX_EPSILON0:g} (the accountant computes "
                         f"e^epsilon0, which overflows beyond 709), got {eps0:g}")  # fmt: skip


def check_numerical_parties(n: int) -> None:
    """Refuse more parties than the numerical bound computes (:data:`MAX_PARTIES`)."""
    if n > MAX_PARTIES:
        raise UsageError(
            f"the numerical bound is computed for at most {MAX_PARTIES:,} parties, got {int(n):,}: "
            f"more parties only amplify more, so its figure at {MAX_PARTIES:,} bounds yours "
            "(or use the closed form, bound='closed-form')"
        )
