"""Prio3 as a secure-sum protocol: a leader and a helper aggregator check every report's proof.

How this protocol works (draft-irtf-cfrg-vdaf-20 over the draft's ping-pong topology):

1. the **helper** (data party 1, which also reports its own vector) sends its
   X25519 public key (:class:`HelperKey`) to the leader, which relays it to
   every other client (through the leader, so that inside an outer protocol
   the key reaches a client after the message that started its sum);
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
at the leader's deadline is a dropout (left out); a silent helper aborts the
run naming party 1.
"""

from __future__ import annotations

import enum
import functools
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
from mpc_rr.secure_sum._common import SumResult
from mpc_rr.secure_sum._crypto import (
    InvalidPublicKey,
    InvalidTag,
    agree,
    decrypt,
    encrypt,
    kdf_sha256,
    keypair,
)
from mpc_rr.secure_sum._entropy import Entropy, SystemEntropy
from mpc_rr.secure_sum.prio3._circuits import Histogram, MultihotCountVec, OneHotBlocks, SumVec
from mpc_rr.secure_sum.prio3._field import Field64, Field128, next_power_of_2
from mpc_rr.secure_sum.prio3._messages import (
    PRIO3_MESSAGES,
    AggregationJob,
    HelperKey,
    JobResponse,
    Prio3Total,
    Report,
)
from mpc_rr.secure_sum.prio3._spec import Prio3Options
from mpc_rr.secure_sum.prio3._vdaf import BATCH, Prio3, finish_report, verify_batches

__all__ = [
    "HELPER",
    "Prio3Client",
    "Prio3Leader",
    "Prio3Public",
    "Prio3Result",
    "build_vdaf",
    "default_chunk",
    "poison_vector",
    "public",
    "role",
    "seal_key",
]

HELPER = 1


@dataclass(frozen=True)
class Prio3Result(SumResult):
    """A :class:`SumResult` plus the clients whose reports were rejected."""

    rejected: tuple[int, ...] = ()


@dataclass(frozen=True)
class Prio3Public:
    """The public parameters of one run (every party builds the same)."""

    n: int
    cells: int
    run: str
    max_value: int
    options: Prio3Options

    @functools.cached_property
    def vdaf(self) -> Prio3:
        return build_vdaf(self.cells, self.max_value, self.options)

    @property
    def ctx(self) -> bytes:
        return b"mpc_rr prio3 " + self.run.encode()

    def as_json(self) -> dict[str, Any]:
        v = self.vdaf
        return {
            "modulus": None,
            "max_dropout": 0.0,
            "circuit": type(v.valid).__name__,
            "field": v.field.NAME,
            "proofs": v.PROOFS,
            "chunk_length": getattr(v.valid, "chunk_length", None),
            "helper": HELPER,
            "invalid": self.options.invalid,
            "report_bytes": report_bytes(v),
        }


def report_bytes(v: Prio3) -> int:
    """Bytes a client uploads: nonce, public share, leader share, sealed helper share, ephemeral key."""
    f = v.field.ENCODED_SIZE
    jr = 32 if v.uses_jr else 0
    leader = (v.flp.MEAS_LEN + v.flp.PROOF_LEN * v.PROOFS) * f + jr
    return 16 + jr * v.SHARES + leader + (32 + jr + 16) + 32


