"""Prio3's run parameters: the public parameters, the circuit, the pinned helper key.

* :class:`Prio3Public` -- what every party of a run builds the same (the
  circuit from the options: :func:`build_vdaf`, memoized) and the helper's
  pinned X25519 key (:func:`pinned_helper_key`).
* :func:`poison_vector` -- a malicious client's out-of-range encoding (tests and
  the adversary module).
"""

from __future__ import annotations

import functools
import hashlib
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.secure_sum._common import SumResult
from mpc_rr.secure_sum._crypto import X25519PrivateKey, kdf_sha256
from mpc_rr.secure_sum._identity import signed_payload, simulation_secret
from mpc_rr.secure_sum._trust import DEFAULT_MAX_CORRUPT, SumTrust, colluders_in
from mpc_rr.secure_sum.prio3._circuits import (
    AtMostOneBlocks,
    Histogram,
    MultihotCountVec,
    OneHotBlocks,
    SumVec,
)
from mpc_rr.secure_sum.prio3._field import Field64, next_power_of_2
from mpc_rr.secure_sum.prio3._field128 import Field128
from mpc_rr.secure_sum.prio3._spec import Prio3Options
from mpc_rr.secure_sum.prio3._vdaf import Prio3

__all__ = [
    "HELPER",
    "Prio3Public",
    "Prio3Result",
    "build_vdaf",
    "default_chunk",
    "default_min_batch",
    "deployment_keys",
    "helper_secret",
    "input_validity",
    "job_reports",
    "pinned_helper_key",
    "poison_vector",
    "report_bytes",
    "report_payload",
    "seal_key",
    "trust",
]

HELPER = 1
JOB_REPORTS = 1024  # reports per aggregation job at most (a few seconds of a helper's CPU)
JOB_BYTES = 8 << 20  # and at most this many bytes of job (frames stay far below DEFAULT_MAX_FRAME)


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
    helper_pk: bytes = b""  # the pinned key (public()): clients seal the helper's shares to it

    @functools.cached_property
    def vdaf(self) -> Prio3:
        return build_vdaf(self.cells, self.max_value, self.options)

    @property
    def ctx(self) -> bytes:
        return b"mpc_rr prio3 " + self.run.encode()

    @property
    def job_reports(self) -> int:
        """Reports per aggregation job (:func:`job_reports`)."""
        return job_reports(self.vdaf)

    @property
    def min_batch(self) -> int:
        """Fewest accepted reports the helper releases its aggregate share over
        (:func:`default_min_batch` unless the options set it)."""
        return self.options.min_batch if self.options.min_batch is not None else default_min_batch(self.n)

    @property
    def jobs(self) -> int:
        """Aggregation jobs of a run in which every client reports."""
        return -(-self.n // self.job_reports)

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
            "helper_key": self.helper_pk.hex(),
            "helper_key_pinned_by": "deployment" if self.options.helper_key else "simulation",
            "invalid": self.options.invalid,
            "report_bytes": report_bytes(v),
            "min_batch": self.min_batch,
            "job_reports": self.job_reports,
            "jobs": self.jobs,
        }


def default_min_batch(n: int) -> int:
    """The default minimum batch of a run of ``n`` clients: ``max(2, ceil(n / 2))``, at most ``n``.

    DAP (draft-ietf-ppm-dap, Sec. 4.1, ``min_batch_size``) has the helper refuse to
    release an aggregate over fewer reports than a task's minimum, so a leader cannot
    learn one client's input by leaving every other report out; with unsigned reports
    the leader can still fill the batch with reports it made up (DAP's Sybil caveat).
    Our reports are signed by their clients (:func:`report_payload`), so the batch is at
    least this many *distinct roster clients* whose reports passed verification: a
    leader colluding with ``c`` clients learns a sum over at least ``min_batch - c``
    honest inputs.  Half the clients by default: a run survives many dropouts, and no
    leader can shrink the sum to a few parties.
    """
    if n < 1:
        raise UsageError(f"prio3: need n >= 1 clients, got {n}")
    return min(n, max(2, math.ceil(n / 2)))


def report_payload(run: str, client: int, nonce: bytes, public_share: bytes, leader_digest: bytes,
                   eph_pk: bytes, sealed: bytes) -> bytes:  # fmt: skip
    """What client ``client`` signs of its report: the run, the round ``report``, its id, and
    every part of the report, the leader's share by its SHA-256 digest (``leader_digest``:
    the helper, which checks the signature too, never sees that share)."""
    return signed_payload("prio3", run, "report", client, nonce, public_share, leader_digest, eph_pk, sealed)


