"""One-run audit (Steinke, Nasr & Jagielski, "Privacy auditing with one (1) training run", 2023).

Every party of *one* simulated collection is a canary: party ``i`` holds
record ``x_0`` or ``x_1`` according to a secret fair coin ``S_i``; the whole
collection runs once; the auditor sees the released outputs and guesses
``S_i`` for some parties, abstaining on the rest.  Their Theorem (pure
epsilon, delta = 0): if the collection is epsilon-DP with respect to each
party's record, the number of correct guesses among ``r`` guesses is
stochastically dominated by ``Binomial(r, e^eps / (1 + e^eps))`` -- even
though the canaries share one run.  The largest epsilon rejected at level
``alpha`` is ``logit`` of the one-sided Clopper-Pearson lower bound, which is
what :func:`one_run_audit` returns.

The collection is a function ``collect(records, rng) -> outputs`` of *all*
records, so the same audit applies to a single local randomizer (each party
randomizes its own record: ``mechanism.perturb``) and to the
pipeline end to end (dependence phase + release, composed).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mpc_rr.adversary._audit import AuditVerdict, epsilon_from_precision
from mpc_rr.adversary._designs import GuessingTest, structured_test
from mpc_rr.adversary._stats import check_confidence, check_count, cp_lower, cp_two_sided
from mpc_rr.core import UsageError
from mpc_rr.mechanisms import JointMechanism

__all__ = ["OneRunResult", "one_run_audit"]

Collect = Callable[[np.ndarray, np.random.Generator], np.ndarray]


@dataclass(frozen=True, kw_only=True)
class OneRunResult(AuditVerdict):
    """Outcome of a one-run audit: ``success`` is the precision of the guesses on the coins."""

    parties: int
    canaries: tuple[tuple[int, ...], tuple[int, ...]]



def one_run_audit(
    mechanism: JointMechanism,
    parties: int,
    rng: np.random.Generator,
    *,
    collect: Collect | None = None,
    test: GuessingTest | None = None,
    confidence: float = 0.95,
    claimed: float | None = None,
) -> OneRunResult:
    """Audit one collection of ``parties`` canaries (Steinke et al. 2023, delta = 0).

    Parameters
    ----------
    mechanism:
        Supplies ``sizes`` (and the default collection ``mechanism.perturb``).
    collect:
        The collection: all ``(parties, k)`` records in, ``(parties, k)`` outputs
        out (party ``i``'s output in row ``i``).  Default: each party applies
        ``mechanism`` to its own record.
    test:
        Its first two candidates are the canary records and its guess rule
        (restricted to them) decides guesses and abstentions; default
        :func:`~mpc_rr.adversary.structured_test`.
    """
    parties = check_count(parties, "parties", 2)
    confidence = check_confidence(confidence)
    start = time.perf_counter()
    if test is None:
        test = structured_test(mechanism)
    canaries = test.inputs[:2]
    coins = rng.integers(0, 2, size=parties)
    records = canaries[coins]
    run = collect if collect is not None else mechanism.perturb
    outputs = np.asarray(run(records, rng))
    if outputs.reshape(parties, -1).shape[1] != len(test.sizes):
        raise UsageError(
            f"collect returned shape {outputs.shape}; need one output record per party "
            f"({parties}, {len(test.sizes)})"
        )
    g = test.guess(outputs)
    g = np.where(g <= 1, g, -1)  # candidates beyond the two canaries: abstain
    guesses = int(np.count_nonzero(g >= 0))
    correct = int(np.count_nonzero(g == coins))
    lo = cp_lower(correct, guesses, 1.0 - confidence)
    eps_lower = max(0.0, epsilon_from_precision(lo, 2)) if lo > 0 else 0.0
    true = None
    if collect is None:
        true = float(mechanism.epsilon)
    return OneRunResult(
        parties=parties,
        guesses=guesses,
        correct=correct,
        success=correct / guesses if guesses else 0.5,
        baseline=0.5,
        ci=cp_two_sided(correct, guesses, confidence) if guesses else (0.0, 1.0),
        confidence=confidence,
        epsilon_lower=eps_lower,
        epsilon_true=true,
        epsilon_claimed=None if claimed is None else float(claimed),
        canaries=(tuple(int(v) for v in canaries[0]), tuple(int(v) for v in canaries[1])),
        seconds=time.perf_counter() - start,
    )
