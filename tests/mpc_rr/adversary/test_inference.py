"""Bayes-optimal inference of records from randomized observations: nothing leaks -> the
baseline, a full leak -> 1, a cluster release combined with single-attribute records."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.adversary import Observation, bayes_inference
from mpc_rr.adversary._inference import dense_matrix
from mpc_rr.core import UsageError
from mpc_rr.mechanisms import cluster_matrix, keep_or_uniform

RNG = np.random.default_rng


def _obs(truth, sizes, p, rng):
    n = truth.shape[0]
    obs = []
    for a, s in enumerate(sizes):
        m = keep_or_uniform(s, p)
        y = m.perturb(truth[:, [a]], rng).reshape(n, 1)
        obs.append(Observation((a,), dense_matrix(m), y, f"attribute {a}"))
    return obs


def test_bayes_inference_nothing_leaks_and_full_leak():
    rng = RNG(10)
    n, sizes = 4000, (3, 4, 2)
    truth = np.stack([rng.choice(3, n, p=[0.6, 0.3, 0.1]), rng.choice(4, n), rng.choice(2, n, p=[0.8, 0.2])], 1)
    flat = bayes_inference(_obs(truth, sizes, 1e-12, rng), sizes, truth)
    assert flat.success == pytest.approx(flat.baseline) and not flat.leaks
    for (lo, hi), b in zip(flat.ci_per_attribute, flat.baseline_per_attribute, strict=True):
        assert lo <= b <= hi
    full = bayes_inference(_obs(truth, sizes, 1.0, rng), sizes, truth)
    assert full.success == 1.0 and full.leaks
    mid = bayes_inference(_obs(truth, sizes, 0.5, rng), sizes, truth)
    assert mid.baseline < mid.success < 1.0 and mid.attacker_mean <= mid.success + 0.02


def test_bayes_inference_combines_a_cluster_release_with_single_records():
    rng = RNG(11)
    n, sizes = 3000, (3, 4)
    truth = np.stack([rng.choice(3, n, p=[0.5, 0.3, 0.2]), rng.choice(4, n, p=[0.4, 0.3, 0.2, 0.1])], 1)
    single = _obs(truth, sizes, 0.4, rng)
    cm = cluster_matrix(sizes, 2.0)
    z = np.asarray(cm.perturb(truth, rng)).reshape(n, 2)
    both = [*single, Observation((0, 1), dense_matrix(cm), z, "release")]
    a = bayes_inference(single, sizes, truth)
    b = bayes_inference(both, sizes, truth)
    assert b.success > a.success  # two independent randomizations of one record say more
    with pytest.raises(UsageError, match="matrix must be"):
        bayes_inference([Observation((0,), np.eye(2), truth[:, [0]])], sizes, truth)
