"""SecAgg+: exact sums, dropouts in every step on both sides of the bounds, misbehaviour."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mpc_rr.core import COORDINATOR, Codec, ProtocolAbort, UsageError, WireArray, run_roles
from mpc_rr.secure_sum import SeededEntropy
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum.secagg import (
    SECAGG_MESSAGES,
    AdvertiseKeys,
    Aggregate,
    EncryptedShares,
    MaskedInput,
    SecAggClient,
    SecAggConfig,
    SecAggPublic,
    UnmaskShares,
    secagg_roles,
)
from mpc_rr.secure_sum.secagg._params import default_threshold

CODEC = Codec(SECAGG_MESSAGES)
STEP_MESSAGE = {
    "keys": AdvertiseKeys,
    "shares": EncryptedShares,
    "masked": MaskedInput,
    "unmask": UnmaskShares,
}


def setup(n: int, cells: int = 5, seed: int = 0, **kw):
    """These tests check the protocol's mechanics (dropouts, misbehaviour) on small sparse
    graphs, so the collusion bound is off unless a test sets it
    (test_the_threshold_holds_off_the_declared_coalition covers it)."""
    kw.setdefault("max_corrupt", 0.0)
    rng = np.random.default_rng(seed)
    cfg = SecAggConfig.create(n, cells, **kw)
    graph = Graph.random_regular(n, cfg.degree, rng)
    x = rng.integers(0, 2, size=(n, cells))
    roles = secagg_roles(x, SecAggPublic(cfg, graph), entropy=SeededEntropy(seed).spawn)
    return cfg, graph, x, roles


def run(roles, **kw):
    return run_roles(roles, **kw)


def expected_over(x: np.ndarray, included) -> np.ndarray:
    return x[np.asarray(included, int) - 1].sum(axis=0)


@pytest.mark.parametrize(("n", "degree"), [(2, None), (3, None), (10, None), (60, 12)])
def test_exact_sum_shuffled_through_the_codec(n: int, degree) -> None:
    _cfg, _, x, roles = setup(n, degree=degree, max_dropout=0.0 if n < 4 else 0.1, seed=n)
    res = run(roles, rng=np.random.default_rng(n), shuffle=True)
    server = roles[COORDINATOR].result
    np.testing.assert_array_equal(server.total, x.sum(axis=0))
    assert server.included == tuple(range(1, n + 1))
    for i in range(1, n + 1):
        np.testing.assert_array_equal(roles[i].result.total, x.sum(axis=0))
        assert roles[i].result.n_included == n
    # 5 messages each way per party (the draw among them), and the consistency round for the committee alone
    assert res.costs.messages == 10 * n + 2 * int(roles[COORDINATOR].committee.sum()) and not res.peer_errors()


@settings(max_examples=8, deadline=None)
@given(n=st.integers(4, 80), seed=st.integers(0, 10**6), cells=st.integers(1, 6))
def test_property_exact_with_random_dropouts_within_bound(n: int, seed: int, cells: int) -> None:
    cfg, _, x, roles = setup(n, cells=cells, degree=min(n - 1, 16), max_dropout=0.25, seed=seed)
    rng = np.random.default_rng(seed)
    k = cfg.max_dropped
    victims = rng.choice(np.arange(1, n + 1), size=k, replace=False)
    steps = rng.choice(list(STEP_MESSAGE), size=k)
    plan = {int(v): STEP_MESSAGE[s] for v, s in zip(victims, steps, strict=True)}
    res = run(roles, drop=lambda s, d, m: s in plan and isinstance(m, plan[s]))
    server = roles[COORDINATOR]
    if server.error is not None:  # only the documented local-threshold abort is allowed
        assert "live share holders" in str(server.error) or "shares of the" in str(server.error)
        return
    included = server.result.included
    np.testing.assert_array_equal(server.result.total, expected_over(x, included))
    lost_input = {v for v, m in plan.items() if m in (AdvertiseKeys, EncryptedShares, MaskedInput)}
    kept = {u for u in range(1, n + 1) if server.dropped.get(u) in (None, "UNMASK")}
    assert set(included) == kept and not (lost_input & kept)
    assert not res.peer_errors()


@pytest.mark.parametrize("step", list(STEP_MESSAGE))
def test_each_step_tolerates_dropouts_up_to_the_bound_and_aborts_beyond(step: str) -> None:
    n = 12  # complete graph: the default threshold makes the bound deterministic
    msg_type = STEP_MESSAGE[step]
    cfg, _, x, roles = setup(n, max_dropout=0.25, seed=3)
    assert cfg.max_dropped == 3 and cfg.degree == 11 and cfg.threshold == 8
    within = {2, 5, 11}
    run(roles, drop=lambda s, d, m: s in within and isinstance(m, msg_type))
    server = roles[COORDINATOR].result
    survivors = set(range(1, n + 1)) - (within if step != "unmask" else set())
    assert set(server.included) == survivors
    np.testing.assert_array_equal(server.total, expected_over(x, server.included))
    for i in set(range(1, n + 1)) - within:
        np.testing.assert_array_equal(roles[i].result.total, server.total)

    _, _, _, roles = setup(n, max_dropout=0.25, seed=3)
    beyond = {2, 5, 11, 12}
    run(roles, drop=lambda s, d, m: s in beyond and isinstance(m, msg_type))
    err = roles[COORDINATOR].error
    assert isinstance(err, ProtocolAbort) and set(err.culprits) == beyond
    with pytest.raises(ProtocolAbort, match=rf"4 of 12 parties dropped out by step {step.upper()} \(\[2, 5, 11, 12\]\)"):
        _ = roles[COORDINATOR].result
    for i in set(range(1, n + 1)) - beyond:  # survivors are told, nobody gets a sum
        with pytest.raises(ProtocolAbort, match="the aggregator aborted"):
            _ = roles[i].result


def test_ten_percent_drop_after_masked_input_sparse_graph() -> None:
    n = 300
    _cfg, _, x, roles = setup(n, cells=40, degree=16, max_dropout=0.1, seed=7)
    victims = set(np.random.default_rng(7).choice(np.arange(1, n + 1), 30, replace=False).tolist())
    run(roles, drop=lambda s, d, m: s in victims and isinstance(m, UnmaskShares))
    server = roles[COORDINATOR].result
    assert server.included == tuple(range(1, n + 1))  # inputs were in; only unmasking lost
    np.testing.assert_array_equal(server.total, x.sum(axis=0))


def test_local_threshold_failure_aborts_naming_the_party() -> None:
    n = 40
    _cfg, graph, _, roles = setup(n, degree=8, threshold=6, max_dropout=0.25, seed=5)
    target = 7
    victims = set(graph.of(target)[:3].tolist())  # 3 of its 8 neighbours: only 5 holders left
    run(roles, drop=lambda s, d, m: s in victims and isinstance(m, MaskedInput))
    err = roles[COORDINATOR].error
    # the silent parties are named, never the honest party they left short of holders
    assert isinstance(err, ProtocolAbort) and set(err.culprits) == victims and target not in err.culprits
    with pytest.raises(ProtocolAbort, match="fewer than t=6 live share holders"):
        _ = roles[COORDINATOR].result


def test_weak_parties_are_pruned_at_key_advertisement() -> None:
    n = 40
    _cfg, graph, x, roles = setup(n, degree=8, threshold=6, max_dropout=0.25, seed=5)
    target = 7
    victims = set(graph.of(target)[:3].tolist())
    run(roles, drop=lambda s, d, m: s in victims and isinstance(m, AdvertiseKeys))
    server = roles[COORDINATOR]
    assert target not in server.result.included and target in server.dropped
    np.testing.assert_array_equal(server.result.total, expected_over(x, server.result.included))


def _tamper(roles, victim: int, msg_type, change):
    client = roles[victim]
    orig = client.receive

    def receive(src, msg):
        return [
            type(s)(s.dst, change(s.msg)) if isinstance(s.msg, msg_type) else s
            for s in orig(src, msg)
        ]

    client.receive = receive


@pytest.mark.parametrize(
    ("change", "match"),
    [
        (lambda m: MaskedInput(y=WireArray.from_numpy(m.y.to_numpy().astype("<u4"))), "dtype"),
        (lambda m: MaskedInput(y=WireArray.from_numpy(m.y.to_numpy()[:-1])), "shape"),
        (lambda m: MaskedInput(y=WireArray.from_numpy(np.full(5, 1000, "<u2"))), "out of range"),
    ],
)
def test_malformed_masked_input_is_reported_and_excluded(change, match: str) -> None:
    n = 10
    _cfg, _, x, roles = setup(n, modulus=1000, max_dropout=0.2, seed=9)
    _tamper(roles, 4, MaskedInput, change)
    res = run(roles)
    assert [e.peer for e in res.peer_errors()] == [4]
    assert match in str(res.peer_errors()[0]) and "party 4 excluded" in str(res.peer_errors()[0])
    server = roles[COORDINATOR]
    assert server.culprits == [4] and 4 not in server.result.included
    np.testing.assert_array_equal(server.result.total, expected_over(x, server.result.included))


def test_wrong_share_recipients_and_out_of_field_shares_are_excluded() -> None:
    n = 10
    _cfg, _, x, roles = setup(n, max_dropout=0.2, seed=11)

    def reroute(m):
        r = m.recipients.to_numpy().copy()
        r[0] = 0
        return EncryptedShares(recipients=WireArray.from_numpy(r), ciphertexts=m.ciphertexts)

    _tamper(roles, 3, EncryptedShares, reroute)

    def bad_field(m):
        s = m.b_shares.to_numpy().copy()
        s[0, 0] = 2**31
        return UnmaskShares(
            b_owners=m.b_owners,
            b_shares=WireArray.from_numpy(s),
            s_owners=m.s_owners,
            s_shares=m.s_shares,
        )

    _tamper(roles, 6, UnmaskShares, bad_field)
    res = run(roles)
    assert sorted(e.peer for e in res.peer_errors()) == [3, 6]
    assert any("wrong parties" in str(e) for e in res.peer_errors())
    assert any("not a field element" in str(e) for e in res.peer_errors())
    server = roles[COORDINATOR].result
    assert 3 not in server.included and 6 in server.included  # 6 only failed to unmask
    np.testing.assert_array_equal(server.total, expected_over(x, server.included))


def test_duplicates_ignored_conflicting_second_message_excludes_sender() -> None:
    n = 8
    _cfg, _, x, roles = setup(n, max_dropout=0.25, seed=12)
    res = run(roles, rng=np.random.default_rng(0), duplicate=1.0)
    np.testing.assert_array_equal(roles[COORDINATOR].result.total, x.sum(axis=0))
    errs = [str(e) for e in res.peer_errors()]
    # the server names each duplicate; a client, past that step, cannot handle it again
    assert any("duplicate AdvertiseKeys from party 1 ignored" in e for e in errs)
    assert any("SecAggClient 1: cannot handle NeighborKeys from party 0 in state SHARES" in e for e in errs)
    assert all("duplicate" in e or "cannot handle" in e for e in errs)

    _cfg, _, x, roles = setup(n, max_dropout=0.25, seed=12)
    server = roles[COORDINATOR]
    client = roles[5]
    orig = client.receive

    def twice(src, msg):
        out = orig(src, msg)
        extra = [
            type(s)(s.dst, MaskedInput(y=WireArray.from_numpy((s.msg.y.to_numpy() + 1) % 16)))
            for s in out
            if isinstance(s.msg, MaskedInput)
        ]
        return out + extra

    client.receive = twice
    res = run(roles)
    assert any("two different MaskedInput" in str(e) and e.peer == 5 for e in res.peer_errors())
    assert 5 not in server.result.included
    np.testing.assert_array_equal(server.result.total, expected_over(x, server.result.included))


def test_distinct_pairs_never_share_a_mask_stream_and_keys_agree() -> None:
    n = 30
    cfg, graph, _, roles = setup(n, degree=8, threshold=4, seed=13)
    run(roles)
    keys = {}
    for u in range(1, n + 1):
        for v in graph.of(u).tolist():
            shared = crypto.agree(roles[u]._s_sk, roles[v]._s_sk.public_key().public_bytes_raw())
            keys[(u, v)] = crypto.pair_key(shared, "mask", "", min(u, v), max(u, v))
    for (u, v), key in keys.items():
        assert key == keys[(v, u)]  # both ends derive the same stream
    distinct = {k for (u, v), k in keys.items() if u < v}
    assert len(distinct) == n * cfg.degree // 2
    streams = crypto.expand_masks(sorted(distinct), 64, cfg.modulus)
    assert len({s.tobytes() for s in streams}) == len(distinct)


def test_the_server_only_ever_sees_ciphertext_shares_of_fixed_width() -> None:
    n = 6
    _cfg, _, _x, roles = setup(n, seed=14)
    res = run(roles, transcript=True)
    assert res.transcript is not None
    msgs = [CODEC.decode(e.data) for e in res.transcript]
    aggs = [m for m in msgs if isinstance(m, Aggregate)]
    assert len(aggs) == n
    assert not aggs[0].total.to_numpy().flags.writeable  # a read-only view on the wire bytes
    cts = [m for m in msgs if isinstance(m, EncryptedShares)]
    assert len(cts) == n
    assert all(c.ciphertexts.to_numpy().shape[1] == 2 * 11 * 4 + 16 for c in cts)


def test_wire_sizes_and_config_validation() -> None:
    cfg = SecAggConfig.create(32_561, 1582, degree=16, max_dropout=0.1, max_corrupt=0.0, failure=1e-3)
    assert cfg.modulus == 2**15 and cfg.dtype == np.uint16  # 32,561 < 2^15
    assert cfg.threshold == default_threshold(32_561, 16, 0.1, 1e-3) >= 5
    assert SecAggConfig.create(12, 3, max_dropout=0.25).threshold == 11 - 3
    with pytest.raises(UsageError, match=r"cannot tolerate max_dropout=0\.5"):
        SecAggConfig.create(1000, 3, degree=4, max_dropout=0.5)
    with pytest.raises(UsageError, match="max_dropout must be in"):
        SecAggConfig.create(10, 3, max_dropout=1.0)
    with pytest.raises(UsageError, match="exceed n \\* max_value"):
        SecAggConfig.create(10, 3, modulus=8)
    g = Graph.random_regular(10, 9, np.random.default_rng(0))
    with pytest.raises(UsageError, match="x must have 3 cells"):
        SecAggClient(1, SecAggConfig.create(10, 3), g, np.zeros(4, int))


def test_the_threshold_holds_off_the_declared_coalition() -> None:
    """Found by the adversary work: the old defaults gave t = 2 at n = 100, so two colluding
    neighbours plus the server recovered a party's input.  The degree now grows until a
    threshold is both secure against max_corrupt and robust to max_dropout."""
    from mpc_rr.secure_sum.secagg._params import secure_threshold

    for n in (100, 1000, 32_561):
        cfg = SecAggConfig.create(n, 4)
        assert (cfg.max_dropout, cfg.max_corrupt) == (0.1, 0.1)
        assert secure_threshold(n, cfg.degree, 0.1) <= cfg.threshold <= default_threshold(n, cfg.degree, 0.1)
        assert cfg.threshold > 10, (n, cfg)
    cfg = SecAggConfig.create(20, 4)  # complete graph: a coalition of 2 of 20 stays below t
    assert cfg.degree == 19 and cfg.threshold == 17
    with pytest.raises(UsageError, match=r"threshold must be in \[12, degree=16\], got 4 \(a coalition of max_corrupt=0.1"):
        SecAggConfig.create(300, 4, degree=16, threshold=4)
    with pytest.raises(UsageError, match="max_corrupt must be in"):
        SecAggConfig.create(300, 4, max_corrupt=1.0)


def test_thresholds_equal_scipy_binomial_tails() -> None:
    """The thresholds sum exact binomial terms (no scipy.stats in a party): scipy's answers."""
    from scipy.stats import binom

    from mpc_rr.secure_sum.secagg._params import secure_threshold

    def secure_ref(n: int, k: int, g: float, failure: float) -> int:
        det = math.floor(g * n) + 1
        if k >= n - 1 or g == 0:
            return min(det, k + 1)
        ts = np.arange(1, k + 2)
        ok = n * binom.sf(ts - 1, k, g) <= failure
        return min(det, int(ts[ok].min()) if ok.any() else k + 1)

    def robust_ref(n: int, k: int, d: float, failure: float) -> int:
        det = k - math.floor(d * n)
        if k >= n - 1:
            return det
        ts = np.arange(1, k + 1)
        ok = n * binom.cdf(ts - 1, k, 1.0 - d) <= failure
        return max(det, int(ts[ok].max()) if ok.any() else 0)

    for n in (40, 1000, 32_561, 10**6):
        for k in (*range(2, 80, 6), 1001, 1200):
            for f in (0.0, 0.05, 0.1, 1 / 3):
                for failure in (1e-3, 1e-6):
                    assert secure_threshold(n, k, f, failure) == secure_ref(n, k, f, failure), (n, k, f)
                    assert default_threshold(n, k, f, failure) == robust_ref(n, k, f, failure), (n, k, f)


