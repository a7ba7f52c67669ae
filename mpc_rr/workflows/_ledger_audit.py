"""The ledger's fourth figure: an empirical lower bound, measured on the run's own releases.

``mpc-rr run --audit N`` (and the ``pipeline`` scenario kind's ``audit_trials``)
audit, after the run, the *strongest* release of each phase -- the report with
the largest local eps0, as the run deployed it -- with N black-box trials:

* a **shuffled** phase (``secure-sum`` / ``anonymous``): the shuffled-output
  audit (:func:`mpc_rr.adversary.audit_shuffle`) of k-RR at that eps0 over the
  phase's parties -- the analyst's view of the release (the multiset), party 1
  at either of two values, everybody else known;
* a **direct** phase: the audit of the k-RR randomizer itself
  (``mpc-rr audit --mechanism krr``; keep-or-uniform(p) over k values *is* k-RR
  at eps0, docs/rr_library.md, decision 1), since the analyst sees each report with its sender.

A release that is not k-RR (``Release.k`` unknown: the lambda and optimized
cluster mechanisms, RRBA's table-driven answers) and a phase that is not DP
(exact counts) get no audit: ``audit_lower`` stays ``None`` and the ledger says
so.  The lower bound of one release is a lower bound for its phase and for the
run (their outputs contain it; :func:`mpc_rr.privacy.with_audits`); it is never
the composition of several audits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from mpc_rr.core import UsageError
from mpc_rr.privacy import SHUFFLING, Ledger, PhaseSpec, Release, with_audits

__all__ = ["MAX_AUDIT_K", "audit_ledger", "audit_phase"]

MAX_AUDIT_K = 512  # the direct audit builds the k x k matrix of k-RR (2 MiB at 512)


def _strongest(spec: PhaseSpec) -> Release | None:
    finite = [r for r in spec.releases if math.isfinite(r.epsilon0) and r.k is not None]
    return max(finite, key=lambda r: r.epsilon0) if finite else None


def audit_phase(
    spec: PhaseSpec, delta: float, *, trials: int, confidence: float = 0.95, seed: int = 0
) -> float | None:
    """The Clopper-Pearson lower bound on the central epsilon of ``spec``'s strongest k-RR
    release (``None``: nothing auditable, see the module docstring)."""
    if spec.not_dp is not None:
        return None
    r = _strongest(spec)
    if r is None or r.k is None:
        return None
    if spec.channel in SHUFFLING:
        from mpc_rr.adversary import audit_shuffle

        n = r.parties or spec.parties
        if n < 2:
            return None
        a = audit_shuffle(r.epsilon0, n, delta=delta, trials=trials, confidence=confidence,
                          seed=seed, k=r.k)  # fmt: skip
        return float(a.epsilon_lower)
    if r.k > MAX_AUDIT_K:
        return None
    from mpc_rr.workflows._audit import MechanismParams, audit_mechanism

    rep = audit_mechanism("krr", trials=trials, confidence=confidence, seed=seed, curve=False,
                          params=MechanismParams(k=r.k, epsilon=r.epsilon0))  # fmt: skip
    return float(rep.result.epsilon_lower)


def audit_ledger(
    ledger: Ledger, specs: Sequence[PhaseSpec], *, trials: int, confidence: float = 0.95, seed: int = 0
) -> Ledger:
    """``ledger`` with every auditable phase's ``audit_lower`` filled (``trials`` per audit)."""
    if len(specs) != len(ledger.entries):
        raise UsageError(f"audit_ledger: {len(specs)} phase specs for {len(ledger.entries)} phases")
    lowers = [
        audit_phase(s, ledger.delta, trials=trials, confidence=confidence, seed=seed + i)
        for i, s in enumerate(specs)
    ]
    return with_audits(ledger, lowers)
