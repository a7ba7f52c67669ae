"""Prio3's bounded aggregation jobs: many jobs sum exactly, a helper silent at any job is named
fast, a leader that repeats a report is refused, one aggregate share is released."""

from __future__ import annotations

from typing import Any

import msgspec
import numpy as np
import pytest

from mpc_rr.core import HarnessRunner, Send
from mpc_rr.secure_sum import secure_sum_roles
from mpc_rr.secure_sum.prio3 import Prio3Client, Prio3Leader, build_vdaf
from mpc_rr.secure_sum.prio3 import _params as params
from mpc_rr.secure_sum.prio3._messages import AggregationJob, JobResponse
from mpc_rr.secure_sum.prio3._params import job_reports


def _onehot(n: int, cells: int, seed: int) -> np.ndarray:
    x = np.zeros((n, cells), np.int64)
    x[np.arange(n), np.random.default_rng(seed).integers(0, cells, n)] = 1
    return x


@pytest.fixture
def jobs_of_4(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(params, "JOB_REPORTS", 4)


class _Recording(Prio3Client):
    """The honest helper, recording every job it serves and every answer it gives."""

    def _on_job(self, src: int, msg: Any) -> list[Send]:
        sends = super()._on_job(src, msg)
        self.log = [*getattr(self, "log", []), (msg, sends[0].msg)]
        return sends


@pytest.mark.usefixtures("jobs_of_4")
def test_many_jobs_sum_exactly_and_release_one_aggregate_share() -> None:
    x = _onehot(11, 6, 5)
    roles, _ = secure_sum_roles("prio3", x, run="jobs", options={"invalid": 3})
    helper = roles[1] = _Recording(1, roles[1].pub, x[0])
    res = HarnessRunner()(roles)
    out = res.roles[0].result
    assert out.rejected == (9, 10, 11)  # the invalid clients, named though they span two jobs
    np.testing.assert_array_equal(out.total, x[:8].sum(axis=0))
    jobs = [job for job, _ in helper.log]
    assert [j.job for j in jobs] == [0, 1, 2] and [j.last for j in jobs] == [False, False, True]
    assert [j.ids.to_numpy(dtype=np.int64).tolist() for j in jobs] == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11]]
    assert [bool(a.agg_share) for _, a in helper.log] == [False, False, True]  # one aggregate, at the end
    for pid in range(2, 12):
        np.testing.assert_array_equal(res.roles[pid].result.total, out.total)


def test_a_job_is_bounded_in_reports_and_bytes() -> None:
    o = params.Prio3Options()
    assert job_reports(build_vdaf(1582, 1, o)) == params.JOB_REPORTS  # Adult's pair cells: 1,024
    huge = build_vdaf(200_000, 1, msgspec.structs.replace(o, circuit="histogram", chunk_length=4000))
    k = job_reports(huge)  # verifier shares of ~190 KB: fewer reports, the job under JOB_BYTES
    assert 1 <= k < params.JOB_REPORTS
    assert k * (huge.flp.VERIFIER_LEN * huge.PROOFS * 8) <= params.JOB_BYTES


class _SilentAfter(Prio3Client):
    """A helper that serves ``served`` jobs, then crashes (answers nothing more)."""

    served = 1

    def _on_job(self, src: int, msg: Any) -> list[Send]:
        if msg.job >= self.served:
            return []
        return super()._on_job(src, msg)


@pytest.mark.usefixtures("jobs_of_4")
def test_a_helper_silent_at_a_later_job_is_named_by_the_next_deadline() -> None:
    x = _onehot(10, 5, 2)
    roles, _ = secure_sum_roles("prio3", x, run="silent-job")
    roles[1] = _SilentAfter(1, roles[1].pub, x[0])
    res = HarnessRunner()(roles)
    err = res.roles[0].error
    assert err is not None and err.culprits == (1,)
    assert "did not answer aggregation job 1 (of 3)" in str(err)
    for pid in range(2, 11):  # every client told by the leader, none timed out: its word, so
        e = res.roles[pid].error  # the leader or the helper (a client cannot check which)
        assert e is not None and e.culprits == () and e.suspects == ((0, 1),) and "the leader aborted" in str(e)


def test_a_client_waits_one_deadline_per_job_before_giving_up_on_the_leader(jobs_of_4: None) -> None:
    roles, _ = secure_sum_roles("prio3", _onehot(10, 5, 1), run="patience")
    assert [roles[p].patience for p in (1, 2, 10)] == [2 + 3] * 3  # 3 jobs of 4 reports


class _Repeating(Prio3Leader):
    """A leader that sends the helper its first job twice (the same reports, a second query)."""

    def _send_next(self) -> list[Send]:
        sends = super()._send_next()
        job = sends[0].msg
        assert isinstance(job, AggregationJob)
        if job.job == 1:
            return [Send(1, msgspec.structs.replace(job, ids=self.first_ids))]
        self.first_ids = job.ids
        return sends


@pytest.mark.usefixtures("jobs_of_4")
def test_a_leader_that_repeats_a_report_is_refused_by_the_helper() -> None:
    x = _onehot(9, 5, 3)
    roles, _ = secure_sum_roles("prio3", x, run="repeat")
    roles[0] = _Repeating(roles[0].pub)
    res = HarnessRunner()(roles)
    helper_errors = [str(e) for e in res.costs.parties[1].peer_errors]
    assert any("repeats a report" in e for e in helper_errors), helper_errors
    assert res.roles[0].error is not None and res.roles[0].error.culprits == (1,)


class _Misnumbering(Prio3Client):
    """A helper that labels its answer to job 0 as job 1."""

    def _on_job(self, src: int, msg: Any) -> list[Send]:
        [send] = super()._on_job(src, msg)
        assert isinstance(send.msg, JobResponse)
        return [Send(send.dst, msgspec.structs.replace(send.msg, job=send.msg.job + 1))]


@pytest.mark.usefixtures("jobs_of_4")
def test_an_answer_to_a_job_not_awaited_first_is_refused() -> None:
    x = _onehot(9, 5, 4)
    roles, _ = secure_sum_roles("prio3", x, run="order")
    roles[1] = _Misnumbering(1, roles[1].pub, x[0])
    res = HarnessRunner()(roles)
    leader_errors = [str(e) for e in res.costs.parties[0].peer_errors]
    assert any("not the oldest one awaited" in e for e in leader_errors), leader_errors
    assert res.roles[0].error is not None and res.roles[0].error.culprits == (1,)
