"""SecAgg+'s public randomness against an adaptive adversary: the graph and the committee come
from a commit-then-reveal seed of every party, which neither the server nor a coalition
within the bound can predict, choose or drop a contribution from; the broken variant that
draws them from the run label gives every input to a coalition that knows the label."""

from __future__ import annotations

import msgspec
import numpy as np
import pytest
from scipy.stats import hypergeom

from mpc_rr.adversary import check_public_draws
from mpc_rr.adversary._broken import SECAGG_PLANTS, FixedDrawSecAggServer
from mpc_rr.adversary._coalitions import draw_exposure
from mpc_rr.adversary._draw_check import MAX_RECOVERY
from mpc_rr.core import COORDINATOR, Send, UsageError, run_roles
from mpc_rr.secure_sum import SeededEntropy
from mpc_rr.secure_sum.secagg import (
    DrawReveal,
    SecAggClient,
    SecAggServer,
    secagg_public,
    secagg_roles,
)
from mpc_rr.secure_sum.secagg._messages import bitmap
from mpc_rr.secure_sum.secagg._params import fixed_graph


def _run(n: int, run: str, entropy=None, server: type[SecAggServer] = SecAggServer, **kw):
    pub = secagg_public(n, 2, run=run)
    roles = secagg_roles(np.ones((n, 2), np.int64), pub, entropy=entropy)
    roles[COORDINATOR] = server(pub.config, None, identity=roles[COORDINATOR].identity, **kw)
    return roles, run_roles(roles)


def test_the_conformance_check_passes_ours_and_the_adaptive_coalition_stays_at_the_baseline() -> None:
    res = check_public_draws("secagg", parties=200)
    assert res.fresh and res.equivocation_named and res.withholding_named, res
    assert "equivocation" in res.equivocation_reason and "reveals of [3]" in res.withholding_reason
    assert res.coalition_size == 20
    assert res.adaptive_recovery <= MAX_RECOVERY and res.adaptive_success <= res.baseline + 0.1
    assert res.broken_recovery == 1.0  # the same coalition, the label's graph: every input
    assert res.ok


def test_the_check_refuses_a_protocol_without_public_draws_and_a_run_too_small() -> None:
    with pytest.raises(UsageError, match="'full-mesh' makes no public draw"):
        check_public_draws("full-mesh")
    with pytest.raises(UsageError, match="parties must be >= 200, got 100"):
        check_public_draws("secagg", parties=100)


def test_same_roster_and_label_two_runs_draw_two_graphs_and_seeded_runs_repeat() -> None:
    graphs = [_run(60, "same")[0][COORDINATOR].graph.neighbors for _ in range(2)]
    assert not np.array_equal(*graphs)
    seeded = [_run(60, "same", SeededEntropy(4).spawn)[0] for _ in range(2)]
    np.testing.assert_array_equal(seeded[0][COORDINATOR].graph.neighbors, seeded[1][COORDINATOR].graph.neighbors)
    for roles in seeded:  # every party derived the aggregator's seed itself
        assert all(roles[i].seed == roles[COORDINATOR].seed for i in range(1, 61))
    # nothing public fixes it: neither the label's graph nor that of another label's run
    assert not np.array_equal(graphs[0], fixed_graph(secagg_public(60, 2, run="same").config).neighbors)


def test_the_broken_variant_draws_the_label_graph_in_every_run() -> None:
    cfg = secagg_public(60, 2, run="same#nonce-1").config
    for nonce in ("nonce-1", "nonce-2"):
        pub = secagg_public(60, 2, run=f"same#{nonce}")
        x = np.ones((60, 2), np.int64)
        roles = SECAGG_PLANTS["fixed-draw"](secagg_roles(x, pub), x, pub)
        assert isinstance(roles[COORDINATOR], FixedDrawSecAggServer) and run_roles(roles).ok
        for i in (COORDINATOR, 1, 60):  # the label's graph, whatever the seed and the nonce
            np.testing.assert_array_equal(roles[i].graph.neighbors, fixed_graph(cfg).neighbors)


class _DropsAReveal(SecAggServer):
    """Leaves party 2's reveal out after seeing every reveal (as if it dropped): a choice of seed."""

    def _send_neighbor_keys(self) -> list[Send]:
        ids = np.flatnonzero(self.ledger.contributors).tolist()
        kept = b"".join(self.ledger.draw_reveals[u].reveal for u in ids if u != 2)
        members = self.ledger.contributors.copy()
        members[2] = False
        out = super()._send_neighbor_keys()
        return [Send(s.dst, msgspec.structs.replace(s.msg, contributors=bitmap(members), reveals=kept))
                for s in out]  # fmt: skip


def test_a_server_that_leaves_a_reveal_out_is_named_by_every_party() -> None:
    roles, _ = _run(30, "drops", server=_DropsAReveal)
    errors = [roles[i].error for i in range(1, 31)]
    assert all(e is not None and tuple(e.culprits) == (COORDINATOR,) for e in errors)
    assert all("do not open the commitments I was shown" in str(e) for i, e in enumerate(errors, 1) if i != 2)
    assert "contributors are not a bitmap over the parties with me in it" in str(errors[1])  # party 2
    assert not roles[COORDINATOR].ledger.cts  # nobody shared a secret under the steered draw


