"""The checks of an RR-Adjustment run that a user is warned about (``mpc-rr run``, the pipeline kind).

RR-Adjustment (Domingo-Ferrer & Soria-Comas, Algorithm 2) reweights the released
records until their one-way marginals match the estimated ones.  Each record's
weight is a product of one factor per attribute group, so on wide data a few
records can carry the whole estimate: the checks below say when the fit did not
converge, when more passes could help, and when the effective number of records
(Kish, ``(sum w)^2 / sum w^2``) is too small for the adjusted estimate to be
trusted -- all from the weights alone, so a deployment can compute them -- and,
in a simulation, when the adjusted estimate was worse than the unadjusted one
against the true records.
"""

from __future__ import annotations

import math

import numpy as np

from mpc_rr.estimation import AdjustmentResult

__all__ = ["FEW_RECORDS", "WORSE_BY", "adjustment_checks", "effective_records"]


WORSE_BY = 1.1
"""An adjusted estimate counts as worse when its median relative error exceeds the unadjusted
one's by more than 10% (query noise alone moves a median of 200 queries by a few percent)."""


def _worse(relative_error: dict[str, dict[str, float]], method: str) -> tuple[list[tuple[float, float]], int]:
    """The (adjusted, unadjusted) errors where ``method`` (a "+Adjustment" one) is worse by
    :data:`WORSE_BY`, and how many coverages were compared."""
    base = relative_error.get(method.removesuffix("+Adjustment"))
    if not method.endswith("+Adjustment") or base is None:
        return [], 0
    mine = relative_error[method]
    pairs = [(mine[s], base[s]) for s in mine if s in base and mine[s] is not None and base[s] is not None
             and math.isfinite(mine[s]) and math.isfinite(base[s])]  # fmt: skip
    return [(a, b) for a, b in pairs if a > WORSE_BY * b], len(pairs)


FEW_RECORDS = 0.1
"""RR-Adjustment's estimate counts as resting on few records when the effective sample size of
its weights (Kish, ``1 / sum w^2``) is below this fraction of the randomized records."""


def effective_records(weights: np.ndarray) -> float:
    """Kish's effective sample size ``1 / sum w^2`` of weights summing to 1 (``n`` for uniform
    weights, 1 when one record carries everything)."""
    w = np.asarray(weights, dtype=float)
    sq = float(np.dot(w, w))
    return 1.0 / sq if sq > 0 else 0.0


def adjustment_checks(
    relative_error: dict[str, dict[str, float]], adjustments: dict[str, AdjustmentResult]
) -> list[str]:
    """What a researcher must be told about RR-Adjustment (Algorithm 2), never left silent.

    Why it can make an estimate worse: the adjusted joint distribution is the randomized
    records reweighted, and a record's weight is a product of one factor per group (its
    values' target over randomized mass).  With many groups the product spreads the weights
    exponentially: on 37 attributes of alarm at p = 0.7 the weights converge in 17 passes,
    every one-way marginal matches, and 7 % of the records carry the estimate (their
    effective sample size); the joint estimate is then the noise of a few hundred
    randomized records.  More passes do not help (it has converged), and where the passes
    do not converge the targets conflict (p = 0.3 there: a marginal gap of 0.49 after 300
    passes, 0.1 % effective records).

    The checks, from what a deployment has (the weights; no true record):

    * few effective records (below :data:`FEW_RECORDS` of them): the estimate rests on
      few randomized records: use the unadjusted one;
    * no convergence within the passes: with few effective records, the targets
      conflict (more passes do not help); otherwise more passes may
      (``--adjust-iterations``).

    And, where the true records are known (a simulation), an adjusted estimate *worse* than
    the one it adjusts (median relative error above it by more than :data:`WORSE_BY` at any
    query coverage), said as measured against them.
    """
    out = []
    for method, run in adjustments.items():
        n = len(run.weights)
        eff = effective_records(run.weights)
        few = n > 0 and eff < FEW_RECORDS * n
        base = method.removesuffix("+Adjustment")
        if not run.converged and few:
            out.append(
                f"{method}: RR-Adjustment did not converge in {run.iterations} passes (largest "
                f"marginal gap {run.max_marginal_gap:.2g}, L1) and its weights rest on "
                f"{eff:,.0f} effective records of {n:,}: the estimated marginals conflict beyond "
                f"what reweighting the randomized records can meet, and more passes do not "
                f"change that; use {base} (the unadjusted estimate)"
            )
        elif not run.converged:
            out.append(
                f"{method}: RR-Adjustment stopped at its limit of {run.iterations} passes without "
                f"converging (largest marginal gap {run.max_marginal_gap:.2g}, L1); its figures come "
                "from an unconverged fit: allow more passes (--adjust-iterations; a scenario's "
                "adjust_iterations)"
            )
        elif few:
            out.append(
                f"{method}: RR-Adjustment's weights rest on {eff:,.0f} effective records of "
                f"{n:,} (Kish, 1/sum w^2): each record's weight is a product of one factor per "
                f"group, and over many groups a few records carry the estimate, whose joint "
                f"structure is then their randomization noise; use {base} (the unadjusted estimate)"
            )
    for method in relative_error:
        worse, total = _worse(relative_error, method)
        if worse:
            shown = ", ".join(f"{a:.3g} vs {b:.3g}" for a, b in worse[:3])
            out.append(
                f"{method} is worse than {method.removesuffix('+Adjustment')} without it at "
                f"{len(worse)} of {total} query coverages (median relative error {shown}, "
                "measured against the true records): RR-Adjustment kept the randomized records' "
                "joint noise; use the unadjusted estimate"
            )
    return out
