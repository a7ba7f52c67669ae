"""Messages of SecAgg+ (:mod:`mpc_rr.secure_sum.secagg._roles`), one per step and direction."""

from __future__ import annotations

import hashlib
from typing import Annotated

import msgspec
import numpy as np

from mpc_rr.core import DecodeError, Message, WireArray
from mpc_rr.secure_sum import _shamir as shamir

__all__ = [
    "CIPHERTEXT_LEN",
    "COMMITMENT_LEN",
    "IDS",
    "MAX_RETRIES",
    "PROTOCOL",
    "SECAGG_MESSAGES",
    "SHARE",
    "SHARE_ROW",
    "AdvertiseKeys",
    "Aggregate",
    "CommittedForwardedShares",
    "CommittedShares",
    "ConsistencySig",
    "DrawCommitted",
    "DrawReveal",
    "EncryptedShares",
    "ForwardedShares",
    "MaskedInput",
    "NeighborKeys",
    "SecAggAbort",
    "SecAggRestart",
    "ShareComplaint",
    "ShareProofs",
    "SurvivorSet",
    "UnmaskRequest",
    "UnmaskShares",
    "bitmap",
    "read_bitmap",
    "read_ids",
    "retry_label",
    "share_batch",
    "share_commitment",
    "share_commitments",
    "share_digest",
    "wire",
]


PROTOCOL = "secagg"
"""The protocol name every SecAgg+ signature is bound to."""

IDS = np.dtype("<u4")
SHARE = np.dtype("<u4")
_PLAIN_LEN = 2 * shamir.CHUNKS * SHARE.itemsize  # shares of s_sk and of b
CIPHERTEXT_LEN = _PLAIN_LEN + 16  # AES-GCM tag


def wire(a: np.ndarray, dtype: np.dtype | str | type) -> WireArray:
    """``a`` as a contiguous wire array of ``dtype``."""
    return WireArray.from_numpy(np.ascontiguousarray(a, dtype=dtype))


def read_ids(w: WireArray, sender: int, what: str, *, at_most: int) -> np.ndarray:
    """A 1-D array of party ids (uint32 on the wire) of at most ``at_most`` entries."""
    if len(w.shape) != 1:
        raise DecodeError(f"{what} from party {sender}: ids must be 1-D, got shape {w.shape}", sender)
    if w.shape[0] > at_most:
        raise DecodeError(
            f"{what} from party {sender}: {w.shape[0]} ids, at most {at_most} expected", sender
        )
    return w.to_numpy(dtype=IDS, sender=sender).astype(np.int64)



MAX_SIGNATURE = 80
"""Longest signature accepted: :meth:`~mpc_rr.secure_sum.Identity.sign` gives 64 bytes (Ed25519,
or ECDSA P-256 as ``r || s``); a verifier refuses any other length."""

Signature = Annotated[bytes, msgspec.Meta(max_length=MAX_SIGNATURE)]
Signatures = Annotated[list[Signature], msgspec.Meta(max_length=1 << 24)]


class AdvertiseKeys(Message, frozen=True):
    """Step 0, party -> aggregator: public keys, a commitment to the self-mask seed and a
    commitment to the party's contribution to the run's public randomness
    (:func:`~mpc_rr.secure_sum._public_randomness.commitment`), signed with the party's
    long-term key (:func:`~mpc_rr.secure_sum.signed_payload`, round ``keys``: the run id,
    the sender and the four fields)."""

    c_pk: bytes
    s_pk: bytes
    b_commit: bytes
    draw_commit: bytes
    signature: Signature = b""


class DrawCommitted(Message, frozen=True):
    """Step 0 (the draw), aggregator -> every party that advertised keys: the digest ``D``
    of the committed parties and their draw commitments
    (:func:`~mpc_rr.secure_sum._public_randomness.commitments_digest`), fixed before
    anyone reveals."""

    digest: bytes


class DrawReveal(Message, frozen=True):
    """Step 0 (the draw), party -> aggregator: its contribution ``r`` (which opens its
    signed commitment) and its signature (round ``draw``) on the digest ``D`` it was
    shown -- its neighbours check it (:class:`NeighborKeys`), so a relay that shows two
    parties different sets is caught."""

    reveal: bytes
    signature: Signature = b""


