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
   + AES-GCM, so the leader, which relays it, cannot read it), signed by the
   client (:func:`~mpc_rr.secure_sum.prio3.report_payload`; the leader leaves
   an unsigned report out and names its sender);
3. the leader verifies the reports in **aggregation jobs** of at most
   :func:`~mpc_rr.secure_sum.prio3.job_reports` reports (1,024 at most, and a
   few MiB): it runs ``verify_init`` on a job's reports (batched) and sends the
   helper that :class:`AggregationJob`: the verification key, the reports'
   helper parts and the leader's verifier shares.  Two jobs are in flight at a
   time, so with the helper in another process both aggregators work at once;
4. the helper checks every report's client signature (one its client did
   not sign: it releases nothing and names the leader), opens its shares,
   runs ``verify_init``, combines both verifier shares, decides, runs
   ``verify_next`` on the accepted reports, adds their output shares to its
   running aggregate share and answers each job (:class:`JobResponse`) with
   its verifier shares and decisions; only the answer to the last job carries
   its aggregate share (one aggregate over all jobs, never one per job), and
   only if at least the run's minimum batch of reports were accepted
   (:func:`~mpc_rr.secure_sum.prio3.default_min_batch`: a leader that leaves
   all but a target's report out learns nothing).  It serves jobs in order, with one verification
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
import hashlib
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from typing import Any

import numpy as np

from mpc_rr.core import (
    COORDINATOR,
    Message,
    PeerError,
    Role,
    Send,
    Transition,
    UsageError,
    WireArray,
    table,
)
from mpc_rr.core._roles import NOBODY, ONLY_COORDINATOR
from mpc_rr.secure_sum._crypto import InvalidPublicKey, InvalidTag, agree, decrypt, encrypt, keypair
from mpc_rr.secure_sum._entropy import Entropy, SystemEntropy
from mpc_rr.secure_sum._identity import Identity, default_identity
from mpc_rr.secure_sum.prio3._leader import Prio3Leader
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
    report_payload,
    seal_key,
)
from mpc_rr.secure_sum.prio3._spec import Prio3Options
from mpc_rr.secure_sum.prio3._vdaf import BATCH, finish_report, verify_batches