def test_a_client_refuses_fewer_forwarded_shares_than_the_threshold() -> None:
    """An aggregator that forwards party 1 fewer than t shares (none here) could later ask
    every holder for party 1's self-mask seed and unmask it (Bonawitz et al. 2017, round 2):
    party 1 refuses, names the aggregator, and stays out of the sum."""
    from mpc_rr.secure_sum.secagg import ForwardedShares, SecAggServer

    class Withholding(SecAggServer):
        def _forward_shares(self) -> list:  # type: ignore[type-arg]
            out = super()._forward_shares()
            return [
                s if s.dst != 1 else type(s)(1, ForwardedShares(
                    run=s.msg.run, step=s.msg.step,
                    senders=WireArray.from_numpy(np.zeros(0, s.msg.senders.to_numpy().dtype)),
                    ciphertexts=WireArray.from_numpy(np.zeros((0, s.msg.ciphertexts.shape[1]), np.uint8)),
                ))
                for s in out
            ]  # fmt: skip

    cfg, graph, x, roles = setup(8, max_dropout=0.25, seed=4)
    roles[COORDINATOR] = Withholding(cfg, graph)
    res = run(roles)
    assert any("shares from only 0 neighbours" in str(e) and e.peer == COORDINATOR for e in res.peer_errors())
    assert roles[1].error is not None and "shares from only 0 neighbours" in str(roles[1].error)
    server = roles[COORDINATOR].result
    assert 1 not in server.included
    np.testing.assert_array_equal(server.total, expected_over(x, server.included))


