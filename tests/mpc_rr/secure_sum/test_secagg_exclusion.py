"""SecAgg+ excludes, with proof, a client whose shares are inconsistent, and sums the rest.

Attempt 0 cannot tell a dealer of inconsistent shares from a holder that reveals a wrong
share; the retry's verifiable shares can (each share committed to and signed by its dealer).
So the run retries with everyone, then without whoever the commitments prove cheated; an
honest party is never excluded on another's word.
"""

from __future__ import annotations

import numpy as np
import pytest

from mpc_rr.core import COORDINATOR, Codec, DecodeError, Send, UsageError, WireArray, run_roles
from mpc_rr.secure_sum import SeededEntropy
from mpc_rr.secure_sum import _shamir as shamir
from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum.secagg import (
    SECAGG_MESSAGES,
    SecAggClient,
    SecAggConfig,
    SecAggPublic,
    SecAggServer,
    UnmaskShares,
    secagg_roles,
)
from mpc_rr.secure_sum.secagg._messages import (
    CommittedForwardedShares,
    CommittedShares,
    MaskedInput,
    SecAggRestart,
    share_commitments,
    wire,
)

N, CELLS = 12, 4
CHEATER = 3


class InconsistentDealer(SecAggClient):
    """Deals shares of another self-mask seed than the one it committed to (every attempt)."""

    def _on_neighbor_keys(self, src: int, msg):  # type: ignore[no-untyped-def]
        real, self._b = self._b, self.entropy.key(32)
        try:
            return super()._on_neighbor_keys(src, msg)
        finally:
            self._b = real


class LyingHolder(SecAggClient):
    """Reveals a wrong share of its first live neighbour's self-mask seed (every attempt)."""

    def _on_unmask_request(self, src: int, msg):  # type: ignore[no-untyped-def]
        out = super()._on_unmask_request(src, msg)
        m: UnmaskShares = out[0].msg
        sh = m.b_shares.to_numpy().copy()
        sh[0, 0] = (int(sh[0, 0]) + 1) % shamir.PRIME
        return [Send(COORDINATOR, UnmaskShares(run=m.run, step=m.step, b_owners=m.b_owners, b_shares=wire(sh, "<u4"),
                                               s_owners=m.s_owners, s_shares=m.s_shares))]  # fmt: skip


class FalseAccuser(SecAggClient):
    """In a retry, accuses its first share sender (an honest one) with its real key as evidence."""

    def _masked_input(self):  # type: ignore[no-untyped-def]
        out = super()._masked_input()
        if not self.attempt:
            return out
        m: MaskedInput = out[0].msg
        victim = int(self.mask_partners[0])
        from mpc_rr.secure_sum import _crypto as crypto

        return [Send(COORDINATOR, MaskedInput(run=m.run, step=m.step, y=m.y, accused=wire(np.asarray([victim]), "<u4"),
                                              evidence=crypto.private_bytes(self._c_sk)))]  # fmt: skip


def _roles(cheats: dict[int, type[SecAggClient]], seed: int = 1):
    rng = np.random.default_rng(seed)
    cfg = SecAggConfig.create(N, CELLS, max_corrupt=0.0, max_dropout=0.25)
    graph = Graph.random_regular(N, cfg.degree, rng)
    x = rng.integers(0, 2, size=(N, CELLS))
    pub = SecAggPublic(cfg, graph)
    roles = secagg_roles(x, pub, entropy=SeededEntropy(seed).spawn)
    for u, cls in cheats.items():
        honest = roles[u]
        roles[u] = cls(u, cfg, graph, x[u - 1], entropy=SeededEntropy(100 + u), identity=honest.identity)  # type: ignore[attr-defined]
    return x, roles


def _exact_without(x: np.ndarray, roles, left_out: set[int]) -> None:
    server = roles[COORDINATOR]
    included = set(server.result.included)
    assert included == set(range(1, N + 1)) - left_out
    want = x[sorted(int(u) - 1 for u in included)].sum(axis=0)
    np.testing.assert_array_equal(server.result.total, want)
    for u in included:  # every honest party accepted the same exact total
        np.testing.assert_array_equal(roles[u].result.total, want)