__all__ = ["Prio3Client", "coordinator_messages", "public", "role"]


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
                 poison: bool = False, encoded: Any = None, identity: Identity | None = None) -> None:  # fmt: skip
        helper = party_id == HELPER
        super().__init__(party_id, ClientState.WAIT_JOB if helper else ClientState.WAIT_TOTAL)
        self.pub, self.run = pub, pub.run
        self.entropy = entropy if entropy is not None else SystemEntropy()
        # signs the report (the helper also checks every relayed report against the roster)
        self.identity = identity if identity is not None else default_identity(party_id, pub.n)
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
            self._accepted = 0  # reports that passed verification, over every job
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
        digest = hashlib.sha256(leader).digest()
        signature = self.identity.sign(
            report_payload(self.run, self.party_id, nonce, public_share, digest, eph_pk, sealed)
        )
        msg = Report(nonce=nonce, public_share=public_share, leader_share=leader, eph_pk=eph_pk, sealed=sealed,
                     signature=signature, run=self.run, step=1)  # fmt: skip
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
        named = [c for c in msg.culprits[:16] if isinstance(c, int) and c != COORDINATOR]
        self.abort_on_word_of(COORDINATOR, f"{self.name}: the leader aborted: {msg.reason[:500]}", named)
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
            for lst in (msg.nonces, msg.public_shares, msg.eph_pks, msg.sealed, msg.leader_vshares,
                        msg.leader_digests, msg.signatures)
        ):  # fmt: skip
            raise PeerError(f"{self.name}: AggregationJob lists of unequal length", src)
        id_list = [int(i) for i in ids]
        if k > pub.job_reports or len(set(id_list)) != k or not self._served.isdisjoint(id_list):
            # verifying a report twice (under another query) or a job beyond the bound: refused
            raise PeerError(f"{self.name}: aggregation job {msg.job} repeats a report or holds "
                            f"more than {pub.job_reports}", src)  # fmt: skip
        if k and not (1 <= min(id_list) and max(id_list) <= pub.n):
            raise PeerError(f"{self.name}: aggregation job {msg.job} names a client outside 1..{pub.n}", src)
        forged = self._unsigned(id_list, msg)
        if forged is not None:
            return self._refuse(msg.job, f"the leader relayed a report that client {forged} did not sign "
                                         f"(made up, altered or from another run)", [COORDINATOR])  # fmt: skip
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
        self._accepted += len(outs)
        if msg.last and self._below_min_batch():
            return self._refuse(msg.job, f"only {self._accepted} reports passed verification, fewer than "
                                         f"the run's minimum batch of {pub.min_batch}", [])  # fmt: skip
        agg = v.field.encode_vec(self._agg) if msg.last else b""
        resp = JobResponse(job=msg.job, helper_vshares=[s or b"" for s in vshares],
                           accepted=WireArray.from_numpy(accepted), agg_share=agg, run=self.run,
                           step=3)  # fmt: skip
        return [Send(COORDINATOR, resp)]

    def _below_min_batch(self) -> bool:
        """Whether the reports accepted over every job are fewer than the run's minimum batch
        (the helper then releases nothing: a leader cannot isolate one report)."""
        return self._accepted < self.pub.min_batch

    def _unsigned(self, ids: list[int], msg: AggregationJob) -> int | None:
        """The first client of the job whose report does not carry its signature, else ``None``:
        a leader cannot fill a batch with reports it made up (DAP's Sybil caveat) or relay
        one from another run."""
        verify = self.identity.roster.verify
        for i, pid in enumerate(ids):
            payload = report_payload(self.run, pid, msg.nonces[i], msg.public_shares[i], msg.leader_digests[i],
                                     msg.eph_pks[i], msg.sealed[i])  # fmt: skip
            if not verify(pid, msg.signatures[i], payload):
                return pid
        return None

    def _refuse(self, job: int, why: str, culprits: list[int]) -> list[Send]:
        """Release nothing, say why to the leader, and stop (naming ``culprits``)."""
        reason = f"{self.name}: {why}: the helper releases no aggregate share"
        self.abort(reason, culprits)
        empty = WireArray.from_numpy(np.zeros(0, np.uint8))
        resp = JobResponse(job=job, helper_vshares=[], accepted=empty, agg_share=b"", refused=reason[:500],
                           run=self.run, step=3)  # fmt: skip
        return [Send(COORDINATOR, resp)]

    def _on_total(self, src: int, msg: Prio3Total) -> list[Send]:
        if src != COORDINATOR:
            raise PeerError(f"{self.name}: Prio3Total from party {src}, not the leader", src)
        total = msg.total.to_numpy(dtype=np.int64, shape=(self.pub.cells,), sender=src)
        rejected = tuple(int(r) for r in msg.rejected.to_numpy(dtype=np.int64, sender=src))
        self.finish(Prio3Result(total, (), int(msg.n_included), 0, rejected))
        return []


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
    if o.min_batch is not None and o.min_batch > n:
        raise UsageError(f"prio3: --min-batch {o.min_batch} is more than the {n} clients")
    pub = Prio3Public(int(n), int(cells), str(run), int(max_value), o, pinned_helper_key(str(run), o))
    if n - o.invalid < pub.min_batch:
        raise UsageError(f"prio3: --invalid {o.invalid} leaves {n - o.invalid} valid reports, fewer than the "
                         f"minimum batch of {pub.min_batch}: the helper would release nothing (lower --min-batch)")  # fmt: skip
    _ = pub.vdaf  # validate the circuit parameters now
    return pub


def role(
    party_id: int, pub: Prio3Public, x: np.ndarray | None, *, entropy: Entropy | None = None,
    identity: Identity | None = None,
) -> Role:  # fmt: skip
    """The leader (party 0) or client ``party_id`` (party 1 also the helper); the last
    ``options.invalid`` clients submit out-of-range reports (``identity``: its signing key
    and roster, default :func:`~mpc_rr.secure_sum.default_identity`)."""
    if party_id == COORDINATOR:
        return Prio3Leader(pub, entropy=entropy, identity=identity)
    if x is None:
        raise UsageError(f"prio3 client {party_id} needs an input vector")
    poison = party_id > pub.n - pub.options.invalid
    return Prio3Client(party_id, pub, x, entropy=entropy, poison=poison, identity=identity)


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