def test_fractions_of_parties_count_as_written() -> None:
    """0.29 * 100 is 28.999999999999996 in floats: 29 colluders must still be below t."""
    from mpc_rr.secure_sum.secagg._params import parties_in

    assert [parties_in(f, 100) for f in (0.29, 0.57, 1 / 3, 0.1)] == [29, 57, 33, 10]
    with pytest.raises(UsageError, match=r"threshold must be in \[30, degree=99\], got 29"):
        SecAggConfig.create(100, 1, max_corrupt=0.29, degree=99, threshold=29)
    assert SecAggConfig.create(100, 1, max_dropout=0.29, max_corrupt=0.0, degree=99).max_dropped == 29


def test_a_client_shows_the_masks_its_masked_input_added() -> None:
    """``masks()``: y_u = x_u + PRG(b_u) + pairwise masks (mod R) for the y each client sent, and
    with no dropout the pairwise masks of all clients cancel; before the shares, no masks."""
    n = 6
    cfg, _, x, roles = setup(n, seed=21)
    with pytest.raises(UsageError, match="no masks yet"):
        roles[1].masks()
    res = run(roles, transcript=True)
    assert res.transcript is not None
    R = cfg.modulus
    ys = {e.src: CODEC.decode(e.data).y.to_numpy() for e in res.transcript
          if isinstance(CODEC.decode(e.data), MaskedInput)}  # fmt: skip
    assert sorted(ys) == list(range(1, n + 1))
    pairs_total = np.zeros(cfg.cells, np.int64)
    for u, y in ys.items():
        own, pairs = roles[u].masks()
        assert own.any() and pairs.any()
        np.testing.assert_array_equal((x[u - 1] + own.astype(np.int64) + pairs.astype(np.int64)) % R, y)
        pairs_total += pairs.astype(np.int64)
    assert not (pairs_total % R).any()


