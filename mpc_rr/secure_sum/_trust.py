"""What a sum protocol needs of its parties: who must be honest, and what it proves of an input.

Two statements every sum protocol makes about a run (:class:`~mpc_rr.secure_sum.SumProtocol`'s
``trust`` and ``validity``):

* :class:`SumTrust` -- the coalition it hides inputs against: the fraction of clients
  ``max_corrupt`` that may collude with whoever learns the sum (party 0), the largest number
  of colluding clients under which each input stays hidden (``bound``), who else must be
  honest, and what the channel hides under those conditions.  The privacy ledger takes the
  colluders' reports out of the shuffle's blanket (they know their own reports) and gives no
  central figure when a coalition exceeds the bound (docs/privacy.md).
* the **input validity** a run proves: ``"none: one client can set any count"`` for a sum
  that adds whatever it is given (SecAgg+, the full mesh, the plaintext sum), or what a
  validity circuit proves (Prio3: e.g. one one-hot block per pair).  A malicious client can
  always lie *within* what is proved (report another valid vector); without a proof it can
  also add any amount to any count (``mpc-rr attack poison``, docs/secure_aggregation.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from mpc_rr.core import UsageError

__all__ = ["DEFAULT_MAX_CORRUPT", "NO_VALIDITY", "SumTrust", "colluders_in"]

DEFAULT_MAX_CORRUPT = 0.1
"""The fraction of clients assumed to collude with party 0 when a run names none: SecAgg+'s
default ``max_corrupt`` (what its threshold is sized for), used for every sum protocol so that
their ledgers compare under the same coalition."""

NO_VALIDITY = "none: one client can set any count"
"""The input validity of a sum that adds whatever a client submits."""


def colluders_in(fraction: float, n: int) -> int:
    """``floor(fraction * n)`` as the fraction is written (``0.29`` of 100 parties is 29; the float
    product ``28.999...`` would count one colluder fewer than declared)."""
    if not 0.0 <= fraction < 1.0:
        raise UsageError(f"max_corrupt must be in [0, 1), got {fraction}")
    return math.floor(Fraction(repr(float(fraction))) * int(n))


@dataclass(frozen=True)
class SumTrust:
    """The coalition one run of a sum protocol hides each input against (module docstring).

    ``max_corrupt``: the fraction of the ``n`` clients assumed to collude with party 0;
    ``colluders``: that many clients, ``floor(max_corrupt * n)``; ``bound``: the most colluding
    clients under which inputs stay hidden (``None``: no bound on clients -- another party,
    e.g. Prio3's helper, must be honest instead); ``honest``: who must be honest, in words;
    ``hides``: what the channel hides and on which conditions, in words.
    """

    protocol: str
    n: int
    max_corrupt: float
    colluders: int
    bound: int | None
    honest: str
    hides: str

    @property
    def exceeded(self) -> bool:
        """The coalition is larger than what the protocol hides inputs against."""
        return self.bound is not None and self.colluders > self.bound

    def to_json(self) -> dict[str, Any]:
        return {"protocol": self.protocol, "n": self.n, "max_corrupt": self.max_corrupt,
                "colluders": self.colluders, "bound": self.bound, "honest": self.honest,
                "hides": self.hides}  # fmt: skip
