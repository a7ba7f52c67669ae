"""The full mesh's messages, key derivation and share encryption (Sec. 4.2 over a relay)."""

from __future__ import annotations

import hashlib
from typing import Annotated, Literal

import msgspec
import numpy as np

from mpc_rr.core import Message, UsageError, WireArray
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum._identity import (
    Identity,
    Roster,
    merkle_paths,
    merkle_root_from_path,
    share_items,
    signed_payload,
)

__all__ = [
    "KEY_LEN",
    "MESH_MESSAGES",
    "PROTOCOL",
    "TAG_LEN",
    "MeshAbort",
    "MeshKey",
    "MeshKeys",
    "MeshPublish",
    "MeshShare",
    "MeshTotal",
    "Publication",
    "check_publication",
    "checked_modulus",
    "frame_digest",
    "full_mesh_message_count",
    "open_share",
    "share_aad",
    "share_index",
    "share_key",
    "share_signed",
    "sign_shares",
]

Publication = Literal["all-to-all", "board"]

KEY_LEN = 32
"""Bytes of an X25519 public key."""

TAG_LEN = 16
"""Bytes of the AES-GCM tag a share's ciphertext carries after the encrypted residues."""

_PURPOSE = "mesh-share"


_Signature = Annotated[bytes, msgspec.Meta(max_length=80)]

PROTOCOL = "full-mesh"
"""The protocol name the full mesh's signatures are bound to (both publication modes)."""


class MeshKey(Message, frozen=True):
    """Step 1: party i's X25519 public key (to every other party, or to the board), signed
    with its long-term key (:func:`~mpc_rr.secure_sum.signed_payload`: protocol, run id,
    round ``keys``, sender, the key)."""

    pk: bytes
    signature: _Signature = b""


class MeshKeys(Message, frozen=True):
    """Step 1, board mode: every party's public key, row ``j - 1`` for party ``j`` (``(n, 32)`` uint8)."""

    pks: WireArray
    signatures: Annotated[list[_Signature], msgspec.Meta(max_length=1 << 24)] = msgspec.field(default_factory=list)
    """Row ``j - 1``: party ``j``'s signature on its key, as the board received it."""


class MeshShare(Message, frozen=True):
    """Step 2: share ``r_ij`` from party i to party j, AES-256-GCM encrypted under :func:`share_key`,
    with its sender's proof that it sent exactly this ciphertext (SecAgg+'s scheme): one
    signature (round ``shares``) on the RFC 6962 tree hash of the items ``recipient (uint32 LE)
    || ciphertext`` of all its ``n - 1`` shares in recipient order (:func:`sign_shares`), and this
    item's audit path.  A receiver checks them only when the share does not open
    (:func:`share_signed`).  Board mode: a party sends its shares to the board without paths;
    the board checks the signature on the whole batch's tree hash and adds each path."""

    ciphertext: bytes
    signature: _Signature = b""
    path: Annotated[bytes, msgspec.Meta(max_length=32 * 64)] = b""
    """The item's audit path: concatenated 32-byte hashes, bottom up."""
    peer: int = 0
    """Board mode: the receiver (party -> board), or the sender (board -> party); 0 all-to-all."""


class MeshAbort(Message, frozen=True):
    """Board mode, board -> every party: the board stopped the run (a party sent it something
    unsigned, or stayed silent), and whom it names.  Its word, not a proof: a party that gets
    it aborts suspecting ``{the board, each named party}``."""

    reason: Annotated[str, msgspec.Meta(max_length=500)]
    culprits: Annotated[list[int], msgspec.Meta(max_length=1 << 24)] = msgspec.field(default_factory=list)


class MeshPublish(Message, frozen=True):
    """Step 3: the published ``r_j`` (to every party, or to the board), signed by its sender
    (round ``publish``, over the residues little-endian): every receiver checks it (the board
    too, and it forwards the signed values with its total), so a relay cannot show some
    parties another ``r_j``, or the board another total."""

    value: WireArray
    signature: _Signature = b""


class MeshTotal(Message, frozen=True):
    """Board mode: the sum of all published ``r_j`` mod m, with what it sums: every party's
    signed publication (row ``j - 1`` of ``values``, ``(n, cells)``, and its signature), so
    that each party checks the total instead of trusting the board."""

    total: WireArray
    values: WireArray | None = None
    signatures: Annotated[list[_Signature], msgspec.Meta(max_length=1 << 24)] = msgspec.field(default_factory=list)


MESH_MESSAGES: tuple[type[Message], ...] = (MeshKey, MeshKeys, MeshShare, MeshPublish, MeshTotal, MeshAbort)