class _RevealsAnother(SecAggClient):
    """A colluder that reveals another contribution than it committed to (after seeing others')."""

    def _on_draw_committed(self, src, msg):  # type: ignore[no-untyped-def]
        out = super()._on_draw_committed(src, msg)
        reveal = out[0].msg
        assert isinstance(reveal, DrawReveal)
        return [Send(COORDINATOR, DrawReveal(run=self.run, step=0, reveal=bytes(32), signature=reveal.signature))]


def test_a_reveal_that_does_not_open_its_commitment_excludes_its_sender_and_the_draw_restarts() -> None:
    pub = secagg_public(30, 2, run="other-reveal")
    roles = secagg_roles(np.ones((30, 2), np.int64), pub)
    roles[4] = _RevealsAnother(4, pub.config, None, np.ones(2, np.int64), identity=roles[4].identity)
    res = run_roles(roles)
    server = roles[COORDINATOR]
    assert server.error is None and server.culprits == [4] and server.attempt == 1
    assert any(e.peer == 4 for e in res.peer_errors()) and "reveals of [4]" in server.retries[0]
    assert 4 not in server.result.included and len(server.result.included) == 29
    # the seed is the retry's (drawn without 4's contribution), the same for every party
    assert all(roles[i].seed == server.seed and roles[i].attempt == 1 for i in range(1, 31) if i != 4)


@pytest.mark.parametrize(("n", "k", "t", "c"), [(300, 36, 19, 30), (200, 34, 18, 20), (60, 14, 8, 6), (10, 9, 3, 4)])
def test_the_exposure_of_one_target_per_draw_is_the_hypergeometric_tail(n: int, k: int, t: int, c: int) -> None:
    want = hypergeom(n - 1, c, k).sf(t - 1)
    assert draw_exposure(n, k, t, c) == pytest.approx(want, rel=1e-9, abs=1e-300)


def _big(server: type[SecAggServer] = SecAggServer, drop: int | None = None):  # type: ignore[no-untyped-def]
    from mpc_rr.core import DropAt

    pub = secagg_public(500, 2, run="big-draw")
    x = np.ones((500, 2), np.int64)
    roles = secagg_roles(x, pub, entropy=SeededEntropy(9).spawn)
    roles[COORDINATOR] = server(pub.config, None, identity=roles[COORDINATOR].identity)
    if drop is not None:
        roles[drop] = DropAt(roles[drop], DrawReveal)
    return roles, run_roles(roles)


def _revealer_ids() -> list[int]:
    from mpc_rr.secure_sum._public_randomness import revealer_count, revealers

    roles, res = _big()
    assert res.ok
    server = roles[COORDINATOR]
    count = revealer_count(500, 50)
    return revealers(server.ledger.digest, server.ledger.contributors, count).tolist()


def test_past_a_few_hundred_parties_a_few_dozen_reveal_and_every_party_derives_the_seed() -> None:
    from mpc_rr.secure_sum._public_randomness import revealer_count

    assert revealer_count(500, 50) == 58 and revealer_count(32561, 3256) == 39 and revealer_count(300, 30) == 300
    roles, res = _big()
    assert res.ok and int(roles[COORDINATOR].result.total[0]) == 500
    assert all(roles[i].seed == roles[COORDINATOR].seed for i in range(1, 501))
    per_party = res.costs.data_parties()["mean"]["bytes_received"]
    assert per_party < 40_000  # 58 reveals and their signed keys, not 500 reveals (plus the rest)


class _AltersAReveal(SecAggServer):
    """Hands every party another value for one revealer's reveal (a seed it chose)."""

    def _send_neighbor_keys(self) -> list[Send]:
        out = super()._send_neighbor_keys()
        m = out[0].msg
        assert isinstance(m, msgspec.Struct)
        forged = bytes(32) + m.reveals[32:]  # type: ignore[attr-defined]
        return [Send(s.dst, msgspec.structs.replace(s.msg, reveals=forged)) for s in out]


@pytest.mark.slow  # 500 parties; the default tier has the same rule at 12 (the conformance check above)
def test_past_a_few_hundred_parties_an_altered_reveal_is_caught_by_every_party() -> None:
    roles, _ = _big(_AltersAReveal)
    first = _revealer_ids()[0]
    errors = [roles[i].error for i in range(1, 501)]
    assert all(e is not None and tuple(e.culprits) == (COORDINATOR,) for e in errors)
    assert all(f"the reveal of party {first} does not open its signed commitment" in str(e) for e in errors)


@pytest.mark.slow  # 500 parties; the default tier has the same rule at 12 (the conformance check above)
def test_past_a_few_hundred_parties_only_a_revealer_that_withholds_restarts_the_run() -> None:
    revealers = _revealer_ids()
    other = next(v for v in range(1, 501) if v not in revealers)
    roles, res = _big(drop=other)  # not a revealer: an ordinary dropout
    assert res.ok and other not in roles[COORDINATOR].result.included and roles[COORDINATOR].attempt == 0
    roles, _ = _big(drop=revealers[0])  # a revealer: a fresh draw without it
    server = roles[COORDINATOR]
    assert server.error is None and server.attempt == 1 and f"reveals of [{revealers[0]}]" in server.retries[0]
    assert revealers[0] not in server.result.included and server.culprits == []  # a dropout, not a culprit
