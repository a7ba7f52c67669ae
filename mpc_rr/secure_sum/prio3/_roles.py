"""Prio3 as a secure-sum protocol: a leader and a helper aggregator check every report's proof.

How this protocol works (draft-irtf-cfrg-vdaf-20 over the draft's ping-pong topology):

1. the **helper**'s (data party 1, which also reports its own vector) X25519
   public key is **pinned** in the run's public parameters: a deployment
   gives it (``helper_key``; party 1 reads its private key from
   ``helper_secret``), a simulation pins a fresh one per run id in this
   process (:func:`pinned_helper_key`).  No party takes it from the leader's
   word: the helper still announces it (:class:`HelperKey`, relayed by the
   leader), and a client that is relayed another key aborts naming the
   leader (a substitution, caught; its report was sealed to the pinned key);
2. each client ``i`` encodes its vector (SumVec: every cell in ``[0,
   max_value]``; or Histogram: one-hot; or MultihotCountVec: 0/1 with weight
   ``<= max_weight``), shards it with a validity proof, and sends the **leader**
   (party 0) a :class:`Report`: the public share, the leader's input share,
   and the helper's input share sealed to the helper (X25519 + HKDF-style KDF
   + AES-GCM, so the leader, which relays it, cannot read it);
3. the leader verifies the reports in **aggregation jobs** of at most
   :func:`~mpc_rr.secure_sum.prio3.job_reports` reports (1,024 at most, and a
   few MiB): it runs ``verify_init`` on a job's reports (batched) and sends the
   helper that :class:`AggregationJob`: the verification key, the reports'
   helper parts and the leader's verifier shares.  Two jobs are in flight at a
   time, so with the helper in another process both aggregators work at once;
4. the helper opens its shares, runs ``verify_init``, combines both verifier
   shares, decides, runs ``verify_next`` on the accepted reports, adds their
   output shares to its running aggregate share and answers each job
   (:class:`JobResponse`) with its verifier shares and decisions; only the
   answer to the last job carries its aggregate share (one aggregate over all
   jobs, never one per job).  It serves jobs in order, with one verification
   key, and verifies a client's report once: a leader that repeats a report or
   a job is refused.  The leader decides each report on its own from the same
   verifier shares (a helper whose decisions differ is named and the run
   aborts), adds the two aggregate shares and sends every client the total
   (:class:`Prio3Total`).

A report that fails (malformed, unopenable, proof or joint randomness
rejected) is left out and its sender named in ``rejected``; the total is the
exact sum of the accepted reports.  Privacy: each aggregator alone sees one
additive share (uniform given the input); the leader and the helper together
recover every input -- it holds while one of them is honest.  A silent client
at the leader's deadline is a dropout (left out); a silent helper -- no report
by the leader's deadline, or no answer to an aggregation job by the next (a
deadline per bounded job: the leader's patience follows the work it asked
for) -- aborts the run naming party 1, and the leader tells every client why
(:class:`Prio3Abort`) instead of leaving them to time out.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.core import (
    COORDINATOR,
    NOBODY,
    ONLY_COORDINATOR,
    AllIn,
    Deadline,
    Message,
    PeerError,
    Role,
    Send,
    Transition,
    UsageError,
    WireArray,
    broadcast,
    table,
)
from mpc_rr.secure_sum._crypto import InvalidPublicKey, InvalidTag, agree, decrypt, encrypt, keypair
from mpc_rr.secure_sum._entropy import Entropy, SystemEntropy
from mpc_rr.secure_sum.prio3._messages import (
    PRIO3_MESSAGES,
    AggregationJob,
    HelperKey,
    JobResponse,
    Prio3Abort,
    Prio3Total,
    Report,
)
from mpc_rr.secure_sum.prio3._params import (
    HELPER,
    JOB_REPORTS,
    Prio3Public,
    Prio3Result,
    _measurement,
    helper_secret,
    pinned_helper_key,
    poison_vector,
    seal_key,
)
from mpc_rr.secure_sum.prio3._spec import Prio3Options
from mpc_rr.secure_sum.prio3._vdaf import BATCH, finish_report, verify_batches

__all__ = ["Prio3Client", "Prio3Leader", "coordinator_messages", "public", "role"]


class ClientState(enum.Enum):
    WAIT_JOB = "helper: waiting for the leader's aggregation job"
    WAIT_TOTAL = "waiting for the total"
    DONE = "done"
    ABORTED = "aborted"


# A client reports at once (sealed to the pinned helper key), then waits for the total; the
# relayed HelperKey is only checked against the pin.  The helper (party 1) also serves the
# leader's aggregation jobs, one after another, until the total.  Prio3Abort: the leader stopped
# the run and says who did it.
CLIENT_TABLE = table(
    {
        (ClientState.WAIT_TOTAL, HelperKey): Transition("_check_key", ClientState.WAIT_TOTAL),
        (ClientState.WAIT_JOB, AggregationJob): Transition("_on_job", ClientState.WAIT_JOB),
        (ClientState.WAIT_JOB, Prio3Total): Transition("_on_total", ClientState.DONE),
        (ClientState.WAIT_TOTAL, Prio3Total): Transition("_on_total", ClientState.DONE),
        (ClientState.WAIT_JOB, Prio3Abort): Transition("_on_abort", ClientState.ABORTED),
        (ClientState.WAIT_TOTAL, Prio3Abort): Transition("_on_abort", ClientState.ABORTED),
    }
)


class Prio3Client(Role):
    """Data party ``i`` (party 1 is also the helper aggregator)."""

    TRANSITIONS = CLIENT_TABLE
    message_types = (HelperKey, AggregationJob, Prio3Total, Prio3Abort)

    def __init__(self, party_id: int, pub: Prio3Public, x: np.ndarray, *, entropy: Entropy | None = None,
                 poison: bool = False, encoded: Any = None) -> None:  # fmt: skip
        helper = party_id == HELPER
        super().__init__(party_id, ClientState.WAIT_JOB if helper else ClientState.WAIT_TOTAL)
        self.pub, self.run = pub, pub.run
        self.entropy = entropy if entropy is not None else SystemEntropy()
        self.x = np.asarray(x, dtype=np.int64)
        vdaf = pub.vdaf
        if encoded is not None:  # a malicious client (the adversary module) submits any vector
            self.encoded = encoded
        elif poison:
            self.encoded = poison_vector(self.x, vdaf)
        else:
            self.encoded = vdaf.valid.encode(_measurement(vdaf, self.x))
        # the leader may spend a deadline waiting for slow clients, then one per aggregation job
        # waiting for the helper (and it tells every client when it aborts)
        self.patience = 2 + pub.jobs
        if helper:
            self._sk = helper_secret(pub)
            self._pk = self._sk.public_key().public_bytes_raw()
            self._next_job = 0
            self._vk = b""
            self._served: set[int] = set()  # clients whose report this helper verified
            self._agg = pub.vdaf.field.zeros(pub.vdaf.flp.OUTPUT_LEN)

    def start(self) -> list[Send]:
        report = self._report(self.pub.helper_pk)
        if self.party_id != HELPER:
            return [report]
        return [Send(COORDINATOR, HelperKey(pk=self._pk, run=self.run, step=0)), report]

    def waiting_for(self) -> AbstractSet[int]:
        if self.done:
            return NOBODY
        return ONLY_COORDINATOR

    def _report(self, helper_pk: bytes) -> Send:
        v, ent = self.pub.vdaf, self.entropy
        nonce = ent.randbytes(16)
        public_share, (leader, helper) = v.shard_encoded(
            self.pub.ctx, self.encoded, nonce, ent.randbytes(v.RAND_SIZE)
        )
        eph_sk, eph_pk = keypair(ent)
        key = seal_key(agree(eph_sk, helper_pk), self.run, self.party_id)
        sealed = encrypt(key, helper, nonce + public_share)
        msg = Report(nonce=nonce, public_share=public_share, leader_share=leader, eph_pk=eph_pk, sealed=sealed,
                     run=self.run, step=1)  # fmt: skip
        return Send(COORDINATOR, msg)

    def _check_key(self, src: int, msg: HelperKey) -> list[Send]:
        if src != COORDINATOR:
            raise PeerError(
                f"{self.name}: HelperKey from party {src}, not relayed by the leader", src
            )
        if msg.pk != self.pub.helper_pk:
            self.abort(f"{self.name}: the leader relayed a helper key that is not the pinned one "
                       f"(a substituted key; this client sealed its share to the pinned key)", [COORDINATOR])  # fmt: skip
        return []

    def _on_abort(self, src: int, msg: Prio3Abort) -> list[Send]:
        if src != COORDINATOR:
            raise PeerError(f"{self.name}: Prio3Abort from party {src}, not the leader", src)
        culprits = [int(c) for c in msg.culprits[:16] if isinstance(c, int)]
        self.abort(f"{self.name}: the leader aborted: {msg.reason[:500]}", culprits)
        return []

    def _on_job(self, src: int, msg: AggregationJob) -> list[Send]:
        if src != COORDINATOR:
            raise PeerError(f"{self.name}: AggregationJob from party {src}, not the leader", src)
        v, pub = self.pub.vdaf, self.pub
        if msg.job != self._next_job:
            raise PeerError(f"{self.name}: aggregation job {msg.job}, expected job {self._next_job}", src)
        if msg.job and msg.verify_key != self._vk:
            raise PeerError(f"{self.name}: aggregation job {msg.job} changed the verification key", src)
        ids = msg.ids.to_numpy(dtype=np.int64, sender=src)
        k = len(ids)
        if not all(
            len(lst) == k
            for lst in (msg.nonces, msg.public_shares, msg.eph_pks, msg.sealed, msg.leader_vshares)
        ):
            raise PeerError(f"{self.name}: AggregationJob lists of unequal length", src)
        id_list = [int(i) for i in ids]
        if k > pub.job_reports or len(set(id_list)) != k or not self._served.isdisjoint(id_list):
            # verifying a report twice (under another query) or a job beyond the bound: refused
            raise PeerError(f"{self.name}: aggregation job {msg.job} repeats a report or holds "
                            f"more than {pub.job_reports}", src)  # fmt: skip
        self._next_job += 1
        self._vk = msg.verify_key
        self._served.update(id_list)
        shares: list[bytes | None] = []
        for i in range(k):
            try:
                key = seal_key(agree(self._sk, msg.eph_pks[i]), self.run, id_list[i])
                shares.append(decrypt(key, msg.sealed[i], msg.nonces[i] + msg.public_shares[i]))
            except (InvalidPublicKey, InvalidTag):
                shares.append(None)
        states, vshares = verify_batches(
            v, msg.verify_key, pub.ctx, 1, msg.nonces, msg.public_shares, shares
        )
        accepted = np.zeros(k, np.uint8)
        outs = []
        for i in range(k):
            out = finish_report(v, pub.ctx, states[i], [msg.leader_vshares[i], vshares[i]], 1)
            if out is not None:
                accepted[i] = 1
                outs.append(out)
        if outs:
            self._agg = v.field.add(self._agg, v.aggregate(outs))
        agg = v.field.encode_vec(self._agg) if msg.last else b""
        resp = JobResponse(job=msg.job, helper_vshares=[s or b"" for s in vshares],
                           accepted=WireArray.from_numpy(accepted), agg_share=agg, run=self.run,
                           step=3)  # fmt: skip
        return [Send(COORDINATOR, resp)]

    def _on_total(self, src: int, msg: Prio3Total) -> list[Send]:
        if src != COORDINATOR:
            raise PeerError(f"{self.name}: Prio3Total from party {src}, not the leader", src)
        total = msg.total.to_numpy(dtype=np.int64, shape=(self.pub.cells,), sender=src)
        rejected = tuple(int(r) for r in msg.rejected.to_numpy(dtype=np.int64, sender=src))
        self.finish(Prio3Result(total, (), int(msg.n_included), 0, rejected))
        return []


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

    def __init__(self, pub: Prio3Public, *, entropy: Entropy | None = None) -> None:
        super().__init__(COORDINATOR, LeaderState.COLLECTING)
        self.pub, self.run = pub, pub.run
        self.entropy = entropy if entropy is not None else SystemEntropy()
        self._missing = set(range(1, pub.n + 1))
        self._reports: dict[int, Report] = {}
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
        self._reports[src] = msg
        return []

    def _start_jobs(self) -> list[Send]:
        if HELPER in self._missing:
            return self._fail(f"{self.name}: the helper (party {HELPER}) did not report by the "
                              f"deadline (a dropout): no report can be verified", [HELPER])  # fmt: skip
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
            run=self.run, step=2,
        )  # fmt: skip
        return [Send(HELPER, job)]

    def _on_response(self, src: int, msg: JobResponse) -> list[Send]:
        if src != HELPER:
            raise PeerError(f"{self.name}: JobResponse from party {src}, not the helper", src)
        job = self._pending.pop(msg.job, None) if msg.job == min(self._pending, default=-1) else None
        if job is None:
            raise PeerError(f"{self.name}: JobResponse for job {msg.job}, not the oldest one "
                            f"awaited ({min(self._pending, default=None)})", src)  # fmt: skip
        v, k = self.pub.vdaf, len(job.ids)
        if len(msg.helper_vshares) != k:
            self._pending[msg.job] = job
            raise PeerError(f"{self.name}: JobResponse {msg.job} has {len(msg.helper_vshares)} "
                            f"verifier shares, not {k}", src)  # fmt: skip
        flags = msg.accepted.to_numpy(dtype=np.uint8, shape=(k,), sender=src)
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

    def _finish_total(self, src: int, agg_share: bytes) -> list[Send]:
        """The last job's answer: add the helper's aggregate share, tell every client."""
        v, included, rejected = self.pub.vdaf, self._included, self._rejected
        try:
            helper_agg = v.field.decode_vec(agg_share)
        except ValueError as exc:
            raise PeerError(f"{self.name}: the helper's aggregate share: {exc}", src) from None
        if helper_agg.shape != (v.flp.OUTPUT_LEN,):
            raise PeerError(f"{self.name}: the helper's aggregate share has the wrong length", src)
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


# -- the sum family's view of this protocol ------------------------------------------------------


def public(
    n: int, cells: int, *, run: str, max_value: int = 1, options: Prio3Options | None = None
) -> Prio3Public:
    o = options if options is not None else Prio3Options()
    if n < 1 or cells < 1:
        raise UsageError(f"prio3: need n >= 1 clients and cells >= 1, got n={n}, cells={cells}")
    if o.invalid >= n:
        raise UsageError(
            f"prio3: --invalid {o.invalid} must leave the helper honest (at most n - 1 = {n - 1})"
        )
    pub = Prio3Public(int(n), int(cells), str(run), int(max_value), o, pinned_helper_key(str(run), o))
    _ = pub.vdaf  # validate the circuit parameters now
    return pub


def role(
    party_id: int, pub: Prio3Public, x: np.ndarray | None, *, entropy: Entropy | None = None
) -> Role:
    """The leader (party 0) or client ``party_id`` (party 1 also the helper); the last
    ``options.invalid`` clients submit out-of-range reports."""
    if party_id == COORDINATOR:
        return Prio3Leader(pub, entropy=entropy)
    if x is None:
        raise UsageError(f"prio3 client {party_id} needs an input vector")
    poison = party_id > pub.n - pub.options.invalid
    return Prio3Client(party_id, pub, x, entropy=entropy, poison=poison)


def messages() -> tuple[type[Message], ...]:
    return PRIO3_MESSAGES


def step_messages() -> Mapping[str, type[Message]]:
    return {"report": Report}


def message_count(n: int, options: Prio3Options | None = None) -> int:
    """Key (1, relayed to n - 1), reports (n), jobs and responses (2 per aggregation job of
    :data:`JOB_REPORTS` reports; more jobs only for a circuit whose verifier shares exceed
    ~8 KiB, :func:`job_reports`), totals (n)."""
    return 3 * n + 2 * -(-n // JOB_REPORTS)


def coordinator_messages(pub: Prio3Public) -> int:
    """What the leader receives without dropouts: the reports, the helper's key and its answer to
    each aggregation job."""
    return pub.n + 1 + pub.jobs


def memory_estimate(n: int, cells: int, options: Prio3Options | None = None) -> int:
    """Rough peak bytes: every report's leader share at the leader, a batch of Field128 objects."""
    return n * (cells * 2 * 16 + 2000) + BATCH * cells * 2 * 64
