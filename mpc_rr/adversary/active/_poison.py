"""Poisoning a secure sum: how far ``M`` malicious clients move a released count.

``n`` parties each hold a category in ``[0, D)`` and submit its one-hot
vector (the secure-sum dependence's cells, RRBA's tally); the last ``M``
parties are malicious and want to raise the count of cell ``target``.
Strategies:

* ``out-of-range`` -- submit ``boost`` (default 10^6) in the target cell.  A
  sum without validity checks (SecAgg+, the full mesh: the broken baseline
  here) adds it: the count moves by ``M * boost``; Prio3's proof rejects the
  report and names its sender, so the count does not move.
* ``chosen`` -- submit a *valid* one-hot vector on the target (input
  manipulation).  No validity proof can refuse it; each client moves the
  count by at most 1: the bound is ``M``.
* ``skip-rr`` -- honest parties randomize with k-RR
  (:class:`~mpc_rr.mechanisms.UniformMixture`, keep ``a``: diagonal
  ``p = a + (1 - a)/D``, off-diagonal ``q = (1 - a)/D``); the malicious skip
  the randomization and report the target (Cheu, Smith & Ullman 2021,
  "Manipulation attacks in local differential privacy"; with one target item
  this is Cao, Jia & Gong 2021's maximal gain attack).  The unbiased
  estimator ``n_t = (c_t - n q) / (p - q)`` turns each fake report into
  ``1 / (p - q)`` true ones: ``M`` fake reports shift the estimate by at most
  ``M / (p - q)`` (the ``bound``; in expectation ``M (1 - q) / (p - q)``
  minus the malicious parties' own true target count).

The baseline run is the same parties all reporting honestly (same draws), so
``target_shift`` is exactly what the malicious clients bought.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.core import COORDINATOR, HarnessRunner, Runner, UsageError
from mpc_rr.mechanisms import keep_or_uniform
from mpc_rr.secure_sum import SecureSumPlan, sum_options, sum_protocol
from mpc_rr.secure_sum._trust import NO_VALIDITY
from mpc_rr.secure_sum.prio3 import SPEC as PRIO3

__all__ = ["POISON_STRATEGIES", "PoisonResult", "poison_attack"]

POISON_STRATEGIES = ("out-of-range", "chosen", "skip-rr")


@dataclass(frozen=True)
class PoisonResult:
    """What ``M`` malicious clients did to the released target count."""

    protocol: str
    strategy: str
    parties: int
    malicious: tuple[int, ...]
    target: int
    rejected: tuple[int, ...]
    count_honest: int
    count_released: int
    target_shift: float
    bound: float
    estimate_honest: float | None = None
    estimate_released: float | None = None
    validity: str = NO_VALIDITY  # what the sum proved of each input (SumProtocol.validity_of)

    def to_json(self) -> dict[str, Any]:
        return {
            "protocol": self.protocol,
            "validity": self.validity,
            "strategy": self.strategy,
            "parties": self.parties,
            "malicious": list(self.malicious),
            "target": self.target,
            "rejected": {"count": len(self.rejected), "ids": list(self.rejected)},
            "count_honest": self.count_honest,
            "count_released": self.count_released,
            "target_shift": self.target_shift,
            "bound": None if np.isinf(self.bound) else self.bound,
            "bound_text": "unbounded (any value below the modulus)"
            if np.isinf(self.bound)
            else None,
            "estimate_honest": self.estimate_honest,
            "estimate_released": self.estimate_released,
        }


def _one_hot(values: np.ndarray, cells: int) -> np.ndarray:
    x = np.zeros((values.size, cells), np.int64)
    x[np.arange(values.size), values] = 1
    return x


def _run(protocol: str, x: np.ndarray, runner: Runner, *, swap: dict[int, Any] | None = None,
         options: dict[str, Any] | None = None) -> tuple[np.ndarray, tuple[int, ...], str]:  # fmt: skip
    spec = sum_protocol(protocol)
    # the honest inputs are one-hot counts: a protocol that proves validity proves exactly that
    parsed = spec.one_hot_options(sum_options(protocol, options or {}), (x.shape[1],))
    plan = SecureSumPlan(protocol, x, run=f"poison-{protocol}", options=parsed)
    roles = plan.build()
    for pid, make in (swap or {}).items():
        roles[pid] = make(roles[pid])
    res = runner(roles)
    r = spec.result_of(res.roles[COORDINATOR])
    validity = spec.validity_of(plan.public()) if spec.validity is not None else NO_VALIDITY
    return np.asarray(r.total, dtype=np.int64), tuple(getattr(r, "rejected", ())), validity


def poison_attack(
    protocol: str,
    *,
    parties: int,
    cells: int,
    malicious: int,
    strategy: str,
    target: int = 0,
    keep: float = 0.5,
    boost: int = 1_000_000,
    seed: int = 0,
    runner: Runner | None = None,
) -> PoisonResult:
    """Run the honest baseline and the attack over ``protocol``; report the target's shift (module doc)."""
    if strategy not in POISON_STRATEGIES:
        raise UsageError(
            f"unknown strategy {strategy!r}; the strategies are {', '.join(POISON_STRATEGIES)}"
        )
    if not 1 <= malicious < parties:
        raise UsageError(
            f"--malicious must be in [1, parties - 1 = {parties - 1}], got {malicious}"
        )
    if not 0 <= target < cells:
        raise UsageError(f"--target must be a cell in [0, {cells}), got {target}")
    spec = sum_protocol(protocol)
    if not spec.total_at_coordinator:
        raise UsageError(
            f"{protocol}: the poisoning attack needs a sum whose party 0 learns the total"
        )
    runner = runner if runner is not None else HarnessRunner()
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, cells, parties)
    mech = keep_or_uniform(cells, keep) if strategy == "skip-rr" else None
    reports = mech.perturb(truth, rng) if mech is not None else truth
    honest_x = _one_hot(np.asarray(reports), cells)
    bad = tuple(range(parties - malicious + 1, parties + 1))
    attack_x = honest_x.copy()
    attack_x[parties - malicious :] = 0
    attack_x[parties - malicious :, target] = 1  # chosen / skip-rr: a valid one-hot on the target
    swap: dict[int, Any] = {}
    if strategy == "out-of-range":
        if protocol == PRIO3.name:
            attack_x = honest_x.copy()  # the plan needs encodable inputs; the roles cheat
            swap = {pid: _poisoner(target, boost) for pid in bad}
        else:
            attack_x = honest_x.copy()
            attack_x[parties - malicious :, target] += boost
    base_total, _, _ = _run(protocol, honest_x, runner)
    total, rejected, validity = _run(protocol, attack_x, runner, swap=swap)
    shift = float(total[target] - base_total[target])
    est_h = est_r = None
    if mech is not None:
        p, q = mech.diagonal, mech.off_diagonal
        n_in = parties - len(rejected)
        est_h = float((base_total[target] - parties * q) / (p - q))
        est_r = float((total[target] - n_in * q) / (p - q))
        shift = est_r - est_h
        bound = malicious / (p - q)  # worst case: no replaced report was on the target
    elif strategy == "chosen" or protocol == PRIO3.name:
        bound = float(malicious)
    else:
        bound = float("inf")
    return PoisonResult(
        protocol, strategy, parties, bad, target, rejected, int(base_total[target]), int(total[target]),
        shift, bound, est_h, est_r, validity,
    )  # fmt: skip


def _poisoner(target: int, boost: int) -> Any:
    """Replace a prio3 client by one that submits ``boost`` in ``target`` (an out-of-range report)."""

    def make(role: Any) -> Any:
        from mpc_rr.secure_sum.prio3 import Prio3Client
        from mpc_rr.secure_sum.prio3._params import poison_vector

        enc = poison_vector(role.x, role.pub.vdaf, boost=boost, cell=target)
        return Prio3Client(role.party_id, role.pub, role.x, encoded=enc)

    return make
