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
3. the leader runs ``verify_init`` on every report (batched) and sends the
   helper one :class:`AggregationJob`: the verification key, the reports'
   helper parts and the leader's verifier shares;
4. the helper opens its shares, runs ``verify_init``, combines both verifier
   shares, decides, runs ``verify_next`` on the accepted reports and answers
   (:class:`JobResponse`) with its verifier shares, decisions and aggregate
   share; the leader decides on its own from the same verifier shares (a
   helper whose decisions differ is named and the run aborts), adds the two
   aggregate shares and sends every client the total (:class:`Prio3Total`).

A report that fails (malformed, unopenable, proof or joint randomness
rejected) is left out and its sender named in ``rejected``; the total is the
exact sum of the accepted reports.  Privacy: each aggregator alone sees one
additive share (uniform given the input); the leader and the helper together
recover every input -- it holds while one of them is honest.  A silent client
at the leader's deadline is a dropout (left out); a silent helper -- no report
by the leader's deadline, or no answer to the aggregation job by the next --
aborts the run naming party 1, and the leader tells every client why
(:class:`Prio3Abort`) instead of leaving them to time out.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
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

__all__ = ["Prio3Client", "Prio3Leader", "public", "role"]


class ClientState(enum.Enum):
    WAIT_JOB = "helper: waiting for the leader's aggregation job"
    WAIT_TOTAL = "waiting for the total"
    DONE = "done"
    ABORTED = "aborted"


# A client reports at once (sealed to the pinned helper key), then waits for the total; the
# relayed HelperKey is only checked against the pin.  The helper (party 1) also serves the
# leader's aggregation job first.  Prio3Abort: the leader stopped the run and says who did it.
CLIENT_TABLE = table(
    {
        (ClientState.WAIT_TOTAL, HelperKey): Transition("_check_key", ClientState.WAIT_TOTAL),
        (ClientState.WAIT_JOB, AggregationJob): Transition("_on_job", ClientState.WAIT_TOTAL),
        (ClientState.WAIT_TOTAL, Prio3Total): Transition("_on_total", ClientState.DONE),
        (ClientState.WAIT_JOB, Prio3Abort): Transition("_on_abort", ClientState.ABORTED),
        (ClientState.WAIT_TOTAL, Prio3Abort): Transition("_on_abort", ClientState.ABORTED),
    }
)


class Prio3Client(Role):
    """Data party ``i`` (party 1 is also the helper aggregator)."""

    TRANSITIONS = CLIENT_TABLE
    message_types = (HelperKey, AggregationJob, Prio3Total, Prio3Abort)
    patience = 3  # the leader may spend its own deadline waiting for slow clients

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
        if helper:
            self._sk = helper_secret(pub)
            self._pk = self._sk.public_key().public_bytes_raw()

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
        ids = msg.ids.to_numpy(dtype=np.int64, sender=src)
        k = len(ids)
        if not all(
            len(lst) == k
            for lst in (msg.nonces, msg.public_shares, msg.eph_pks, msg.sealed, msg.leader_vshares)
        ):
            raise PeerError(f"{self.name}: AggregationJob lists of unequal length", src)
        shares: list[bytes | None] = []
        for i in range(k):
            try:
                key = seal_key(agree(self._sk, msg.eph_pks[i]), self.run, int(ids[i]))
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
        agg = v.field.encode_vec(v.aggregate(outs))
        resp = JobResponse(helper_vshares=[s or b"" for s in vshares], accepted=WireArray.from_numpy(accepted),
                           agg_share=agg, run=self.run, step=3)  # fmt: skip
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
# verifies them and sends the helper the aggregation job; the helper's answer finishes the run.
LEADER_TABLE = table(
    {
        (LeaderState.COLLECTING, HelperKey): Transition("_relay_key", LeaderState.COLLECTING),
        (LeaderState.COLLECTING, Report): Transition("_on_report", LeaderState.COLLECTING),
        (LeaderState.COLLECTING, AllIn): Transition("_send_job", LeaderState.VERIFYING),
        (LeaderState.COLLECTING, Deadline): Transition("_send_job", LeaderState.VERIFYING),
        (LeaderState.VERIFYING, JobResponse): Transition("_on_response", LeaderState.DONE),
        (LeaderState.VERIFYING, Deadline): Transition("_helper_silent", LeaderState.ABORTED),
    }
)


