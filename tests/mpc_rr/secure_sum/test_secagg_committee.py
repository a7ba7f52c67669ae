"""SecAgg+'s consistency committee: a constant quorum instead of a majority of all parties,
as safe (two quorums share more members than can collude) and as live (the honest survivors
reach it) as the threshold, checked against scipy's binomial; and enforced by the parties."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom

from mpc_rr.adversary.active import _cheat_runs, cheat
from mpc_rr.core import COORDINATOR, Send, run_roles
from mpc_rr.secure_sum import SeededEntropy, message_count
from mpc_rr.secure_sum.secagg import (
    SecAggClient,
    SecAggServer,
    SurvivorSet,
    secagg_public,
    secagg_roles,
)
from mpc_rr.secure_sum.secagg._params import consistency_committee, parties_in


def _corrupt_bound(m: int, gamma: float, failure: float) -> int:
    """Smallest ``c`` with ``P[Binomial(m, gamma) > c] <= failure`` (scipy)."""
    return next(c for c in range(m + 1) if binom.sf(c, m, gamma) <= failure)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(2, 3000),
    gamma=st.sampled_from([0.0, 0.01, 0.05, 0.1, 0.2, 0.3]),
    delta=st.sampled_from([0.0, 0.05, 0.1, 0.2, 0.3]),
    failure=st.sampled_from([1e-9, 1e-6, 1e-3]),
)
def test_the_committee_is_safe_and_live_with_the_failure_probability(
    n: int, gamma: float, delta: float, failure: float
) -> None:
    m, q = consistency_committee(n, gamma, delta, failure)
    full = min(n, (n + parties_in(gamma, n)) // 2 + 1)
    if m == n:  # everyone signs: the deterministic quorum of Bonawitz et al.
        assert q == full
        return
    assert 1 <= q <= m < n and q < full  # smaller than the majority of all parties, or not used
    assert 2 * q > m + _corrupt_bound(m, gamma, failure)  # safety: two quorums share an honest member
    assert binom.cdf(q - 1, m, 1 - delta) <= failure * (1 + 1e-9)  # liveness under random dropouts


def test_the_defaults_give_a_committee_of_55_and_a_quorum_of_37_at_any_size() -> None:
    for n in (100, 1000, 32561, 10**6):
        assert consistency_committee(n, 0.1, 0.1) == (55, 37)
    assert consistency_committee(40, 0.1, 0.1) == (40, 23)  # small runs: everyone signs


def test_the_committee_is_drawn_per_run_and_the_fixed_one_follows_the_label_only() -> None:
    cfg = secagg_public(300, 4, run="study#nonce-1").config
    seeds = [bytes([i]) * 32 for i in range(2)]
    a, b = (cfg.committee_for(s) for s in seeds)
    assert a.sum() == b.sum() == cfg.committee_size == 55 and not a[0] and not b[0]
    assert not np.array_equal(a, b)  # another seed, another committee
    np.testing.assert_array_equal(a, cfg.committee_for(seeds[0]))
    # the fixed derivation (the broken variant's): the label's base, whatever the nonce
    other = secagg_public(300, 4, run="study#nonce-2").config
    np.testing.assert_array_equal(cfg.committee_for(None), other.committee_for(None))
    small = secagg_public(30, 4, run="study").config
    assert small.committee_for(seeds[0])[1:].all() and not small.committee_for(seeds[0])[0]


def test_two_runs_on_the_same_roster_and_label_draw_different_committees() -> None:
    committees = []
    for _ in range(2):  # fresh contributions (the OS CSPRNG), same roster, same label
        pub = secagg_public(120, 4, run="committee")
        roles = secagg_roles(np.zeros((120, 4), np.int64), pub)
        assert run_roles(roles).ok
        committees.append(roles[COORDINATOR].committee)
        assert all(np.array_equal(roles[i].committee, committees[-1]) for i in range(1, 121))
    assert not np.array_equal(*committees)


def _run(n: int, server: type[SecAggServer], client: type[SecAggClient]) -> tuple[dict[int, Any], Any, np.ndarray]:
    pub = secagg_public(n, 4, run="committee")
    x = np.random.default_rng(1).integers(0, 2, size=(n, 4))
    roles = secagg_roles(x, pub, entropy=SeededEntropy(3).spawn)
    roles[COORDINATOR] = server(pub.config, pub.graph, identity=roles[COORDINATOR].identity)
    for i in range(1, n + 1):
        roles[i] = client(i, pub.config, pub.graph, x[i - 1], entropy=SeededEntropy(3).spawn(i),
                          identity=roles[i].identity)  # fmt: skip
    return roles, run_roles(roles), x


def test_an_honest_run_sends_only_the_committee_quorums_signatures_and_is_exact() -> None:
    sent: list[int] = []

    class Counting(SecAggServer):
        def _request_unmask_shares(self) -> list[Send]:
            out = super()._request_unmask_shares()
            sent.append(len(out[0].msg.signatures))  # type: ignore[attr-defined]
            return out

    roles, _res, x = _run(120, Counting, SecAggClient)
    cfg = roles[COORDINATOR].cfg
    assert cfg.committee_size < cfg.n and sent == [cfg.quorum]
    np.testing.assert_array_equal(roles[COORDINATOR].result.total, x.sum(axis=0))


class CountsOutsiders(SecAggServer):
    """The broken rule: valid signatures from outside the committee count towards the quorum
    -- here a quorum of outsiders colluding with the server, who sign whatever it shows them."""

    colluders: dict[int, Any] = {}  # noqa: RUF012  # outsider id -> its identity (set by the test)

    def _request_unmask_shares(self) -> list[Send]:
        outsiders = [v for v in sorted(self.colluders) if not self.committee[v]][: self.cfg.quorum]
        for v in outsiders:
            self.ledger.consistency[v] = self.colluders[v].sign(self._signed("consistency", v, self.ledger.survivors))
        msg = self._unmask_request(outsiders)
        return [Send(v, msg) for v in np.flatnonzero(self.alive).tolist()]


def test_valid_signatures_from_outside_the_committee_do_not_count() -> None:
    pub = secagg_public(120, 4, run="committee")
    roles = secagg_roles(np.zeros((120, 4), np.int64), pub, entropy=SeededEntropy(3).spawn)
    CountsOutsiders.colluders = {v: roles[v].identity for v in range(1, 121)}  # the outsiders among them sign
    roles[COORDINATOR] = CountsOutsiders(pub.config, pub.graph, identity=roles[COORDINATOR].identity)
    run_roles(roles)
    errors = [roles[i].error for i in range(1, 121)]
    assert all(e is not None and tuple(e.culprits) == (COORDINATOR,) for e in errors)
    assert all("outside the consistency committee" in str(e) for e in errors)
    assert roles[COORDINATOR].ledger.unmask == {}  # nobody revealed a share


def test_only_the_committee_is_asked_to_sign_and_the_message_count_follows() -> None:
    roles, res, x = _run(120, SecAggServer, SecAggClient)
    cfg = roles[COORDINATOR].cfg
    members = {v for v in range(1, 121) if roles[COORDINATOR].committee[v]}
    shown = {v for v in range(1, 121) if hasattr(roles[v], "_survivors")}  # set when it signs
    assert shown == set(roles[COORDINATOR].ledger.consistency) == members and len(members) == cfg.committee_size == 55
    assert res.costs.messages == message_count("secagg", 120) == 10 * 120 + 2 * 55
    np.testing.assert_array_equal(roles[COORDINATOR].result.total, x.sum(axis=0))


class AsksOutsiders(SecAggServer):
    """Shows the survivor set to an outsider too, as if it were on the committee."""

    def _survivor_set(self, members: np.ndarray) -> list[Send]:
        out = super()._survivor_set(members)
        outsider = next(v for v in range(1, self.cfg.n + 1) if members[v] and not self.committee[v])
        return [*out, Send(outsider, SurvivorSet(run=self.run, step=3, survivors=self.ledger.survivors))]


class SkipsTheCommittee(SecAggServer):
    """Asks a committee member to unmask without showing it the set to sign."""

    def _survivor_set(self, members: np.ndarray) -> list[Send]:
        out = super()._survivor_set(members)
        self.skipped = out[0].dst
        return out[1:]

    def _request_unmask_shares(self) -> list[Send]:
        out = super()._request_unmask_shares()  # the skipped member did not sign: dropped...
        return [*out, Send(self.skipped, out[0].msg)]  # ...and asked to unmask all the same


def test_a_survivor_set_outside_the_committee_or_an_unsigned_request_inside_it_names_the_server() -> None:
    roles, _res, _x = _run(120, AsksOutsiders, SecAggClient)
    outsider = next(v for v in range(1, 121) if not roles[COORDINATOR].committee[v])
    err = roles[outsider].error
    assert err is not None and tuple(err.culprits) == (COORDINATOR,) and "not on the consistency committee" in str(err)
    roles, _res, _x = _run(120, SkipsTheCommittee, SecAggClient)
    skipped = roles[COORDINATOR].skipped
    err = roles[skipped].error
    assert err is not None and tuple(err.culprits) == (COORDINATOR,) and "before the survivor set" in str(err)
    assert skipped not in roles[COORDINATOR].ledger.unmask  # it revealed nothing


@pytest.mark.parametrize("strategy", ["equivocate", "isolate"])
def test_survivor_set_cheats_are_caught_with_a_committee_smaller_than_the_parties(
    strategy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def public(_strategy: str, run: str) -> Any:
        return secagg_public(120, 16, run=run, degree=16, threshold=8, max_corrupt=0.05, max_dropout=0.15)

    monkeypatch.setattr(_cheat_runs, "_public", public)
    cfg = public(strategy, "x").config
    assert cfg.committee_size < cfg.n
    broken = cheat(strategy, trials=1, seed=11, broken=True)
    assert not broken.detected and broken.inputs_recovered >= 1
    ours = cheat(strategy, trials=1, seed=11)
    assert ours.detected and ours.culprits == (0,) and ours.honest_blamed == ()
    assert ours.inputs_recovered == 0


def test_a_dropout_at_the_consistency_step_crashes_inside_and_outside_the_committee() -> None:
    from mpc_rr.core import DropAt
    from mpc_rr.secure_sum import step_messages

    pub = secagg_public(120, 4, run="committee")
    x = np.random.default_rng(1).integers(0, 2, size=(120, 4))
    roles = secagg_roles(x, pub, entropy=SeededEntropy(3).spawn)
    run_roles(roles)  # a seeded dry run: the same contributions draw the same committee
    committee = roles[COORDINATOR].committee
    roles = secagg_roles(x, pub, entropy=SeededEntropy(3).spawn)
    member = next(v for v in range(1, 121) if committee[v])
    outsider = next(v for v in range(1, 121) if not committee[v])
    at = step_messages("secagg")["consistency"]
    roles[member], roles[outsider] = DropAt(roles[member], at), DropAt(roles[outsider], at)
    run_roles(roles)
    server = roles[COORDINATOR]
    assert roles[member].crashed and roles[outsider].crashed
    # both sent their masked inputs (in U3): the member drops in the consistency step, the
    # outsider (which has no such step) before its unmask shares; both inputs are in the sum
    assert server.dropped == {member: "CONSISTENCY", outsider: "UNMASK"}
    np.testing.assert_array_equal(server.result.total, x.sum(axis=0))
