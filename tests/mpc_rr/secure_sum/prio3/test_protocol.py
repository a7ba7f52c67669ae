"""The registered ``prio3`` sum: exact sums, invalid reports rejected and named, a lying helper caught."""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np
import pytest

from mpc_rr.core import DropAt, HarnessRunner, Send, UsageError
from mpc_rr.secure_sum import SystemEntropy, secure_sum_roles, sum_protocol
from mpc_rr.secure_sum._crypto import InvalidTag, agree, decrypt, keypair
from mpc_rr.secure_sum.prio3 import Prio3Client, Prio3Leader, Report
from mpc_rr.secure_sum.prio3._messages import HelperKey, JobResponse
from mpc_rr.secure_sum.prio3._params import seal_key
from mpc_rr.workflows import run_secure_sum


def _onehot(n: int, cells: int, seed: int) -> np.ndarray:
    x = np.zeros((n, cells), np.int64)
    x[np.arange(n), np.random.default_rng(seed).integers(0, cells, n)] = 1
    return x


@pytest.mark.parametrize("circuit", ["sumvec", "histogram", "multihot"])
def test_prio3_sum_is_exact_and_names_the_invalid_clients(circuit: str) -> None:
    x = _onehot(9, 12, 3)
    rep = run_secure_sum("prio3", x, seed=3, circuit=circuit, invalid=2)
    assert rep.aborted is None
    assert rep.rejected == (8, 9)
    assert rep.exact and rep.inputs_in_sum == 7 and rep.survivors == 9
    np.testing.assert_array_equal(rep.total, x[:7].sum(axis=0))
    assert rep.to_json()["rejected"] == {"count": 2, "ids": [8, 9]}


@pytest.mark.parametrize(("field", "proofs"), [("field64", 3), ("field128", 1)])
def test_both_fields_sum_vectors_in_range(field: str, proofs: int) -> None:
    x = np.random.default_rng(1).integers(0, 6, size=(6, 5))
    rep = run_secure_sum("prio3", x, seed=1, field=field)
    assert rep.exact and rep.rejected == () and rep.params["proofs"] == proofs
    assert rep.params["field"] == {"field64": "Field64", "field128": "Field128"}[field]


def test_prio3_refuses_an_input_its_circuit_cannot_encode() -> None:
    x = np.ones((4, 6), np.int64)  # not one-hot
    with pytest.raises(UsageError, match="one-hot"):
        run_secure_sum("prio3", x, circuit="histogram")


def test_prio3_is_a_sum_whose_coordinator_learns_the_total() -> None:
    spec = sum_protocol("prio3")
    assert spec.total_at_coordinator and spec.hides_inputs and spec.steps == ("report",)


class _LyingHelper(Prio3Client):
    """A helper that alters its verifier shares (and still claims its decisions)."""

    def _on_job(self, src: int, msg: Any) -> list[Send]:
        [send] = super()._on_job(src, msg)
        resp = send.msg
        assert isinstance(resp, JobResponse)
        bad = [bytes([s[0] ^ 1]) + s[1:] for s in resp.helper_vshares]
        forged = msgspec.structs.replace(resp, helper_vshares=bad)
        return [Send(send.dst, forged)]


def test_a_helper_that_alters_its_verifier_share_does_not_pass_silently() -> None:
    x = _onehot(5, 8, 0)
    roles, _ = secure_sum_roles("prio3", x, run="r")
    honest = roles[1]
    assert isinstance(honest, Prio3Client)
    roles[1] = _LyingHelper(1, honest.pub, x[0])
    res = HarnessRunner()(roles)
    leader = res.roles[0]
    assert leader.error is not None and leader.error.culprits == (1,)
    assert "contradicts" in str(leader.error)


class _KeepingLeader(Prio3Leader):
    """An honest leader that keeps a copy of every report it receives (to inspect them)."""

    def _on_report(self, src: int, msg: Report) -> list[Send]:
        self.kept = {**getattr(self, "kept", {}), src: msg}
        return super()._on_report(src, msg)


def test_a_leader_cannot_read_the_sealed_helper_share() -> None:
    x = _onehot(3, 4, 0)
    roles, _ = secure_sum_roles("prio3", x, run="r")
    roles[0] = leader = _KeepingLeader(roles[0].pub)
    res = HarnessRunner()(roles)
    assert res.roles[0].result.total.tolist() == x.sum(axis=0).tolist()
    assert sorted(leader.kept) == [1, 2, 3]
    for r in leader.kept.values():  # what the leader holds of each client
        assert len(r.sealed) == 32 + 32 + 16  # the helper's seed and blind, AES-GCM sealed
        with pytest.raises(InvalidTag):  # without the helper's key it does not open
            decrypt(bytes(32), r.sealed, r.nonce + r.public_share)


# -- the helper's key is pinned, not relayed ------------------------------------------------------