def test_the_server_state_is_created_whole_at_construction() -> None:
    """A run adds no attribute to the aggregator nor to its ledger: its state is born with it."""
    _cfg, _, _x, roles = setup(12, seed=4)
    server = roles[COORDINATOR]
    before = (set(vars(server)), set(vars(server.ledger)))
    run(roles, crashed=lambda p, i, m: p == 3 and type(m).__name__ == "SurvivorSet")
    assert server.result is not None and server.dropped  # a run through every step, with a dropout
    assert (set(vars(server)), set(vars(server.ledger))) == before


def test_the_client_accessors_rebuild_its_masked_input() -> None:
    """y_u = x_u + PRG(b_u) + sum_v sign(u, v) PRG(s_uv), from the public accessors alone."""
    cfg, _, x, roles = setup(10, seed=6)
    seen: dict[int, np.ndarray] = {}
    result = run(roles, transcript=True)
    for e in result.transcript.events:
        msg = CODEC.decode(e.data)
        if isinstance(msg, MaskedInput):
            seen[e.src] = msg.y.to_numpy().astype(np.int64)
    c = roles[4]
    assert isinstance(c, SecAggClient)
    u, R, pks = c.party_id, cfg.modulus, c.neighbour_mask_keys()
    mask = crypto.expand_mask(crypto.pair_key(c.self_mask_seed, "self", cfg.run, u, u), cfg.cells, R).astype(np.int64)
    for v in c.mask_partners.tolist():
        key = crypto.pair_key(crypto.agree(c.mask_key, pks[v]), "mask", cfg.run, min(u, v), max(u, v))
        mask += (1 if v > u else -1) * crypto.expand_mask(key, cfg.cells, R).astype(np.int64)
    np.testing.assert_array_equal((x[u - 1] + mask) % R, seen[u])
