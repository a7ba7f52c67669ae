"""Prio3 reports are signed by their clients and the helper releases an aggregate only over a minimum
batch: a report from another run, sender or key is refused, dropouts below the batch stop the run."""

from __future__ import annotations

import hashlib

import msgspec
import numpy as np
import pytest

from mpc_rr.core import DropAt, HarnessRunner, Send, UsageError
from mpc_rr.secure_sum import secure_sum_roles
from mpc_rr.secure_sum._identity import default_identity
from mpc_rr.secure_sum.prio3 import Prio3Client, Report, default_min_batch
from mpc_rr.secure_sum.prio3._params import report_payload


def _onehot(n: int, cells: int, seed: int) -> np.ndarray:
    x = np.zeros((n, cells), np.int64)
    x[np.arange(n), np.random.default_rng(seed).integers(0, cells, n)] = 1
    return x


@pytest.mark.parametrize(("n", "batch"), [(1, 1), (2, 2), (3, 2), (4, 2), (5, 3), (8, 4), (9, 5), (32_561, 16_281)])
def test_default_min_batch_is_half_the_clients_and_at_least_two(n: int, batch: int) -> None:
    assert default_min_batch(n) == batch


class _Relabelled(Prio3Client):
    """A client whose report's signature does not match it: ``how`` says in which way."""

    how = "run"

    def _report(self, helper_pk: bytes) -> Send:
        send = super()._report(helper_pk)
        rep: Report = send.msg  # type: ignore[assignment]
        if self.how == "share":  # a share changed after signing
            return Send(send.dst, msgspec.structs.replace(rep, leader_share=rep.leader_share[:-1] + b"\1"))
        run, signer = ("earlier", self.identity) if self.how == "run" else (self.run, default_identity(3, self.pub.n))
        digest = hashlib.sha256(rep.leader_share).digest()
        payload = report_payload(run, self.party_id, rep.nonce, rep.public_share, digest, rep.eph_pk, rep.sealed)
        return Send(send.dst, msgspec.structs.replace(rep, signature=signer.sign(payload)))


@pytest.mark.parametrize("how", ["run", "key", "share"])  # another run, another client's key, altered
def test_a_report_that_its_client_did_not_sign_as_sent_is_rejected_and_named(how: str) -> None:
    x = _onehot(7, 5, 1)
    roles, _ = secure_sum_roles("prio3", x, run=f"signed-{how}")
    bad = roles[4] = type("Bad", (_Relabelled,), {"how": how})(4, roles[4].pub, x[3])
    assert bad.identity.party_id == 4
    res = HarnessRunner()(roles)
    out = res.roles[0].result
    assert out.rejected == (4,)
    np.testing.assert_array_equal(out.total, np.delete(x, 3, axis=0).sum(axis=0))  # exact over the rest


def test_a_report_claiming_another_sender_is_rejected() -> None:
    x = _onehot(6, 5, 2)
    roles, _ = secure_sum_roles("prio3", x, run="claim")
    three = roles[3]
    assert isinstance(three, Prio3Client)
    forged = three._report(three.pub.helper_pk).msg  # client 3's signed report, delivered as client 5's

    class _Claiming(Prio3Client):
        def _report(self, helper_pk: bytes) -> Send:
            return Send(0, forged)

    roles[5] = _Claiming(5, roles[5].pub, x[4])
    res = HarnessRunner()(roles)
    assert res.roles[0].result.rejected == (5,)


def test_dropouts_below_the_minimum_batch_release_nothing() -> None:
    x = _onehot(8, 5, 3)  # minimum batch 4: five silent clients leave 3 reports
    roles, _ = secure_sum_roles("prio3", x, run="too-few")
    for pid in (4, 5, 6, 7, 8):
        roles[pid] = DropAt(roles[pid], Report)
    res = HarnessRunner()(roles)
    err = res.roles[0].error
    assert err is not None and "minimum batch of 4" in str(err) and err.culprits == ()
    for pid in (1, 2, 3):  # told why, nobody blamed
        e = res.roles[pid].error
        assert e is not None and "minimum batch" in str(e) and e.culprits == ()


def test_a_lower_minimum_batch_lets_the_same_run_finish() -> None:
    x = _onehot(8, 5, 3)
    roles, _ = secure_sum_roles("prio3", x, run="few-ok", options={"min_batch": 3})
    for pid in (4, 5, 6, 7, 8):
        roles[pid] = DropAt(roles[pid], Report)
    res = HarnessRunner()(roles)
    np.testing.assert_array_equal(res.roles[0].result.total, x[:3].sum(axis=0))



@pytest.mark.parametrize(("options", "match"), [({"min_batch": 9}, "more than the 8 clients"),
                                                 ({"invalid": 5}, "fewer than the minimum batch of 4")])  # fmt: skip
def test_parameters_that_cannot_release_a_total_are_refused(options: dict[str, int], match: str) -> None:
    with pytest.raises(UsageError, match=match):
        secure_sum_roles("prio3", _onehot(8, 5, 4), run="refused", options=options)
