"""Prio3's leader aggregator (party 0): collects signed reports, verifies them with the helper in
bounded aggregation jobs, sums (the protocol: :mod:`mpc_rr.secure_sum.prio3._roles`)."""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.core import (
    COORDINATOR,
    AllIn,
    Deadline,
    PeerError,
    Role,
    Send,
    Transition,
    WireArray,
    table,
)
from mpc_rr.core._roles import NOBODY, broadcast
from mpc_rr.secure_sum._entropy import Entropy, SystemEntropy
from mpc_rr.secure_sum._identity import Identity, default_identity
from mpc_rr.secure_sum.prio3._messages import (
    AggregationJob,
    HelperKey,
    JobResponse,
    Prio3Abort,
    Prio3Total,
    Report,
)
from mpc_rr.secure_sum.prio3._params import HELPER, Prio3Public, Prio3Result, report_payload
from mpc_rr.secure_sum.prio3._vdaf import finish_report, verify_batches

__all__ = ["Prio3Leader"]


class LeaderState(enum.Enum):
    COLLECTING = "collecting reports"
    VERIFYING = "waiting for the helper's verification"
    DONE = "done"
    ABORTED = "aborted"


# The leader collects reports; when all are in (or at its deadline, the silent ones dropped) it
# verifies them in bounded aggregation jobs, two in flight; each answer frees the next job, the
# answer to the last one finishes the run.  A deadline while verifying: a silent helper.
LEADER_TABLE = table(
    {
        (LeaderState.COLLECTING, HelperKey): Transition("_relay_key", LeaderState.COLLECTING),
        (LeaderState.COLLECTING, Report): Transition("_on_report", LeaderState.COLLECTING),
        (LeaderState.COLLECTING, AllIn): Transition("_start_jobs", LeaderState.VERIFYING),
        (LeaderState.COLLECTING, Deadline): Transition("_start_jobs", LeaderState.VERIFYING),
        (LeaderState.VERIFYING, JobResponse): Transition(
            "_on_response", LeaderState.VERIFYING, also=(LeaderState.DONE,)
        ),
        (LeaderState.VERIFYING, Deadline): Transition("_helper_silent", LeaderState.ABORTED),
    }
)

IN_FLIGHT = 2  # aggregation jobs sent and not yet answered: the helper never waits for the leader


@dataclass
class _Job:
    """A job the leader sent and awaits: its clients and the leader's verification of them."""

    ids: list[int]
    states: list[Any]
    vshares: list[bytes | None]


