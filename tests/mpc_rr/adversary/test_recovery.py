"""Curious aggregator and coalitions: recovery sits at the baseline below the declared bound,
jumps exactly at it, and catches protocols broken on purpose."""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.adversary import recover
from mpc_rr.adversary._broken import (
    ALL,
    PlaintextShareMeshParty,
    UnmaskedSecAggClient,
    ZeroShareMeshParty,
)
from mpc_rr.adversary._coalitions import coalition_members, coalition_sweep, pool, score
from mpc_rr.adversary._recovery import MemberState, member_state, one_hot_cell, recover_full_mesh
from mpc_rr.adversary._secagg_recovery import recover_secagg
from mpc_rr.core import COORDINATOR, DropAt, HarnessRunner, UsageError
from mpc_rr.core._views import observe
from mpc_rr.secure_sum import SeededEntropy, secure_sum_roles
from mpc_rr.secure_sum.full_mesh import MESH_MESSAGES
from mpc_rr.secure_sum.secagg import SECAGG_MESSAGES, SecAggServer, secagg_public
from mpc_rr.workflows._observed import one_hot_inputs

N, CELLS = 12, 8


def _inputs(n: int = N, cells: int = CELLS, seed: int = 0):
    x, hot = one_hot_inputs(n, cells, seed)
    return x, {i + 1: int(c) for i, c in enumerate(hot)}


def _secagg_run(roles):
    res = HarnessRunner(transcript=True)(roles)
    assert res.ok
    return observe(res.transcript, SECAGG_MESSAGES)


def _secagg(n=N, cells=CELLS, seed=0, **options):
    x, truth = _inputs(n, cells, seed)
    roles, _ = secure_sum_roles(
        "secagg", x, run=f"r{seed}", entropy=SeededEntropy(seed).spawn, **options
    )
    view = _secagg_run(roles)
    return roles, view, truth, x


def test_the_curious_server_sits_at_the_baseline():
    roles, view, truth, x = _secagg()
    res = score(recover_secagg(view.of(COORDINATOR), config=roles[0].cfg), truth)
    assert res.recovered == 0 and not res.leaks
    assert res.ci[0] <= res.baseline <= res.ci[1]
    # the baseline is what the sum allows: its largest cell over the parties
    assert res.baseline == pytest.approx(x.sum(axis=0).max() / N)


def test_secagg_coalition_jumps_exactly_at_the_declared_threshold():
    roles, view, truth, _ = _secagg()
    cfg = roles[0].cfg
    assert cfg.degree == N - 1 and 2 <= cfg.threshold < N - 1
    states = {i: member_state(roles[i]) for i in range(1, N + 1)}
    curve = coalition_sweep("secagg", view, states, truth, range(N), config=cfg)
    rates = [r.recovery_rate for r in curve]
    t = cfg.threshold
    assert rates[:t] == [0.0] * t and rates[t:] == [1.0] * (N - t)
    assert all(r.wrong_recoveries == 0 for r in curve)
    assert all(r.success == pytest.approx(r.baseline) for r in curve[:t])  # the ideal guess
    assert all(r.threshold == t for r in curve)


def test_sparse_graph_each_target_breaks_at_t_colluding_neighbours():
    # t = 4 is below what a 10 % coalition needs on this graph (5): declare a
    # coalition bound of 0 to study the attack at a deliberately small threshold
    roles, view, truth, _ = _secagg(
        n=40, cells=8, seed=3, degree=8, threshold=4, max_dropout=0.1, max_corrupt=0.0
    )
    cfg = roles[0].cfg
    assert cfg.degree == 8 and cfg.threshold == 4
    graph = roles[0].graph
    nb = {u: graph.of(u).tolist() for u in range(1, 41)}
    states = {i: member_state(roles[i]) for i in range(1, 41)}
    curve = coalition_sweep("secagg", view, states, truth, [0, 3, 4, 5], config=cfg, neighbours=nb)
    assert [r.recovery_rate for r in curve] == [0.0, 0.0, 1.0, 1.0]
    # three colluders that are not its neighbours, even at C = t + 1 = 5: nothing
    u = 1
    far = [v for v in range(2, 41) if v not in nb[u]][:5]
    rec = recover_secagg(view, [states[v] for v in far], config=cfg, targets=[u])
    assert u not in rec.recovered