class NeighborKeys(Message, frozen=True):
    """Step 0, aggregator -> party, after the draw: every reveal (the party derives the
    seed, hence the graph and the committee), then its live neighbours in that graph and
    their public keys."""

    ids: WireArray
    c_pks: WireArray
    s_pks: WireArray
    commits: WireArray | None = None
    """``(m, 32)``: each neighbour's seed commitment (its signature covers it)."""
    signatures: Signatures = msgspec.field(default_factory=list)
    """Each neighbour's signature on its AdvertiseKeys, as the aggregator received it."""
    draw_commits: WireArray | None = None
    """``(m, 32)``: each neighbour's draw commitment (its signature covers it)."""
    contributors: bytes = b""
    """The parties committed in the draw: a bitmap over ids ``0..n`` (:func:`bitmap`)."""
    reveals: bytes = b""
    """32 bytes per revealer (:func:`~mpc_rr.secure_sum._public_randomness.revealers` of the
    contributors), in id order: their contributions."""
    revealer_keys: bytes = b""
    """When not every contributor reveals: 96 bytes per revealer (``c_pk || s_pk ||
    b_commit``), with which its signature proves its draw commitment."""
    revealer_signatures: Signatures = msgspec.field(default_factory=list)
    """Then each revealer's signature on its AdvertiseKeys."""
    draw_signatures: Signatures = msgspec.field(default_factory=list)
    """Each neighbour's signature (round ``draw``) on the digest ``D``, aligned with ``ids``."""


class EncryptedShares(Message, frozen=True):
    """Step 1, party -> aggregator: one ciphertext per live neighbour, and one signature
    (round ``shares``) on the RFC 6962 tree hash of the items ``recipient (uint32) ||
    ciphertext`` in recipient order: any recipient can prove what the sender sent it."""

    recipients: WireArray
    ciphertexts: WireArray
    signature: Signature = b""


class CommittedShares(EncryptedShares, frozen=True, kw_only=True):
    """Step 1 of a retried run (verifiable shares, :class:`SecAggRestart`): the ciphertexts
    and, per recipient, the commitments to the two plaintext shares it holds
    (:func:`share_commitments`); the signature then covers the rows
    ``recipient || ciphertext || commitments``, so a share a holder reveals later is
    checked against what its dealer signed."""

    commitments: WireArray
    """``(m, 64)``: per recipient, SHA-256 commitments to its share of ``s_sk``, then of ``b``."""


class ForwardedShares(Message, frozen=True):
    """Step 1, aggregator -> party: the ciphertexts addressed to it.

    Only the ciphertexts: a share that does not open is the exception, and its proof of
    origin comes on request (:class:`ShareComplaint`, :class:`ShareProofs`)."""

    senders: WireArray
    ciphertexts: WireArray


class CommittedForwardedShares(ForwardedShares, frozen=True, kw_only=True):
    """Step 1 of a retried run, aggregator -> party: the ciphertexts addressed to it with
    their senders' commitments (:class:`CommittedShares`); a share that opens but does not
    match its commitment is a share that does not open (complaint, proofs, accusation)."""

    commitments: WireArray


class ShareComplaint(Message, frozen=True):
    """Step 2, party -> aggregator: the senders whose forwarded shares did not open; the
    party asks for the proof that each signed what it was forwarded (before its masked
    input, which it sends when the proofs arrive)."""

    senders: WireArray


class ShareProofs(Message, frozen=True):
    """Step 2, aggregator -> party: for each sender of a :class:`ShareComplaint`, its
    signature (round ``shares``) and the whole batch it signed (:func:`share_batch`): a
    share that does not open and is not the party's row of a batch its sender signed was
    altered by the aggregator."""

    senders: WireArray
    signatures: Signatures
    batches: Annotated[list[bytes], msgspec.Meta(max_length=1 << 24)]
    """Each sender's rows ``recipient || ciphertext``, as it signed them."""