class Prio3Leader(Role):
    """The leader aggregator (party 0): collects reports, verifies with the helper, sums."""

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

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> AbstractSet[int]:
        if self.done:
            return NOBODY
        return self._missing if self.state is LeaderState.COLLECTING else frozenset({HELPER})

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
        return self._fail(f"{self.name}: the helper (party {HELPER}) did not answer the "
                          f"aggregation job", [HELPER])  # fmt: skip

    def _on_report(self, src: int, msg: Report) -> list[Send]:
        if src not in self._missing:
            raise PeerError(f"{self.name}: unexpected or duplicate Report from party {src}", src)
        self._missing.discard(src)
        self._reports[src] = msg
        return []

    def _send_job(self) -> list[Send]:
        if HELPER in self._missing:
            return self._fail(f"{self.name}: the helper (party {HELPER}) did not report by the "
                              f"deadline (a dropout): no report can be verified", [HELPER])  # fmt: skip
        v, pub = self.pub.vdaf, self.pub
        self._order = sorted(self._reports)
        reps = [self._reports[i] for i in self._order]
        self._vk = self.entropy.randbytes(v.VERIFY_KEY_SIZE)
        self._states, self._vshares = verify_batches(
            v, self._vk, pub.ctx, 0, [r.nonce for r in reps], [r.public_share for r in reps],
            [r.leader_share for r in reps],
        )  # fmt: skip
        job = AggregationJob(
            verify_key=self._vk, ids=WireArray.from_numpy(np.asarray(self._order, np.int64)),
            nonces=[r.nonce for r in reps], public_shares=[r.public_share for r in reps],
            eph_pks=[r.eph_pk for r in reps], sealed=[r.sealed for r in reps],
            leader_vshares=[s or b"" for s in self._vshares], run=self.run, step=2,
        )  # fmt: skip
        return [Send(HELPER, job)]

    def _on_response(self, src: int, msg: JobResponse) -> list[Send]:
        if src != HELPER:
            raise PeerError(f"{self.name}: JobResponse from party {src}, not the helper", src)
        v, k = self.pub.vdaf, len(self._order)
        flags = msg.accepted.to_numpy(dtype=np.uint8, shape=(k,), sender=src)
        if len(msg.helper_vshares) != k:
            raise PeerError(
                f"{self.name}: JobResponse has {len(msg.helper_vshares)} verifier shares, not {k}",
                src,
            )
        outs, included, rejected = [], [], []
        for i, pid in enumerate(self._order):
            out = finish_report(
                v, self.pub.ctx, self._states[i], [self._vshares[i], msg.helper_vshares[i]], 0
            )
            if (out is not None) != bool(flags[i]):
                return self._fail(f"{self.name}: the helper's decision on party {pid}'s report "
                                  f"contradicts its verifier share", [HELPER])  # fmt: skip
            if out is None:
                rejected.append(pid)
            else:
                outs.append(out)
                included.append(pid)
        try:
            helper_agg = v.field.decode_vec(msg.agg_share)
        except ValueError as exc:
            raise PeerError(f"{self.name}: the helper's aggregate share: {exc}", src) from None
        if helper_agg.shape != (v.flp.OUTPUT_LEN,):
            raise PeerError(f"{self.name}: the helper's aggregate share has the wrong length", src)
        total = np.asarray(v.unshard([v.aggregate(outs), helper_agg], len(outs)), dtype=object)
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
    """Key (1, relayed to n - 1), reports (n), job and response (2), totals (n)."""
    return 3 * n + 2


def memory_estimate(n: int, cells: int, options: Prio3Options | None = None) -> int:
    """Rough peak bytes: every report's leader share at the leader, a batch of Field128 objects."""
    return n * (cells * 2 * 16 + 2000) + BATCH * cells * 2 * 64
