"""Empirical epsilon audits: anchor, no-leak, honest-never-above, planted bug, one run."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest
from scipy import stats

from mpc_rr.adversary import audit, one_run_audit
from mpc_rr.adversary._audit import epsilon_from_precision, ldp_auditor_epsilon
from mpc_rr.adversary._designs import search_test, structured_test
from mpc_rr.adversary._stats import cp_lower
from mpc_rr.core import UsageError
from mpc_rr.mechanisms import (
    LambdaRandomization,
    RandomizationMatrix,
    cluster_matrix,
    k_rr,
    keep_or_uniform,
    paper_epsilon,
)
from mpc_rr.mechanisms.optimized import solve_heuristic, solve_lp


class Mislabeled:
    """Planted bug: declares one epsilon, implements another (a black box to the auditor)."""

    def __init__(self, inner, declared: float) -> None:
        self.inner = inner
        self.epsilon = declared

    @property
    def sizes(self):
        return self.inner.sizes

    def perturb(self, codes, rng):
        return self.inner.perturb(codes, rng)


@pytest.mark.parametrize(
    ("trials", "anchor"), [(10**4, 0.937), (10**5, 0.980), (10**6, 0.994)]
)
def test_anchor_ldp_auditor_and_ours_at_expected_counts(trials, anchor):
    m = k_rr(2, 1.0)
    tp, fp = round(m.diagonal * trials), round(m.off_diagonal * trials)
    theirs = ldp_auditor_epsilon(tp, fp, trials, alpha=0.01)
    assert theirs == pytest.approx(anchor, abs=0.001)  # the anchor, reproduced
    # ours: the same number of trials *in total* (theirs runs `trials` per input, 2x as many),
    # at their effective confidence 1 - alpha/2 = 0.995
    ours = epsilon_from_precision(cp_lower(tp, trials, 0.005), 2)
    assert ours >= theirs


def test_k_rr_audit_is_tight_and_below_truth():
    rng = np.random.default_rng(1)
    for size, eps in ((2, 1.0), (16, 2.0), (240, 4.0)):
        res = audit(k_rr(size, eps), 200_000, rng, confidence=0.95)
        assert res.epsilon_true == pytest.approx(eps)
        assert 0.95 * eps < res.epsilon_lower <= eps
        assert res.baseline == pytest.approx(1 / res.candidates)
        assert res.ci[0] <= res.success <= res.ci[1]


@pytest.mark.parametrize(
    "mech",
    [
        keep_or_uniform(9, 0.5),
        cluster_matrix((9, 16), 3.0),
        LambdaRandomization((5, 5, 5), (0.6, 0.7, 0.4)),
        solve_lp((5, 5, 5), (2.0, 3.0, 4.0)),
        solve_heuristic((5, 5, 5), (4.0, 3.0, 2.0)),
    ],
    ids=["keep-uniform", "cluster", "lambda", "optimized-lp", "optimized-heuristic"],
)
def test_every_family_audits_close_to_its_true_epsilon(mech):
    res = audit(mech, 400_000, np.random.default_rng(7))
    assert res.epsilon_lower <= mech.epsilon
    assert res.epsilon_lower > 0.85 * mech.epsilon, res


def test_nothing_leaks_audits_to_zero_within_its_interval():
    rng = np.random.default_rng(2)
    for mech in (k_rr(5, 0.0), keep_or_uniform(3, 1e-12)):
        res = audit(mech, 100_000, rng)
        assert res.epsilon_lower == 0.0
        assert res.ci[0] <= res.baseline <= res.ci[1]
        bb = audit(mech, 100_000, rng, black_box=True, pilot_trials=20_000)
        assert bb.epsilon_lower == 0.0 and bb.ci[0] <= bb.baseline <= bb.ci[1]


@pytest.mark.parametrize(
    ("mech", "black_box"),
    [
        (k_rr(2, 1.0), False),
        (LambdaRandomization((3, 4), (0.5, 0.6)), False),
        (solve_lp((3, 3, 3), (1.0, 1.5, 2.0)), False),
        (k_rr(3, 1.0), True),
    ],
    ids=["k-RR", "lambda", "optimized-lp", "k-RR black box"],
)
def test_honest_mechanism_never_above_true_beyond_confidence(mech, black_box):
    # With a tight test, P(lower bound > true eps) <= 1 - confidence per audit, so over
    # `runs` independent audits the count of violations is at most Binomial(runs, 0.1).
    rng = np.random.default_rng(3)
    runs, conf = (100, 0.9) if black_box else (300, 0.9)
    true = mech.epsilon
    above = sum(
        audit(mech, 2_000, rng, confidence=conf, black_box=black_box, pilot_trials=3_000)
        .epsilon_lower > true
        for _ in range(runs)
    )
    assert above <= stats.binom.ppf(0.999, runs, 1 - conf)


def test_planted_bug_is_flagged_black_box():
    rng = np.random.default_rng(4)
    buggy = Mislabeled(k_rr(4, 2.0), declared=1.0)  # declares 1, implements 2
    res = audit(buggy, 200_000, rng, black_box=True, claimed=buggy.epsilon)
    assert res.violation and res.epsilon_lower > 1.5
    assert res.epsilon_true is None  # a black box has no known truth
    honest = Mislabeled(k_rr(4, 1.0), declared=1.0)
    assert not audit(honest, 200_000, rng, black_box=True, claimed=1.0).violation


def test_paper_keep_or_uniform_formula_is_refuted():
    # docs/rr_library.md, decision 1: the paper's |ln(p|A|/(1-p))| under-declares keep-or-uniform's epsilon
    mech = keep_or_uniform(2, 0.5)
    claimed = paper_epsilon(2, 0.5)  # ln 2; the true epsilon is ln 3
    res = audit(mech, 200_000, np.random.default_rng(5), claimed=claimed)
    assert res.violation and res.epsilon_lower <= math.log(3)


def test_search_finds_the_leaky_pair_of_a_dense_matrix():
    # three inputs; only rows 0 and 2 differ, in columns 0 and 1 (ratio 4)
    m = RandomizationMatrix(np.array([[0.4, 0.1, 0.5], [0.25, 0.25, 0.5], [0.1, 0.4, 0.5]]))
    test = search_test(m, np.random.default_rng(6), pilot_trials=60_000)
    assert sorted(test.inputs[:, 0].tolist()) == [0, 2]
    assert structured_test(m).inputs[:, 0].tolist() in ([0, 2], [2, 0])
    res = audit(m, 200_000, np.random.default_rng(7), test=test)
    assert res.epsilon_lower <= math.log(4) and res.epsilon_lower > 1.2


def test_one_run_audit_steinke():
    rng = np.random.default_rng(8)
    res = one_run_audit(k_rr(2, 1.0), 50_000, rng)
    assert 0.9 < res.epsilon_lower <= 1.0 and res.baseline == 0.5
    flat = one_run_audit(k_rr(3, 0.0), 20_000, rng)
    assert flat.epsilon_lower == 0.0 and flat.ci[0] <= 0.5 <= flat.ci[1]
    buggy = Mislabeled(k_rr(2, 2.0), 1.0)
    bug = one_run_audit(
        buggy, 20_000, rng, collect=buggy.perturb, test=structured_test(k_rr(2, 2.0)), claimed=1.0
    )
    assert bug.violation


def test_usage_errors_name_parameter_rule_and_value():
    rng = np.random.default_rng(0)
    with pytest.raises(UsageError, match=r"trials must be an integer >= 1, got 0"):
        audit(k_rr(2, 1.0), 0, rng)
    with pytest.raises(UsageError, match=r"confidence must satisfy 0 < confidence < 1, got 1.5"):
        audit(k_rr(2, 1.0), 10, rng, confidence=1.5)
    with pytest.raises(UsageError, match=r"joint domain, at most 64 cells; this one has 100: audit it with the test built from its structure"):
        search_test(k_rr(100, 1.0), rng)
    with pytest.raises(UsageError, match=r"parties must be an integer >= 2, got 1"):
        one_run_audit(k_rr(2, 1.0), 1, rng)
    with pytest.raises(UsageError, match="no known structure for Mislabeled"):
        structured_test(Mislabeled(k_rr(2, 1.0), 1.0))


@pytest.mark.slow
def test_a_million_trials_under_a_second():
    rng = np.random.default_rng(9)
    for mech in (k_rr(2, 1.0), cluster_matrix((9, 16), 3.0), LambdaRandomization((5, 5, 5), (0.6, 0.7, 0.4))):
        audit(mech, 10_000, rng)  # warm up
        start = time.perf_counter()
        audit(mech, 10**6, rng)
        assert time.perf_counter() - start < 1.0