def default_chunk(meas_len: int) -> int:
    """The ParallelSum chunk that minimizes the FLP's work, ``(2 c + 2) * p`` with
    ``p = next_power_of_2(1 + ceil(meas_len / c))`` the wire polynomials' length (ties: the
    smaller ``p``).  The draft's ``~sqrt(meas_len)`` minimizes the proof's length instead;
    on Adult's 1,582 pair cells this choice (52, ``p = 32``) halves the prover's and the
    verifiers' CPU time against 39 (``p = 64``) for a proof 18% shorter."""

    def cost(c: int) -> tuple[int, int]:
        p = next_power_of_2(1 + -(-meas_len // c))
        return (2 * c + 2) * p, p

    return min(range(1, meas_len + 1), key=cost)


@functools.lru_cache(maxsize=32)
def build_vdaf(cells: int, max_value: int, o: Prio3Options) -> Prio3:
    """The Prio3 instance of a run: circuit, field and number of proofs from the options
    (memoized: the parties of a simulated run share one)."""
    field = Field64 if o.field == "field64" else Field128
    proofs = o.proofs if o.proofs is not None else (3 if field is Field64 else 1)
    circuit = o.circuit
    if circuit == "auto":
        circuit = "blocks" if o.blocks is not None else "sumvec"
    if circuit == "blocks" and (o.blocks is None or sum(o.blocks) != cells):
        got = "no blocks" if o.blocks is None else f"blocks of {sum(o.blocks)} cells"
        raise UsageError(f"prio3 --circuit blocks needs --blocks summing to the {cells} cells, got {got}")
    meas_len = {"sumvec": cells * max(1, max_value).bit_length(), "histogram": cells,
                "blocks": cells}.get(circuit, cells + 1)  # fmt: skip
    chunk = o.chunk_length if o.chunk_length is not None else default_chunk(meas_len)
    if circuit == "sumvec":
        valid: Any = SumVec(cells, max(1, max_value), chunk, field=field)
    elif circuit == "histogram":
        valid = Histogram(cells, chunk, field=field)
    elif circuit == "blocks":
        assert o.blocks is not None
        valid = OneHotBlocks(o.blocks, chunk, field=field)
    else:
        valid = MultihotCountVec(
            cells, o.max_weight if o.max_weight is not None else cells, chunk, field=field
        )
    if field is Field64 and proofs < 3:
        raise UsageError(
            "--field field64 needs --proofs >= 3 (draft Sec. 9.7: joint randomness over Field64)"
        )
    return Prio3(valid, shares=2, proofs=proofs)


def poison_vector(x: np.ndarray, vdaf: Prio3, boost: int = 1_000_000, cell: int = 0) -> Any:
    """A malicious client's *encoded* vector: its input's encoding with ``boost`` added to the
    first encoded element of ``cell`` (out of range for every circuit)."""
    if isinstance(vdaf.valid, OneHotBlocks):  # its encoding is the vector itself
        enc = vdaf.field.array(np.asarray(x, dtype=np.int64))
    else:
        enc = vdaf.valid.encode(_measurement(vdaf, x, strict=False))
    bits = getattr(vdaf.valid, "bits", 1)
    delta = [0] * vdaf.flp.MEAS_LEN
    delta[cell * bits] = boost
    return vdaf.field.add(enc, vdaf.field.array(delta))


def _measurement(vdaf: Prio3, x: np.ndarray, *, strict: bool = True) -> Any:
    valid = vdaf.valid
    if isinstance(valid, Histogram):
        hot = np.flatnonzero(x)
        if strict and (len(hot) != 1 or int(x[hot[0]]) != 1):
            raise UsageError(
                f"prio3 histogram: input must be one-hot, got {len(hot)} non-zero cells"
            )
        return int(hot[0]) if len(hot) else 0
    if isinstance(valid, OneHotBlocks):
        if strict:
            try:
                valid.encode(x)
            except ValueError as exc:
                raise UsageError(f"prio3 blocks: input must be one-hot in every block: {exc}") from None
        return x
    if isinstance(valid, MultihotCountVec):
        if strict and (int(x.max(initial=0)) > 1 or int(x.sum()) > valid.max_weight):
            raise UsageError(f"prio3 multihot: input must be 0/1 with weight <= {valid.max_weight}")
        return [bool(v) for v in x]
    return [int(v) for v in x]


def seal_key(shared: bytes, run: str, client: int) -> bytes:
    """The AES-GCM key sealing client ``client``'s helper share (SHA-256 one-step KDF of the X25519 secret)."""
    return kdf_sha256(
        shared, b"mpc_rr prio3 helper share|" + run.encode() + b"|" + str(client).encode()
    )


class ClientState(enum.Enum):
    WAIT_KEY = "waiting for the helper's key"
    WAIT_JOB = "helper: waiting for the leader's aggregation job"
    WAIT_TOTAL = "waiting for the total"
    DONE = "done"
    ABORTED = "aborted"


# A client waits for the helper's key, reports, then waits for the total.  The helper (party 1)
# reports at once, then serves the leader's aggregation job before it waits for the total.
CLIENT_TABLE = table(
    {
        (ClientState.WAIT_KEY, HelperKey): Transition("_on_key", ClientState.WAIT_TOTAL),
        (ClientState.WAIT_JOB, AggregationJob): Transition("_on_job", ClientState.WAIT_TOTAL),
        (ClientState.WAIT_TOTAL, Prio3Total): Transition("_on_total", ClientState.DONE),
    }
)


class Prio3Client(Role):
    """Data party ``i`` (party 1 is also the helper aggregator)."""

    TRANSITIONS = CLIENT_TABLE
    message_types = (HelperKey, AggregationJob, Prio3Total)
    patience = 3  # the leader may spend its own deadline waiting for slow clients

    def __init__(self, party_id: int, pub: Prio3Public, x: np.ndarray, *, entropy: Entropy | None = None,
                 poison: bool = False, encoded: Any = None) -> None:  # fmt: skip
        helper = party_id == HELPER
        super().__init__(party_id, ClientState.WAIT_JOB if helper else ClientState.WAIT_KEY)
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
            self._sk, self._pk = keypair(self.entropy)

    def start(self) -> list[Send]:
        if self.party_id != HELPER:
            return []
        return [
            Send(COORDINATOR, HelperKey(pk=self._pk, run=self.run, step=0)),
            self._report(self._pk),
        ]

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

    def _on_key(self, src: int, msg: HelperKey) -> list[Send]:
        if src != COORDINATOR:
            raise PeerError(
                f"{self.name}: HelperKey from party {src}, not relayed by the leader", src
            )
        try:
            return [self._report(msg.pk)]
        except InvalidPublicKey as exc:
            raise PeerError(f"{self.name}: the helper's key: {exc}", src) from None

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
        return broadcast(range(2, self.pub.n + 1), HelperKey(pk=msg.pk, run=self.run, step=0))

    def _on_report(self, src: int, msg: Report) -> list[Send]:
        if src not in self._missing:
            raise PeerError(f"{self.name}: unexpected or duplicate Report from party {src}", src)
        self._missing.discard(src)
        self._reports[src] = msg
        return []

    def _send_job(self) -> list[Send]:
        if HELPER in self._missing:
            self.abort(f"{self.name}: the helper (party {HELPER}) did not report", [HELPER])
            return []
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
                self.abort(f"{self.name}: the helper's decision on party {pid}'s report contradicts its "
                           f"verifier share", [HELPER])  # fmt: skip
                return []
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
            self.abort(
                f"{self.name}: the aggregate does not decode to counts (helper's share altered?)",
                [HELPER],
            )
            return []
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
    pub = Prio3Public(int(n), int(cells), str(run), int(max_value), o)
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