class Prio3Leader(Role):
    """The leader aggregator (party 0): collects reports, verifies them with the helper in
    bounded aggregation jobs, sums."""

    TRANSITIONS = LEADER_TABLE
    message_types = (HelperKey, Report, JobResponse)

    def __init__(self, pub: Prio3Public, *, entropy: Entropy | None = None,
                 identity: Identity | None = None) -> None:  # fmt: skip
        super().__init__(COORDINATOR, LeaderState.COLLECTING)
        self.pub, self.run = pub, pub.run
        self.entropy = entropy if entropy is not None else SystemEntropy()
        self.roster = (identity if identity is not None else default_identity(COORDINATOR, pub.n)).roster
        self._missing = set(range(1, pub.n + 1))
        self._reports: dict[int, Report] = {}
        self._digests: dict[int, bytes] = {}  # SHA-256 of each report's leader share (signed over)
        self._order: list[int] = []
        self._key_relayed = False
        self._jobs: list[list[int]] = []  # each job's clients, in order
        self._sent = 0  # jobs sent
        self._pending: dict[int, _Job] = {}  # job -> what the leader needs to finish it
        self._agg: Any = None  # the leader's aggregate share over the finished jobs
        self._included: list[int] = []
        self._rejected: list[int] = []

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> AbstractSet[int]:
        if self.done:
            return NOBODY
        return self._missing if self.state is LeaderState.COLLECTING else frozenset({HELPER})

    @property
    def culprits(self) -> tuple[int, ...]:
        """Clients left out for an invalid report (what an outer protocol names as rejected)."""
        return tuple(self._rejected)

    @property
    def dropped(self) -> tuple[int, ...]:
        """Clients silent at the leader's deadline (left out, once the jobs have started)."""
        return tuple(sorted(self._missing)) if self._jobs else ()

    def _relay_key(self, src: int, msg: HelperKey) -> list[Send]:
        if src != HELPER or self._key_relayed:
            raise PeerError(f"{self.name}: unexpected HelperKey from party {src}", src)
        self._key_relayed = True
        if msg.pk != self.pub.helper_pk:  # a helper without the pinned key cannot open a share
            return self._fail(f"{self.name}: the helper (party {HELPER}) announced a key that is "
                              f"not the pinned one (a deployment of one process per party must pin "
                              f"helper_key and give party 1 its helper_secret)", [HELPER])  # fmt: skip
        return broadcast(range(2, self.pub.n + 1), HelperKey(pk=msg.pk, run=self.run, step=0))

    def _fail(self, reason: str, culprits: list[int]) -> list[Send]:
        """Abort, and tell every client that reported (or could) why, naming the culprits."""
        self.abort(reason, culprits)
        note = Prio3Abort(reason=reason[:500], culprits=culprits, run=self.run, step=4)
        return broadcast([p for p in range(1, self.pub.n + 1) if p not in culprits], note)

    def _helper_silent(self) -> list[Send]:
        job = min(self._pending, default=0)
        return self._fail(f"{self.name}: the helper (party {HELPER}) did not answer aggregation "
                          f"job {job} (of {len(self._jobs)}) by its deadline", [HELPER])  # fmt: skip

    def _on_report(self, src: int, msg: Report) -> list[Send]:
        if src not in self._missing:
            raise PeerError(f"{self.name}: unexpected or duplicate Report from party {src}", src)
        self._missing.discard(src)
        digest = hashlib.sha256(msg.leader_share).digest()
        payload = report_payload(self.run, src, msg.nonce, msg.public_share, digest, msg.eph_pk, msg.sealed)
        if self.roster.verify(src, msg.signature, payload):
            self._reports[src], self._digests[src] = msg, digest
        else:  # left out and named, as an invalid proof is: the helper would refuse the job
            self._rejected.append(src)
        return []

    def _start_jobs(self) -> list[Send]:
        if HELPER in self._missing:
            return self._fail(f"{self.name}: the helper (party {HELPER}) did not report by the "
                              f"deadline (a dropout): no report can be verified", [HELPER])  # fmt: skip
        if len(self._reports) < self.pub.min_batch:
            return self._fail(f"{self.name}: {len(self._reports)} signed reports by the deadline, fewer than "
                              f"the run's minimum batch of {self.pub.min_batch}: no total over so few "
                              f"clients is released", [])  # fmt: skip
        return self._send_jobs()

    def _send_jobs(self) -> list[Send]:
        """Cut the collected reports into bounded jobs and send the first ones."""
        v, size = self.pub.vdaf, self.pub.job_reports
        self._order = sorted(self._reports)
        self._jobs = [self._order[lo : lo + size] for lo in range(0, len(self._order), size)]
        self._vk = self.entropy.randbytes(v.VERIFY_KEY_SIZE)
        self._agg = v.field.zeros(v.flp.OUTPUT_LEN)
        return [s for _ in range(min(IN_FLIGHT, len(self._jobs))) for s in self._send_next()]

    def _send_next(self) -> list[Send]:
        """Verify the next job's reports (the leader's half) and send the helper its half."""
        j = self._sent
        self._sent += 1
        ids, pub = self._jobs[j], self.pub
        reps = [self._reports[i] for i in ids]  # (kept: the leader's view, what a coalition pools)
        states, vshares = verify_batches(
            pub.vdaf, self._vk, pub.ctx, 0, [r.nonce for r in reps], [r.public_share for r in reps],
            [r.leader_share for r in reps],
        )  # fmt: skip
        self._pending[j] = _Job(ids, states, vshares)
        job = AggregationJob(
            job=j, last=j == len(self._jobs) - 1, verify_key=self._vk,
            ids=WireArray.from_numpy(np.asarray(ids, np.int64)), nonces=[r.nonce for r in reps],
            public_shares=[r.public_share for r in reps], eph_pks=[r.eph_pk for r in reps],
            sealed=[r.sealed for r in reps], leader_vshares=[s or b"" for s in vshares],
            leader_digests=[self._digests[i] for i in ids],
            signatures=[r.signature for r in reps], run=self.run, step=2,
        )  # fmt: skip
        return [Send(HELPER, job)]

    def _on_response(self, src: int, msg: JobResponse) -> list[Send]:
        if src != HELPER:
            raise PeerError(f"{self.name}: JobResponse from party {src}, not the helper", src)
        if msg.refused:  # the helper releases nothing (too few reports, or one it says is unsigned)
            return self._fail(f"{self.name}: the helper refused: {msg.refused[:400]}", [])
        # every check of the response before anything changes: a refused one leaves the job
        # awaited (a malformed array or aggregate share once dropped it for good)
        if msg.job != min(self._pending, default=-1):
            raise PeerError(f"{self.name}: JobResponse for job {msg.job}, not the oldest one "
                            f"awaited ({min(self._pending, default=None)})", src)  # fmt: skip
        job = self._pending[msg.job]
        v, k = self.pub.vdaf, len(job.ids)
        if len(msg.helper_vshares) != k:
            raise PeerError(f"{self.name}: JobResponse {msg.job} has {len(msg.helper_vshares)} "
                            f"verifier shares, not {k}", src)  # fmt: skip
        flags = msg.accepted.to_numpy(dtype=np.uint8, shape=(k,), sender=src)
        if msg.job == len(self._jobs) - 1:
            self._helper_aggregate(src, msg.agg_share)
        del self._pending[msg.job]
        outs = []
        for i, pid in enumerate(job.ids):
            out = finish_report(
                v, self.pub.ctx, job.states[i], [job.vshares[i], msg.helper_vshares[i]], 0
            )
            if (out is not None) != bool(flags[i]):
                return self._fail(f"{self.name}: the helper's decision on party {pid}'s report "
                                  f"contradicts its verifier share", [HELPER])  # fmt: skip
            if out is None:
                self._rejected.append(pid)
            else:
                outs.append(out)
                self._included.append(pid)
        if outs:
            self._agg = v.field.add(self._agg, v.aggregate(outs))
        if msg.job < len(self._jobs) - 1:
            return self._send_next() if self._sent < len(self._jobs) else []
        return self._finish_total(src, msg.agg_share)

    def _helper_aggregate(self, src: int, agg_share: bytes) -> np.ndarray:
        """The helper's aggregate share, decoded (a :class:`PeerError` naming it if malformed)."""
        v = self.pub.vdaf
        try:
            helper_agg = v.field.decode_vec(agg_share)
        except ValueError as exc:
            raise PeerError(f"{self.name}: the helper's aggregate share: {exc}", src) from None
        if helper_agg.shape != (v.flp.OUTPUT_LEN,):
            raise PeerError(f"{self.name}: the helper's aggregate share has the wrong length", src)
        out: np.ndarray = helper_agg
        return out

    def _finish_total(self, src: int, agg_share: bytes) -> list[Send]:
        """The last job's answer: add the helper's aggregate share, tell every client."""
        v, included, rejected = self.pub.vdaf, self._included, self._rejected
        helper_agg = self._helper_aggregate(src, agg_share)
        total = np.asarray(v.unshard([self._agg, helper_agg], len(included)), dtype=object)
        if total.size and (total.max() >= 2**62):
            return self._fail(
                f"{self.name}: the aggregate does not decode to counts (helper's share altered?)",
                [HELPER],
            )
        total64 = total.astype(np.int64)
        self.finish(Prio3Result(total64, tuple(included), len(included), 0, tuple(rejected)))
        done = Prio3Total(total=WireArray.from_numpy(total64), n_included=len(included),
                          rejected=WireArray.from_numpy(np.asarray(rejected, np.int64)), run=self.run, step=4)  # fmt: skip
        return broadcast(self._order, done)
