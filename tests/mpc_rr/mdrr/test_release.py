"""Centralized RR protocols on synthetic and Adult data."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.core import UsageError
from mpc_rr.data import load_adult
from mpc_rr.estimation import answer, dependence_matrix, make_queries, relative_error, true_count
from mpc_rr.mdrr import adjust, cluster_attributes, rr_clusters, rr_independent, rr_joint
from mpc_rr.mdrr._release import joint_counts
from mpc_rr.mechanisms import cluster_matrix, keep_or_uniform


def correlated(n: int, rng: np.random.Generator) -> np.ndarray:
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.8, a, rng.integers(0, 3, n))
    c = rng.integers(0, 2, n)
    return np.stack([a, b, c], axis=1)


def test_identity_mechanisms_recover_the_truth() -> None:
    rng = np.random.default_rng(0)
    x = correlated(1000, rng)
    rel = rr_independent(x, (3, 3, 2), [keep_or_uniform(s, 1.0) for s in (3, 3, 2)], rng)
    np.testing.assert_array_equal(rel.randomized, x)
    for j, e in enumerate(rel.estimates):
        np.testing.assert_allclose(
            e.distribution, np.bincount(x[:, j], minlength=(3, 3, 2)[j]) / 1000
        )
    est = rr_joint(x, (3, 3, 2), [0, 1], keep_or_uniform((3, 3), 1.0), rng)
    np.testing.assert_allclose(est.distribution, joint_counts(x, (0, 1), (3, 3, 2)) / 1000)


def test_rr_joint_is_unbiased_for_the_joint() -> None:
    rng = np.random.default_rng(4)
    x = correlated(20_000, rng)
    truth = joint_counts(x, (0, 1), (3, 3, 2)) / len(x)
    ests = [
        rr_joint(
            x, (3, 3, 2), [0, 1], keep_or_uniform((3, 3), 0.5), rng, method="none"
        ).distribution
        for _ in range(60)
    ]
    m = np.mean(ests, axis=0)
    se = np.std(ests, axis=0, ddof=1) / np.sqrt(len(ests))
    assert np.all(np.abs(m - truth) < 4.5 * se)


def test_clusters_capture_dependence_that_independence_misses() -> None:
    rng = np.random.default_rng(5)
    x = correlated(50_000, rng)
    p = 0.7
    ind = rr_independent(x, (3, 3, 2), [keep_or_uniform(s, p) for s in (3, 3, 2)], rng)
    eps = [m.epsilon for m in ind.mechanisms]
    clu = rr_clusters(
        x,
        (3, 3, 2),
        [(0, 1), (2,)],
        [cluster_matrix((3, 3), eps[0] + eps[1]), cluster_matrix((2,), eps[2])],
        rng,
    )
    assert clu.epsilon == pytest.approx(ind.epsilon)  # equal-risk comparison (Sec. 6.3.2)
    truth = joint_counts(x, (0, 1), (3, 3, 2)) / len(x)
    err_ind = np.abs(ind.model.marginal([0, 1]) - truth).sum()
    err_clu = np.abs(clu.model.marginal([0, 1]) - truth).sum()
    assert err_clu < err_ind / 3
    # adjustment pulls the independent estimate towards the dependence left in Y
    adj, res = adjust(ind, max_iter=200)
    assert np.abs(adj.marginal([0, 1]) - truth).sum() < err_ind
    assert res.iterations >= 1


def test_release_validates_groups_and_mechanisms() -> None:
    x = np.zeros((5, 2), dtype=int)
    rng = np.random.default_rng(0)
    with pytest.raises(UsageError, match="must partition"):
        rr_clusters(x, (2, 2), [(0,)], [keep_or_uniform(2, 0.5)], rng)
    with pytest.raises(UsageError, match=r"has sizes \(3,\), expected \(2,\)"):
        rr_independent(x, (2, 2), [keep_or_uniform(3, 0.5), keep_or_uniform(2, 0.5)], rng)


def test_adult_rr_clusters_and_adjustment_end_to_end() -> None:
    """On Adult at p = 0.7, clusters + adjustment beat RR-Independent on sigma = 0.1 queries."""
    data = load_adult()
    sizes = data.schema.sizes
    rng = np.random.default_rng(2024)
    ind = rr_independent(data.codes, sizes, [keep_or_uniform(s, 0.7) for s in sizes], rng)
    deps = dependence_matrix(ind.randomized, data.schema)
    cl = cluster_attributes(deps, sizes, tv=100, td=0.1)
    assert any(len(c) > 1 for c in cl.clusters)
    eps = [m.epsilon for m in ind.mechanisms]
    clu = rr_clusters(
        data.codes,
        sizes,
        cl.clusters,
        [cluster_matrix([sizes[i] for i in c], sum(eps[i] for i in c)) for c in cl.clusters],
        rng,
    )
    queries = make_queries(data.codes, sizes, 200, 0.1, rng)
    truth = [true_count(data.codes, q) for q in queries]

    def med(model: object) -> float:
        return float(
            np.median(
                [
                    relative_error(answer(model, q, data.n), t)
                    for q, t in zip(queries, truth, strict=True)
                ]
            )
        )

    e_ind, e_clu = med(ind.model), med(clu.model)
    e_clu_adj = med(adjust(clu, max_iter=50)[0])
    e_raw = med(ind.raw())
    assert e_ind < e_raw
    assert e_clu_adj < e_ind and e_clu < e_ind * 1.1


def test_perturb_record_fast_path_equals_the_generic_path() -> None:
    """Keep-or-uniform groups drawn in one call give the generic path's records, draw for draw."""
    from mpc_rr.mdrr._release import _perturb_group, perturb_record
    from mpc_rr.mechanisms import cluster_matrix, keep_or_uniform

    sizes = (9, 16, 7, 14, 6, 5, 2, 3, 4)
    groups = [(0,), (1, 2), (3,), (4, 5, 6), (7, 8)]
    mechs = [
        keep_or_uniform(9, 0.7), cluster_matrix((16, 7), 2.0), keep_or_uniform(14, 0.2),
        keep_or_uniform((6, 5, 2), 0.5), cluster_matrix((12,), 1.0),
    ]  # fmt: skip

    def generic(rec: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        out = np.empty_like(rec)
        for g, m in zip(groups, mechs, strict=True):
            out[list(g)] = _perturb_group(m, rec[None, list(g)], tuple(sizes[i] for i in g), rng)[0]
        return out

    r = np.random.default_rng(0)
    changed = 0
    for t in range(2000):
        rec = np.array([r.integers(s) for s in sizes])
        fast = perturb_record(rec, sizes, groups, mechs, np.random.default_rng(t))
        np.testing.assert_array_equal(fast, generic(rec, np.random.default_rng(t)))
        changed += int((fast != rec).any())
    assert changed > 1000  # the mechanisms really randomize