def full_mesh_message_count(n: int, publication: Publication = "all-to-all") -> int:
    """Messages of one run.

    All-to-all: ``n(n-1)`` keys + ``n(n-1)`` shares + ``n(n-1)`` publications.
    Board: ``2n`` keys (to the board, the list back) + ``2n(n-1)`` shares (each through the
    board, which checks its signature: the two hops a share takes through a TCP hub anyway)
    + ``2n`` publications and totals.
    """
    if publication == "all-to-all":
        return 3 * n * (n - 1)
    return 2 * n * (n - 1) + 4 * n


def checked_modulus(n: int, modulus: int | None) -> int:
    """``modulus`` (default ``n + 1``), checked where the role is built, not mid-run.

    Shares are drawn by :meth:`Entropy.uniform` (at most ``2^56``) and ``n + 1``
    residues are summed in ``uint64`` before the reduction.
    """
    m = n + 1 if modulus is None else int(modulus)
    if not 2 <= m <= 2**56:
        raise UsageError(f"modulus must be in [2, 2^56], got {m}")
    if (n + 1) * (m - 1) >= 2**64:
        top = (2**64 - 1) // (n + 1) + 1
        raise UsageError(f"modulus {m} with {n} parties overflows the 64-bit sums (at most {top})")
    return m


def check_publication(publication: str) -> None:
    if publication not in ("all-to-all", "board"):
        raise UsageError(f"publication must be 'all-to-all' or 'board', got {publication!r}")


def share_key(shared: bytes, run: str, sender: int, receiver: int) -> bytes:
    """The AES-256-GCM key of the share ``sender -> receiver``: the SHA-256 one-step KDF
    (:func:`~mpc_rr.secure_sum.kdf_sha256`) of the X25519 secret, bound to the
    purpose, the run id and both ids (one key per direction)."""
    return crypto.pair_key(shared, _PURPOSE, run, sender, receiver)


def share_aad(run: str, sender: int, receiver: int) -> bytes:
    """Associated data of a share: purpose, run id and both ids (a relay cannot redirect it)."""
    return f"{_PURPOSE}/{run}/{sender}/{receiver}".encode()


def open_share(
    sk: crypto.X25519PrivateKey | bytes, peer_pk: bytes, ciphertext: bytes, *, run: str,
    sender: int, receiver: int,
) -> bytes:  # fmt: skip
    """Decrypt one share with either end's private key and the other end's public key.

    Raises :class:`~mpc_rr.secure_sum.InvalidTag` on tampering or a wrong
    key and :class:`~mpc_rr.secure_sum.InvalidPublicKey` on a bad peer key.
    """
    key = share_key(crypto.agree(sk, peer_pk), run, sender, receiver)
    return crypto.decrypt(key, ciphertext, share_aad(run, sender, receiver))


def frame_digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def share_index(sender: int, receiver: int) -> int:
    """The position of ``receiver``'s item among ``sender``'s ``n - 1`` (recipient order)."""
    return receiver - 1 - int(receiver > sender)


def sign_shares(identity: Identity, run: str, cts: np.ndarray, *, with_paths: bool = True) -> tuple[bytes, list[bytes]]:
    """``(signature, paths)``: party ``identity.party_id`` signs (round ``shares``) the tree hash
    of its ciphertexts ``cts`` (``(n - 1, len)`` uint8, recipient order); ``paths[k]``: the audit
    path of its ``k``-th item (concatenated hashes; ``b""`` each without ``with_paths``: the
    board computes them from the whole batch)."""
    me = identity.party_id
    recipients = np.array([j for j in range(1, cts.shape[0] + 2) if j != me], np.uint32)
    root, paths = merkle_paths(share_items(recipients, cts), with_paths=with_paths)
    signature = identity.sign(signed_payload(PROTOCOL, run, "shares", me, root))
    return signature, [b"".join(p) for p in paths] if with_paths else [b""] * cts.shape[0]


def share_signed(roster: Roster, run: str, n: int, sender: int, receiver: int, share: MeshShare) -> bool:
    """Whether ``sender`` signed ``share.ciphertext`` as its share to ``receiver`` in this run
    (the path leads from the item to a root carrying its signature)."""
    if len(share.path) % 32 or not (1 <= sender <= n and 1 <= receiver <= n) or sender == receiver:
        return False
    path = [share.path[i : i + 32] for i in range(0, len(share.path), 32)]
    item = int(receiver).to_bytes(4, "little") + share.ciphertext
    root = merkle_root_from_path(item, share_index(sender, receiver), n - 1, path)
    return root is not None and roster.verify_signed(PROTOCOL, run, "shares", sender, share.signature, root)