def test_masks_disabled_the_server_alone_recovers_everyone():
    x, truth = _inputs()
    pub = secagg_public(N, CELLS, run="broken")
    ent = SeededEntropy(7)
    roles = {0: SecAggServer(pub.config, pub.graph)} | {
        i: UnmaskedSecAggClient(i, pub.config, pub.graph, x[i - 1], entropy=ent.spawn(i), isolated=ALL)
        for i in range(1, N + 1)
    }
    view = _secagg_run(roles)
    assert np.array_equal(roles[0].result.total, x.sum(axis=0))  # still the exact sum
    res = score(recover_secagg(view.of(COORDINATOR), config=pub.config), truth)
    assert res.recovered == N and res.success == 1.0 and res.leaks and res.wrong_recoveries == 0
    # a colluding client's keys do not confuse it (it also tries "no pairwise mask at all")
    helped = recover_secagg(view, [member_state(roles[1])], config=pub.config)
    assert set(helped.recovered) == set(range(2, N + 1))


def test_a_party_of_degree_zero_is_exposed_and_only_it():
    x, truth = _inputs()
    pub = secagg_public(N, CELLS, run="isolated")
    ent = SeededEntropy(8)
    roles = {0: SecAggServer(pub.config, pub.graph)} | {
        i: UnmaskedSecAggClient(i, pub.config, pub.graph, x[i - 1], entropy=ent.spawn(i), isolated={5})
        for i in range(1, N + 1)
    }
    view = _secagg_run(roles)
    assert np.array_equal(roles[0].result.total, x.sum(axis=0))
    rec = recover_secagg(view.of(COORDINATOR), config=pub.config)
    assert rec.recovered == {5: truth[5]}


def test_a_dropout_after_sharing_exposes_nobody():
    x, _ = _inputs(seed=4)
    roles, _ = secure_sum_roles("secagg", x, run="drop", entropy=SeededEntropy(4).spawn)
    from mpc_rr.secure_sum.secagg import MaskedInput

    roles[3] = DropAt(roles[3], MaskedInput)
    view = _secagg_run(roles)
    res = roles[0].result
    assert 3 not in res.included
    rec = recover_secagg(view.of(COORDINATOR), config=roles[0].cfg)
    assert rec.recovered == {}  # the server rebuilt s_sk of party 3, which unmasks nobody
    assert member_state(roles[3]).x is not None  # DropAt is looked through


def test_full_mesh_coalitions_learn_nothing_until_n_minus_1():
    n = 8
    x, truth = _inputs(n, 6, 5)
    roles, _ = secure_sum_roles("full-mesh", x, run="m", entropy=SeededEntropy(5).spawn)
    res = HarnessRunner(transcript=True)(roles)
    view = observe(res.transcript, MESH_MESSAGES)
    states = {i: member_state(roles[i]) for i in range(1, n + 1)}
    assert all(st.share_sk is not None for st in states.values())  # a member reads its own shares
    curve = coalition_sweep("full-mesh", view, states, truth, range(1, n), n=n, modulus=n + 1)
    assert [r.recovery_rate for r in curve] == [0.0] * (n - 2) + [1.0]
    assert all(r.success == pytest.approx(r.baseline) for r in curve)  # nothing beyond the sum
    assert curve[-1].threshold == n - 1


def test_a_plaintext_hub_reads_no_full_mesh_input_but_reads_clear_shares():
    """The shares are encrypted end to end: the memory network (or a relay that terminates
    TLS) reads public keys, ciphertexts and publications, and recovers nothing beyond the
    sum.  The same protocol with its shares in the clear (the paper's, over a relay) gives
    every input away to the same attack."""
    n = 8
    x, truth = _inputs(n, 6, 6)
    for protocol in ("full-mesh", "full-mesh-board"):
        roles, _ = secure_sum_roles(protocol, x, run="h", entropy=SeededEntropy(6).spawn)
        res = HarnessRunner(transcript=True)(roles)
        view = observe(res.transcript, MESH_MESSAGES)
        hub = score(recover(protocol, view, n=n), truth)
        assert hub.recovered == 0 and not hub.leaks
        assert hub.success == pytest.approx(hub.baseline)  # what the sum allows, nothing more
        board = score(recover(protocol, view.of(0), n=n), truth)
        assert board.recovered == 0
        # planted: the same run with shares in the clear
        pub = roles[1].publication  # type: ignore[attr-defined]
        ent = SeededEntropy(6)
        clear = {i: PlaintextShareMeshParty(i, n, x[i - 1], publication=pub, entropy=ent.spawn(i),
                                            run="h") for i in range(1, n + 1)}  # fmt: skip
        if protocol == "full-mesh-board":
            clear[0] = roles[0].__class__(n, 6, run="h")  # type: ignore[call-arg]
        res = HarnessRunner(transcript=True)(clear)
        assert np.array_equal(clear[1].result.total, x.sum(axis=0))
        leak = score(recover(protocol, observe(res.transcript, MESH_MESSAGES), n=n), truth)
        assert leak.recovered == n and leak.success == 1.0 and leak.wrong_recoveries == 0