class _SubstitutingLeader(_KeepingLeader):
    """A leader that relays its own key as the helper's (to open the helper's shares)."""

    def __init__(self, pub: Any) -> None:
        super().__init__(pub)
        self.sk, self.pk = keypair(SystemEntropy())

    def _relay_key(self, src: int, msg: HelperKey) -> list[Send]:
        sends = super()._relay_key(src, msg)
        return [Send(s.dst, HelperKey(pk=self.pk, run=self.run, step=0)) for s in sends]


class _RelayTrustingClient(Prio3Client):
    """The broken variant (before the pin): seal to whatever key the leader relays."""

    def start(self) -> list[Send]:
        return []

    def _check_key(self, src: int, msg: HelperKey) -> list[Send]:
        return [self._report(msg.pk)]


def _opened_inputs(leader: _SubstitutingLeader) -> dict[int, list[int]]:
    """What the substituting leader recovers: each share it can open, plus its own share."""
    v, ctx, out = leader.pub.vdaf, leader.pub.ctx, {}
    for pid, rep in leader.kept.items():
        try:
            key = seal_key(agree(leader.sk, rep.eph_pk), leader.run, pid)
            helper_share = decrypt(key, rep.sealed, rep.nonce + rep.public_share)
        except InvalidTag:
            continue
        meas = v.field.add(v._expand(ctx, 0, rep.leader_share)[0], v._expand(ctx, 1, helper_share)[0])
        out[pid] = [int(m) for m in v.field.to_ints(meas)]
    return out


@pytest.mark.parametrize("broken", [False, True])
def test_a_leader_that_substitutes_the_helper_key_is_caught(broken: bool) -> None:
    x = _onehot(5, 6, 4)
    roles, _ = secure_sum_roles("prio3", x, run=f"subst-{broken}")
    leader = roles[0] = _SubstitutingLeader(roles[0].pub)
    if broken:
        for pid in range(2, 6):
            roles[pid] = _RelayTrustingClient(pid, leader.pub, x[pid - 1])
    res = HarnessRunner()(roles)
    opened = _opened_inputs(leader)
    assert len(leader.kept) == 5
    if broken:  # the attack works against the relay-trusting variant: every input read
        assert {pid: opened[pid] for pid in range(2, 6)} == {p: x[p - 1].tolist() for p in range(2, 6)}
        return
    assert opened == {}  # ours sealed to the pinned key: nothing opens
    for pid in range(2, 6):
        err = res.roles[pid].error
        assert err is not None and err.culprits == (0,) and "pinned" in str(err)


def test_a_deployment_pins_the_helper_key_and_party_1_reads_its_secret(tmp_path: Any) -> None:
    sk, pk = keypair(SystemEntropy())
    (tmp_path / "helper.key").write_bytes(sk.private_bytes_raw())
    x = _onehot(4, 5, 1)
    rep = run_secure_sum("prio3", x, seed=1, helper_key=pk.hex(), helper_secret=str(tmp_path / "helper.key"))
    assert rep.exact and rep.params["helper_key"] == pk.hex()
    assert rep.params["helper_key_pinned_by"] == "deployment"
    (tmp_path / "other.key").write_bytes(keypair(SystemEntropy())[0].private_bytes_raw())
    with pytest.raises(UsageError, match="does not match the pinned helper_key"):
        run_secure_sum("prio3", x, helper_key=pk.hex(), helper_secret=str(tmp_path / "other.key"))


# -- a silent helper: every client is told at once, naming it ----------------------------------------


@pytest.mark.parametrize("at", [Report, JobResponse])
def test_a_helper_dropout_fails_fast_naming_the_helper(at: type) -> None:
    x = _onehot(5, 6, 2)
    roles, _ = secure_sum_roles("prio3", x, run=f"drop-{at.__name__}")
    roles[1] = DropAt(roles[1], at)
    res = HarnessRunner()(roles)
    assert res.roles[0].error is not None and res.roles[0].error.culprits == (1,)
    for pid in range(2, 6):  # told by the leader (its reason), not timed out; its word, so the
        err = res.roles[pid].error  # suspects are the leader and the helper (a client cannot check)
        assert err is not None and err.culprits == () and err.suspects == ((0, 1),), err
        assert "the leader aborted" in str(err) and "helper (party 1)" in str(err)
        assert "timed out" not in str(err)


def test_a_helper_without_the_pinned_key_is_named_at_once() -> None:
    x = _onehot(4, 5, 3)
    roles, _ = secure_sum_roles("prio3", x, run="wrong-helper-key")
    helper = roles[1]
    assert isinstance(helper, Prio3Client)
    helper._sk, helper._pk = keypair(SystemEntropy())  # e.g. a process that drew its own key
    res = HarnessRunner()(roles)
    err = res.roles[0].error
    assert err is not None and err.culprits == (1,) and "pinned" in str(err)
    for pid in (2, 3, 4):  # the leader's word: the leader or the helper
        err = res.roles[pid].error
        assert err is not None and err.suspects == ((0, 1),) and "pinned" in str(err)