class MaskedInput(Message, frozen=True):
    """Step 2, party -> aggregator: the masked input vector, and complaints.

    ``accused``: neighbours whose signed share did not open (this party left them out of
    its masks); ``evidence``: then this party's raw share-encryption private key (its
    public half is signed in its AdvertiseKeys), with which the aggregator re-derives the
    pairwise key and opens the signed ciphertext itself -- whichever of the two lied is
    named.
    """

    y: WireArray
    accused: WireArray | None = None
    evidence: bytes = b""


class SurvivorSet(Message, frozen=True):
    """Step 3 (Bonawitz et al. 2017, Round 3 ConsistencyCheck), aggregator -> each
    member of the consistency committee in the set: the parties whose masked inputs the
    sum will contain (``U3``), a packed bitmap over ids ``0..n`` (``numpy.packbits``)."""

    survivors: bytes


class ConsistencySig(Message, frozen=True):
    """Step 3, committee member -> aggregator: its signature (round ``consistency``) on
    the survivor bitmap it was sent."""

    signature: Signature


class UnmaskRequest(Message, frozen=True):
    """Step 4, aggregator -> every party in the survivor set: the set, who of the
    committee signed it and their signatures.

    A party reveals only when at least a quorum of the committee signed *this* set
    (:meth:`SecAggConfig.quorum`; a committee member also checks it is the set it
    signed); it then reveals, for each holder of its shares, the share of ``b`` (in the
    set) or of ``s_sk`` (not in it) -- derived from the signed set, not from anything
    else the aggregator says.  A party outside the committee learns the set here: it
    never saw a :class:`SurvivorSet`.
    """

    survivors: bytes
    signers: bytes
    signatures: Signatures


class UnmaskShares(Message, frozen=True):
    """Step 3, party -> aggregator: shares of ``b`` (live owners) and ``s_sk`` (dropped)."""

    b_owners: WireArray
    b_shares: WireArray
    s_owners: WireArray
    s_shares: WireArray


class Aggregate(Message, frozen=True):
    """Final, aggregator -> party: the sum and how many inputs it contains, signed by the
    aggregator (round ``aggregate``): a receipt any party can show to prove what it was
    told."""

    total: WireArray
    n_included: int
    signature: Signature = b""


class SecAggAbort(Message, frozen=True):
    """Final, aggregator -> party: the run stopped without a result."""

    reason: str


MAX_RETRIES = 3
"""How many times one run may restart (:class:`SecAggRestart`) before it aborts."""


class SecAggRestart(Message, frozen=True):
    """Aggregator -> every live party, labelled with the run being left: run again from the
    keys step as attempt ``attempt`` (run label :func:`retry_label`, fresh keys, seeds and
    draw, verifiable shares), without the parties ``excluded`` (proven to have dealt
    inconsistent shares or revealed shares their dealer did not commit to, or revealers
    missing from the draw); ``reason`` says which."""

    attempt: Annotated[int, msgspec.Meta(ge=1, le=64)]
    excluded: WireArray
    reason: Annotated[str, msgspec.Meta(max_length=4096)]


SECAGG_MESSAGES: tuple[type[Message], ...] = (
    AdvertiseKeys,
    DrawCommitted,
    DrawReveal,
    NeighborKeys,
    EncryptedShares,
    ForwardedShares,
    ShareComplaint,
    ShareProofs,
    MaskedInput,
    SurvivorSet,
    ConsistencySig,
    UnmaskRequest,
    UnmaskShares,
    Aggregate,
    SecAggAbort,
    CommittedShares,
    CommittedForwardedShares,
    SecAggRestart,
)


SHARE_ROW = IDS.itemsize + CIPHERTEXT_LEN
"""Bytes of one row of a party's share batch: ``recipient (uint32 LE) || ciphertext``."""

_BATCH_DOMAIN = b"mpc_rr/secagg/share-batch/v1"


COMMITMENT_LEN = 64
"""Bytes of one recipient's share commitments (:func:`share_commitments`)."""

_COMMIT_DOMAIN = b"mpc_rr/secagg/share-commitment/v1"


