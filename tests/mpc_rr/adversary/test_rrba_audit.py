"""Audits of the RRBA client at the table a collection sent: the client's own arithmetic, the
smallest cell targeted, nothing leaks -> 0, honest never above the truth beyond the confidence
level, the paper's figure exceeded where the truth does."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from mpc_rr.adversary import audit, one_run_audit
from mpc_rr.adversary._pipeline_audit import synthetic_schema
from mpc_rr.adversary._rrba_audit import RRBAClientMechanism, smallest_cell_test, uniform_event_test
from mpc_rr.core import UsageError
from mpc_rr.rrba import client_answer

SKEWED = np.array([0.6, 0.3, 0.09, 0.01])


def test_the_mechanism_is_the_clients_own_arithmetic():
    m = RRBAClientMechanism(SKEWED, 0.4)
    assert m.epsilon == pytest.approx(math.log1p(0.4 / (0.6 * 0.01)))
    assert m.paper_epsilon == pytest.approx(-math.log(0.6))
    # one client through client_answer and through perturb: identical answers, same uniforms
    a = client_answer(np.array([2]), [(0,)], [SKEWED], (4,), 0.4, np.random.default_rng(5))
    b = m.perturb(np.array([[2]]), np.random.default_rng(5))
    assert int(a[0]) == int(b[0, 0])
    # and the empirical matrix is p [y = x] + (1 - p) T[y]
    out = m.perturb(np.full((200_000, 1), 3), np.random.default_rng(6)).ravel()
    freq = np.bincount(out, minlength=4) / out.size
    assert np.allclose(freq, m.dense()[3], atol=0.005)


def test_the_audited_mechanism_answers_as_the_rrba_client_role_does():
    """The roles are on main: a Client role sent table T answers exactly as the audited
    mechanism does with the same generator (one subset per view: sizes (2, 2), k = 2)."""
    from mpc_rr.data import Dataset
    from mpc_rr.rrba import RRBAClient
    from mpc_rr.rrba._messages import AskBlock
    from mpc_rr.rrba._protocol import config_for

    table = np.array([0.55, 0.3, 0.1, 0.05])
    cfg = config_for(Dataset(synthetic_schema((2, 2)), np.zeros((4, 2), np.int64)), 4, 0.4)
    assert cfg.cover.subsets == ((0, 1),)
    m = RRBAClientMechanism(table, 0.4)
    for seed in range(40):
        record = np.array([seed % 2, (seed // 2) % 2])
        client = RRBAClient(1, cfg, record, np.random.default_rng(seed))
        ask = AskBlock(run=cfg.run, step=1, view=0, subsets=[[0, 1]], tables=table.tolist())
        (sent,) = client.receive(0, ask)
        mine = m.perturb(np.array([[record[0] * 2 + record[1]]]), np.random.default_rng(seed))
        assert sent.msg.cells.to_numpy().tolist() == [int(mine[0, 0])]


@pytest.mark.parametrize("p", [0.1, 0.3, 0.5, 0.7, 0.9])
@pytest.mark.parametrize("table", [[0.25, 0.25, 0.25, 0.25], SKEWED.tolist(), [0.001, 0.499, 0.5]])
def test_the_audit_exceeds_the_papers_figure_wherever_the_truth_does(p, table):
    m = RRBAClientMechanism(np.array(table), p)
    assert m.epsilon > m.paper_epsilon  # every table with two cells or more
    res = audit(m, 200_000, np.random.default_rng(7), test=smallest_cell_test(m), claimed=m.paper_epsilon)
    assert res.violation and res.epsilon_lower > m.paper_epsilon


def test_targeting_the_smallest_cell_beats_a_uniform_event_and_is_tight():
    m = RRBAClientMechanism(SKEWED, 0.3)
    rng = np.random.default_rng(8)
    tight = audit(m, 400_000, rng, test=smallest_cell_test(m))
    assert 0.97 * m.epsilon < tight.epsilon_lower <= m.epsilon + 0.05
    naive = [audit(m, 400_000, rng, test=uniform_event_test(m, np.random.default_rng(s))).epsilon_lower
             for s in range(8)]  # fmt: skip
    assert np.mean(naive) < 0.7 * tight.epsilon_lower


def test_an_rrba_client_that_leaks_nothing_audits_to_zero():
    m = RRBAClientMechanism(SKEWED, 1e-12)
    res = audit(m, 200_000, np.random.default_rng(9), test=smallest_cell_test(m))
    assert res.epsilon_lower == 0.0 and res.ci[0] <= res.baseline <= res.ci[1]


def test_an_honest_rrba_client_never_audits_above_its_truth_beyond_alpha():
    m = RRBAClientMechanism(np.array([0.5, 0.3, 0.2]), 0.4)
    test = smallest_cell_test(m)
    rng = np.random.default_rng(10)
    seeds, alpha = 300, 0.05
    above = sum(audit(m, 3_000, rng, test=test).epsilon_lower > m.epsilon for _ in range(seeds))
    assert above <= stats.binom.ppf(0.999, seeds, alpha)


def test_one_run_audit_of_an_rrba_block():
    m = RRBAClientMechanism(np.array([0.7, 0.25, 0.05]), 0.5)
    res = one_run_audit(m, 50_000, np.random.default_rng(11), test=smallest_cell_test(m),
                        claimed=m.paper_epsilon)  # fmt: skip
    assert res.violation and res.epsilon_lower <= m.epsilon + 0.1


def test_usage_errors():
    with pytest.raises(UsageError, match="probability vector"):
        RRBAClientMechanism(np.array([0.5, 0.6]), 0.5)
    with pytest.raises(UsageError, match=r"p must be in \(0, 1\], got 0"):
        RRBAClientMechanism(SKEWED, 0.0)
    with pytest.raises(UsageError, match="one-cell table"):
        smallest_cell_test(RRBAClientMechanism(np.array([1.0]), 0.5))