def test_zero_shares_expose_the_isolated_party_to_any_single_party():
    n = 8
    x, truth = _inputs(n, 6, 9)
    ent = SeededEntropy(9)
    for iso, expect in (({4}, {4}), (ALL, set(range(2, n + 1)))):
        roles = {i: ZeroShareMeshParty(i, n, x[i - 1], entropy=ent.spawn(i), isolated=iso)
                 for i in range(1, n + 1)}  # fmt: skip
        res = HarnessRunner(transcript=True)(roles)
        assert np.array_equal(roles[1].result.total, x.sum(axis=0))
        view = observe(res.transcript, MESH_MESSAGES).of(1)
        rec = recover_full_mesh(view, [member_state(roles[1])], n=n)
        assert set(rec.recovered) == expect
        assert all(rec.recovered[u] == truth[u] for u in expect)


def test_one_hot_and_scoring_helpers():
    assert one_hot_cell(np.array([0, 0, 1, 0])) == 2
    assert one_hot_cell(np.array([0, 2, 0])) is None and one_hot_cell(np.zeros(3)) is None
    assert coalition_members(3, 3, range(1, 8), [5, 6]) == [5, 6, 1]
    roles, view, truth, _ = _secagg()
    r = score(recover_secagg(view, config=roles[0].cfg), truth)
    both = pool([r, r])
    assert both.targets == 2 * r.targets and both.success == r.success


def test_usage_errors():
    roles, view, truth, _ = _secagg()
    with pytest.raises(UsageError, match=r"config \(the run's public parameters\) is required"):
        recover_secagg(view)
    with pytest.raises(UsageError, match="unknown protocol 'mixnet'; known: "):
        recover("mixnet", view)
    with pytest.raises(UsageError, match="target 1 is in the coalition"):
        score(recover_secagg(view, [member_state(roles[1])], config=roles[0].cfg), truth)
    with pytest.raises(UsageError, match=r"coalition size must be in 0\.\.6, got 9"):
        coalition_members(1, 9, range(1, 8))
    with pytest.raises(UsageError, match="no known state for SecAggServer"):
        member_state(roles[0])
    with pytest.raises(UsageError, match="no targets"):
        score(recover_secagg(view, config=roles[0].cfg), {})
    assert MemberState(1).x is None


@pytest.mark.slow
def test_dropout_only_secagg_at_100_parties_declares_t_2_and_breaks_there():
    """The former defaults (max_dropout 1/3, no collusion bound) give t = 2 at n = 100."""
    roles, view, truth, _ = _secagg(n=100, cells=16, seed=11, max_dropout=1 / 3, max_corrupt=0.0)
    cfg, graph = roles[0].cfg, roles[0].graph
    assert cfg.threshold == 2 and cfg.degree < 99
    nb = {u: graph.of(u).tolist() for u in range(1, 101)}
    states = {i: member_state(roles[i]) for i in range(1, 101)}
    curve = coalition_sweep("secagg", view, states, truth, [0, 1, 2], config=cfg, neighbours=nb)
    assert [r.recovery_rate for r in curve] == [0.0, 0.0, 1.0]


@pytest.mark.slow
def test_default_secagg_at_100_parties_is_out_of_reach_of_a_ten_percent_coalition():
    """Today's defaults (max_dropout 0.1, max_corrupt 0.1) at n = 100: t = 12 > 10 colluders."""
    roles, view, truth, _ = _secagg(n=100, cells=16, seed=11)
    cfg, graph = roles[0].cfg, roles[0].graph
    assert cfg.threshold == 12 and cfg.threshold > cfg.max_corrupt * 100
    nb = {u: graph.of(u).tolist() for u in range(1, 101)}
    states = {i: member_state(roles[i]) for i in range(1, 101)}
    curve = coalition_sweep("secagg", view, states, truth, [10, 11, 12], config=cfg, neighbours=nb)
    assert [r.recovery_rate for r in curve] == [0.0, 0.0, 1.0]