def test_a_dealer_of_inconsistent_shares_is_proven_excluded_and_the_rest_summed_exactly() -> None:
    x, roles = _roles({CHEATER: InconsistentDealer})
    run_roles(roles)
    server = roles[COORDINATOR]
    assert server.error is None, server.error
    assert server.culprits == [CHEATER] and server.attempt == 2  # a verifiable retry, then one without it
    assert "excluded at UNMASK of attempt 1" in server.dropped[CHEATER]
    _exact_without(x, roles, {CHEATER})
    assert all(roles[u].excluded == [CHEATER] for u in range(1, N + 1) if u != CHEATER)
    assert roles[CHEATER].error is not None and "excluded from the retry" in str(roles[CHEATER].error)


def test_without_retries_the_run_aborts_as_it_always_did() -> None:
    """The behaviour the retries replace: the unmasking fails and the whole sum stops."""
    _x, roles = _roles({CHEATER: InconsistentDealer})
    old = roles[COORDINATOR]
    roles[COORDINATOR] = SecAggServer(old.cfg, old.pinned_graph, identity=old.identity, max_retries=0)
    run_roles(roles)
    err = roles[COORDINATOR].error
    assert err is not None and "fail their commitment" in str(err) and tuple(err.culprits) == (CHEATER,)
    assert all(roles[u].error is not None for u in range(1, N + 1))


def test_a_holder_revealing_a_wrong_share_is_named_never_the_honest_dealer() -> None:
    liar = 1  # the lowest id: among the first t holders of every share it holds, so its lie counts
    x, roles = _roles({liar: LyingHolder})
    run_roles(roles)
    server = roles[COORDINATOR]
    assert server.error is None, server.error
    assert server.culprits == [liar] and server.attempt == 2
    _exact_without(x, roles, {liar})  # the dealer it lied about is counted


def test_a_false_complaint_in_a_verifiable_run_excludes_the_complainer_not_the_accused() -> None:
    accuser = 5
    x, roles = _roles({CHEATER: InconsistentDealer, accuser: FalseAccuser})
    run_roles(roles)
    server = roles[COORDINATOR]
    assert server.error is None, server.error
    assert set(server.culprits) == {CHEATER, accuser}
    _exact_without(x, roles, {CHEATER, accuser})  # its victim is counted


def test_a_restart_out_of_order_makes_the_party_leave_naming_the_aggregator() -> None:
    _x, roles = _roles({})
    c = roles[2]
    c.start()
    restart = SecAggRestart(run=c.run, step=8, attempt=2, excluded=wire(np.asarray([3]), "<u4"), reason="")
    with pytest.raises(Exception, match="attempt 2 after attempt 0"):
        c.receive(COORDINATOR, restart)
    assert c.error is not None and tuple(c.error.culprits) == (COORDINATOR,)


def test_the_retry_messages_round_trip_and_malformed_ones_are_refused() -> None:
    codec = Codec(SECAGG_MESSAGES)
    rows = np.arange(2 * 2 * shamir.CHUNKS, dtype="<u4").reshape(2, -1)
    commits = share_commitments("r/retry-1", 4, np.asarray([1, 2]), rows)
    assert commits.shape == (2, 64) and len({commits[0, :32].tobytes(), commits[1, :32].tobytes()}) == 2
    ids, cts = wire(np.asarray([1, 2]), "<u4"), WireArray.from_numpy(np.zeros((2, 8), np.uint8))
    msgs = [
        CommittedShares(run="r", step=1, recipients=ids, ciphertexts=cts, signature=b"s", commitments=wire(commits, np.uint8)),
        CommittedForwardedShares(run="r", step=1, senders=ids, ciphertexts=cts, commitments=wire(commits, np.uint8)),
        SecAggRestart(run="r", step=8, attempt=1, excluded=ids, reason="why"),
    ]
    for m in msgs:
        assert codec.decode(codec.encode(m)) == m
    bad = codec.encode(msgs[2]).replace(b"\xa6reason", b"\xa6reasom")
    with pytest.raises(DecodeError):
        codec.decode(bad)
    with pytest.raises(DecodeError):  # attempt 0 is no retry
        codec.decode(codec.encode(SecAggRestart(run="r", step=8, attempt=1, excluded=ids, reason="")).replace(b"\xa7attempt\x01", b"\xa7attempt\x00"))


def test_the_retry_budget_is_checked() -> None:
    _x, roles = _roles({})
    old = roles[COORDINATOR]
    with pytest.raises(UsageError, match=r"max_retries must be in 0\.\.3, got 4"):
        SecAggServer(old.cfg, old.pinned_graph, max_retries=4)