def share_batch(recipients: np.ndarray, cts: np.ndarray, commitments: np.ndarray | None = None) -> bytes:
    """A party's shares as one byte string: rows ``recipient (uint32 LE) || ciphertext``
    in recipient order (:data:`SHARE_ROW` bytes each), each followed by the recipient's
    :data:`COMMITMENT_LEN` bytes of commitments in a run with verifiable shares."""
    ids = np.ascontiguousarray(recipients, "<u4")
    parts = [ids.view(np.uint8).reshape(ids.size, 4), np.asarray(cts, np.uint8).reshape(ids.size, -1)]
    if commitments is not None:
        parts.append(np.asarray(commitments, np.uint8).reshape(ids.size, COMMITMENT_LEN))
    return np.concatenate(parts, axis=1).tobytes()


def share_commitment(run: str, dealer: int, holder: int, which: str, share: bytes) -> bytes:
    """SHA-256 commitment to one plaintext share (``which``: ``"s"`` for the share of
    ``s_sk``, ``"b"`` for the share of ``b``; ``CHUNKS`` uint32 field elements) that
    ``dealer`` dealt to ``holder`` in run ``run``."""
    tag = _COMMIT_DOMAIN + run.encode() + b"/" + dealer.to_bytes(4, "little") + holder.to_bytes(4, "little")
    return hashlib.sha256(tag + which.encode() + share).digest()


def share_commitments(run: str, dealers: np.ndarray | int, holders: np.ndarray | int, rows: np.ndarray) -> np.ndarray:
    """``(m, 64)``: for each plaintext share row (``2 * CHUNKS`` field elements: the share of
    ``s_sk``, then of ``b``) that ``dealers[i]`` dealt to ``holders[i]``, the
    :func:`share_commitment` of each half (the shares are uniform field elements, 264 bits
    each, so the digests hide them).  Its dealer signs them with its ciphertexts
    (:class:`CommittedShares`): a revealed share that matches its commitment is the one
    the dealer dealt."""
    rows = np.ascontiguousarray(rows, SHARE).reshape(-1, 2 * shamir.CHUNKS)
    m = rows.shape[0]
    d = np.broadcast_to(np.asarray(dealers, np.int64), (m,)).tolist()
    h = np.broadcast_to(np.asarray(holders, np.int64), (m,)).tolist()
    half = shamir.CHUNKS * SHARE.itemsize
    raw = rows.tobytes()
    out = bytearray()
    for i in range(m):
        row = raw[2 * half * i : 2 * half * (i + 1)]
        out += share_commitment(run, d[i], h[i], "s", row[:half]) + share_commitment(run, d[i], h[i], "b", row[half:])
    return np.frombuffer(bytes(out), np.uint8).reshape(m, COMMITMENT_LEN)


def retry_label(run: str, attempt: int) -> str:
    """The run label of attempt ``attempt`` of run ``run`` (attempt 0: ``run`` itself):
    every signature and key derivation of a retry is bound to it."""
    return run if attempt == 0 else f"{run}/retry-{attempt}"


def share_digest(batch: bytes) -> bytes:
    """What a party signs for its shares (round ``shares``): SHA-256 of its whole batch
    (:func:`share_batch`), domain-separated.  A recipient proves what the sender sent it
    with the batch and the signature (sent only on a complaint, :class:`ShareProofs`)."""
    return hashlib.sha256(_BATCH_DOMAIN + batch).digest()


def bitmap(members: np.ndarray) -> bytes:
    """A bool vector over ids ``0..n`` packed to bytes (the survivor and signer sets)."""
    return np.packbits(np.asarray(members, bool)).tobytes()


def read_bitmap(data: bytes, n: int) -> np.ndarray | None:
    """The bool vector over ids ``0..n`` of ``data`` (None: wrong length or padding set)."""
    if len(data) != (n + 8) // 8:
        return None
    bits = np.unpackbits(np.frombuffer(data, np.uint8))
    if bits[n + 1 :].any():
        return None
    return bits[: n + 1].astype(bool)
