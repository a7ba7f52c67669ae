"""The structured interior point of the consistency QP: optimal by certificates that need no
other solver, the same tables as Clarabel, and bad input named."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

import mpc_rr.rrba._consistency as consistency
from mpc_rr.core import UsageError
from mpc_rr.rrba import reconstruct
from mpc_rr.rrba._consistency import marginal_operator
from mpc_rr.rrba._marginal_ipm import MarginalBlocks, distinct_marginals, fit_consistent

SIZES = (3, 4, 5, 4, 3)
PAIRS = list(combinations(range(len(SIZES)), 2))


def _noisy_views(seed: int, noise: float) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    joint = rng.dirichlet(np.full(int(np.prod(SIZES)), 0.3)).reshape(SIZES)
    views = []
    for s in PAIRS:
        t = joint.sum(axis=tuple(a for a in range(len(SIZES)) if a not in s))
        t = np.clip(t + rng.normal(0, noise, t.shape), 0, None)
        views.append(t / t.sum())
    return views


def _fit(target: tuple[int, ...], views: list[np.ndarray]):  # type: ignore[no-untyped-def]
    _, b = marginal_operator(target, SIZES, PAIRS, views)
    commons = [tuple(target.index(a) for a in target if a in s) for s in PAIRS]
    blocks, bbar, w = distinct_marginals(tuple(SIZES[a] for a in target), [c for c in commons if c], b)
    return blocks, bbar, w, fit_consistent(blocks, bbar, w)


@pytest.mark.parametrize("seed", [0, 1])
def test_both_stages_meet_their_optimality_certificates(seed: int) -> None:
    blocks, bbar, w, (x1, x, rep) = _fit((0, 1, 2, 3), _noisy_views(seed, 0.05))
    M = blocks.M
    # stage 1, min f = sum w (Mx - b)^2 / 2 over the simplex: the Frank-Wolfe gap
    # g'x1 - min g bounds f(x1) - f* from above (g the gradient), whatever solver made x1;
    # 1e-8 is Clarabel's default gap tolerance
    grad = M.T @ (w * (M @ x1 - bbar))
    assert grad @ x1 - grad.min() <= 1e-8
    # stage 2 keeps every stage-1 marginal and is optimal on the cells it may use
    assert x.min() >= 0 and x.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(M @ x, M @ x1, atol=1e-9)
    assert rep.primal <= 1e-9 and rep.dual <= 1e-6
    assert rep.face_cells < x.size  # noisy views: the optimum lies on a face of the polytope
    assert x[x1 == 0].max() == 0.0


@pytest.mark.parametrize(("target", "seed"), [((0, 1, 2, 3), 2), ((1, 2, 4), 3), ((0, 2, 3, 4), 4)])
def test_the_tables_equal_clarabels(target: tuple[int, ...], seed: int) -> None:
    views = _noisy_views(seed, 0.01)
    ours = reconstruct(target, SIZES, PAIRS, views, solver="ipm")
    ref = reconstruct(target, SIZES, PAIRS, views, solver="clarabel")
    assert (ours.solver, ref.solver) == ("ipm", "clarabel")
    assert ours.residual == pytest.approx(ref.residual, abs=1e-7)
    np.testing.assert_allclose(ours.table, ref.table, atol=2e-5)
    # Clarabel meets the 1e-7 band of stage 2 only loosely: ours is never farther from least norm
    assert (ours.table**2).sum() <= (ref.table**2).sum() + 1e-7


def test_consistent_views_give_an_interior_table() -> None:
    blocks, bbar, _, (_, x, rep) = _fit((0, 1, 2), _noisy_views(5, 0.0))
    assert rep.face_cells == x.size  # a positive joint: no cell is forced empty
    np.testing.assert_allclose(blocks.M @ x, bbar, atol=1e-9)


def test_auto_picks_by_table_size(monkeypatch: pytest.MonkeyPatch) -> None:
    views = _noisy_views(6, 0.01)
    assert reconstruct((0, 1, 2, 3, 4), SIZES, PAIRS, views).solver == "clarabel"  # 720 cells
    monkeypatch.setattr(consistency, "AUTO_CELLS", 100)
    assert reconstruct((0, 1, 2, 3), SIZES, PAIRS, views).solver == "ipm"  # 240 cells
    assert reconstruct((0, 1, 2), SIZES, PAIRS, views).solver == "clarabel"  # 60 cells


def test_auto_falls_back_to_clarabel_when_the_certificate_is_not_met(monkeypatch: pytest.MonkeyPatch) -> None:
    def stalled(*_: object) -> None:
        raise UsageError("reconstruct: the interior point stopped after 9 steps with an optimality bound of 1e-6")

    views = _noisy_views(7, 0.01)
    monkeypatch.setattr(consistency, "AUTO_CELLS", 100)
    monkeypatch.setattr(consistency, "fit_consistent", stalled)
    m = reconstruct((0, 1, 2, 3), SIZES, PAIRS, views)
    assert m.solver == "clarabel" and m.table.sum() == pytest.approx(1.0)
    with pytest.raises(UsageError, match="optimality bound"):
        reconstruct((0, 1, 2, 3), SIZES, PAIRS, views, solver="ipm")


def test_gram_is_m_d_m_transposed() -> None:
    blocks = MarginalBlocks.of((3, 4, 2), [(0, 1), (2,), (1, 2), (0,)])
    d = np.random.default_rng(0).random(24)
    M = blocks.M.toarray()
    np.testing.assert_allclose(blocks.gram(d), (M * d) @ M.T, rtol=1e-12)


def test_bad_input_is_named() -> None:
    with pytest.raises(UsageError, match="the blocks cover 7 cells, b has 8"):
        distinct_marginals((3, 4), [(0,), (1,)], np.ones(8))
    blocks = MarginalBlocks.of((3, 4), [(0,), (1,)])
    with pytest.raises(UsageError, match="need 7 marginal cells and positive weights"):
        fit_consistent(blocks, np.ones(7), np.zeros(7))


def test_fit_consistent_runs_the_blas_on_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    from threadpoolctl import threadpool_info

    from mpc_rr.rrba import _marginal_ipm

    seen: list[int] = []

    def fit(*args: object) -> tuple[np.ndarray, np.ndarray, None]:
        seen.extend(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")
        return np.zeros(1), np.zeros(1), None

    monkeypatch.setattr(_marginal_ipm, "_fit", fit)
    blocks = _marginal_ipm.MarginalBlocks.of((2, 3), [(0,), (1,)])
    _marginal_ipm.fit_consistent(blocks, np.full(5, 0.3), np.ones(5))
    assert seen and set(seen) == {1}