def report_bytes(v: Prio3) -> int:
    """Bytes a client uploads: nonce, public share, leader share, sealed helper share, ephemeral
    key and its signature (64 bytes: Ed25519, or ECDSA P-256 as ``r || s``)."""
    f = v.field.ENCODED_SIZE
    jr = 32 if v.uses_jr else 0
    leader = (v.flp.MEAS_LEN + v.flp.PROOF_LEN * v.PROOFS) * f + jr
    return 16 + jr * v.SHARES + leader + (32 + jr + 16) + 32 + 64


def job_reports(v: Prio3) -> int:
    """Reports per aggregation job: :data:`JOB_REPORTS`, fewer when a report's part of the job
    (its helper parts and the leader's verifier share) would make the job exceed
    :data:`JOB_BYTES`.

    One job for all reports made the work the leader waits for -- and the job's
    frame -- grow with the number of clients: on all of Adult (32,561 reports
    of 1,582 cells) an 86 MiB job, over the codec's 64 MiB frame bound, and
    minutes of the helper's CPU against a step deadline.  Bounded jobs keep
    both constant, so a deadline per job names a silent helper fast at any n.
    """
    f = v.field.ENCODED_SIZE
    jr = 32 if v.uses_jr else 0
    vshare = v.flp.VERIFIER_LEN * v.PROOFS * f + jr
    per = 16 + jr * v.SHARES + 32 + (32 + jr + 16) + vshare + 32 + 64 + 64  # digest, signature, framing
    return max(1, min(JOB_REPORTS, JOB_BYTES // per))


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
    blocks = tuple(int(b) for b in o.blocks.split(",")) if isinstance(o.blocks, str) else o.blocks
    if circuit == "auto":  # callers whose inputs are one-hot say so (for_one_hot_blocks)
        circuit = "blocks" if o.blocks is not None else "sumvec"
    if circuit in ("blocks", "blocks-or-empty") and (blocks is None or sum(blocks) != cells):
        got = "no blocks" if blocks is None else f"blocks of {sum(blocks)} cells"
        raise UsageError(f"prio3 --circuit {circuit} needs --blocks summing to the {cells} cells, got {got}")
    meas_len = {"sumvec": cells * max(1, max_value).bit_length(), "histogram": cells, "blocks": cells,
                "blocks-or-empty": cells + len(blocks or ())}.get(circuit, cells + 1)  # fmt: skip
    chunk = o.chunk_length if o.chunk_length is not None else default_chunk(meas_len)
    if circuit == "sumvec":
        valid: Any = SumVec(cells, max(1, max_value), chunk, field=field)
    elif circuit == "histogram":
        valid = Histogram(cells, chunk, field=field)
    elif circuit == "blocks":
        assert blocks is not None
        valid = OneHotBlocks(blocks, chunk, field=field)
    elif circuit == "blocks-or-empty":
        assert blocks is not None
        valid = AtMostOneBlocks(blocks, chunk, field=field)
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
    if isinstance(vdaf.valid, OneHotBlocks):  # the vector itself (and the blocks' slack cells)
        enc = vdaf.valid.encode_unchecked(np.asarray(x, dtype=np.int64))
    else:
        enc = vdaf.valid.encode(_measurement(vdaf, x, strict=False))
    bits = getattr(vdaf.valid, "bits", 1)
    delta = [0] * vdaf.flp.MEAS_LEN
    at = vdaf.valid.encoded_index(cell) if isinstance(vdaf.valid, OneHotBlocks) else cell * bits
    delta[at] = boost
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
                raise UsageError(f"prio3 {type(valid).__name__}: invalid input: {exc}") from None
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


_HELPER_DOMAIN = b"mpc_rr/simulated-prio3-helper/v1/"


def _simulated_helper(run: str) -> X25519PrivateKey:
    """A simulated run's helper key: SHAKE-256 of the simulation's secret and the run id."""
    seed = hashlib.shake_256(_HELPER_DOMAIN + simulation_secret() + run.encode()).digest(32)
    return X25519PrivateKey.from_private_bytes(seed)


def pinned_helper_key(run: str, o: Prio3Options) -> bytes:
    """The helper's X25519 public key every party of run ``run`` seals to.

    A deployment pins it (``helper_key``, hex).  A simulation derives it from
    the simulated PKI's secret (:func:`~mpc_rr.secure_sum.simulation_secret`:
    32 bytes of the OS CSPRNG, handed by the runners to every worker process
    they start) and the run id, so every party built for the run, in whichever
    worker, reads the same key and the helper its private half.  (A key drawn
    per process instead left a sharded run's other shards sealing to keys the
    helper could not open: half of a 2-worker run rejected.)  Either way no
    party learns it from a peer.
    """
    if o.helper_key is not None:
        return bytes.fromhex(o.helper_key)
    return _simulated_helper(run).public_key().public_bytes_raw()


HELPER_SECRET_FILE = "prio3-helper.key"


def deployment_keys(directory: Path) -> dict[str, Any]:
    """A deployment's prio3 keys (:meth:`Prio3Protocol.deployment_keys`, ``mpc-rr keys init``): the
    helper's X25519 key pair, its private half written to ``directory/prio3-helper.key`` (32
    raw bytes, mode 0600; copy it to party 1 only) and its public half pinned in the
    parameters every party runs with (``helper_key``)."""
    sk = X25519PrivateKey.generate()
    path = Path(directory) / HELPER_SECRET_FILE
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(sk.private_bytes_raw())
    return {
        "params": {"helper_key": sk.public_key().public_bytes_raw().hex(), "helper_secret": HELPER_SECRET_FILE},
        "files": ["helper_secret"],  # paths relative to the deployment's folder
        "note": f"copy {HELPER_SECRET_FILE} only to party {HELPER} (prio3's helper aggregator)",
    }


def helper_secret(pub: Prio3Public) -> X25519PrivateKey:
    """The helper's private key: the deployment's file, or the simulation's record."""
    o = pub.options
    if o.helper_key is None:
        sk = _simulated_helper(pub.run)
        if sk.public_key().public_bytes_raw() != pub.helper_pk:
            raise UsageError(f"prio3 run {pub.run!r}: this process's simulated helper key is not the "
                             f"run's (another simulation secret; a deployment must pin helper_key and "
                             f"give party 1 helper_secret)")  # fmt: skip
        return sk
    if o.helper_secret is None:
        raise UsageError("prio3: party 1 (the helper) needs helper_secret, the path of its private key")
    try:
        raw = Path(o.helper_secret).read_bytes()
    except OSError as exc:
        raise UsageError(f"prio3: cannot read helper_secret {o.helper_secret}: {exc.strerror or exc}") from None
    if len(raw) != 32:
        raise UsageError(f"prio3: helper_secret {o.helper_secret}: expected 32 raw bytes, got {len(raw)}")
    sk = X25519PrivateKey.from_private_bytes(raw)
    if sk.public_key().public_bytes_raw() != pub.helper_pk:
        raise UsageError(f"prio3: helper_secret {o.helper_secret} does not match the pinned helper_key")
    return sk




def trust(options: Prio3Options, n: int, max_corrupt: float | None = None) -> SumTrust:
    """Prio3's coalition (draft-irtf-cfrg-vdaf Sec. 1: privacy while one aggregator is honest):
    the leader and the helper must not collude; clients colluding with the leader are bounded
    by the minimum batch -- with ``min_batch - 1`` reports of its own the leader fills a batch
    around one target's report (:func:`default_min_batch`), so at most ``min_batch - 2``.
    ``max_corrupt`` (default :data:`~mpc_rr.secure_sum.DEFAULT_MAX_CORRUPT`): the colluding
    fraction of clients assumed."""
    f = DEFAULT_MAX_CORRUPT if max_corrupt is None else float(max_corrupt)
    batch = min(int(n), options.min_batch) if options.min_batch is not None else default_min_batch(int(n))
    bound = max(0, batch - 2)
    return SumTrust(
        "prio3", int(n), f, colluders_in(f, n), bound,
        f"the leader and the helper do not collude, and the leader colludes with at most "
        f"min_batch - 2 = {bound} clients",
        f"prio3 channel: hides senders only if the two aggregators do not collude and the leader "
        f"does not collude with more than min_batch - 2 = {bound} clients (with more it can fill "
        "a batch around one target's report)",
    )  # fmt: skip


def input_validity(pub: Prio3Public) -> str:
    """What the run's validity circuit proves of each input (rejected otherwise, sender named)."""
    valid = pub.vdaf.valid
    named = "; a report that fails is rejected and its client named"
    if isinstance(valid, OneHotBlocks):
        k = len(valid.blocks)
        blocks = "its block" if k == 1 else f"each of its {k} blocks"
        if isinstance(valid, AtMostOneBlocks):  # (a subclass of OneHotBlocks)
            return f"at most one 1 in {blocks}, proved{named}"
        return f"one-hot in {blocks}, proved{named}"
    if isinstance(valid, Histogram):
        return f"one-hot (a single 1 among {pub.cells} cells), proved{named}"
    if isinstance(valid, MultihotCountVec):
        return f"0/1 cells with at most {valid.max_weight} ones, proved{named}"
    bound = getattr(valid, "max_measurement", "max")  # SumVec
    return (f"each cell in [0, {bound}], proved{named}; a client can still add up to {bound} to "
            "every count (not one-hot)")  # fmt: skip
