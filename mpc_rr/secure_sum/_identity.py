"""Long-term signing identities of the parties of a secure sum: who said what, provably.

The secure sums route every key and every share through a relay (SecAgg+'s
server, the full mesh's board or the TCP hub).  Without signatures an *active*
relay can substitute its own keys and read every share (a man in the middle);
Bonawitz et al. (CCS 2017, Sec. 4 and Fig. 4, "active adversary") close this
with a PKI: every party signs what it advertises with its long-term key.

* :class:`Identity` -- one party's signing key and the run's :class:`Roster`.
* :class:`Roster` -- every party's verification key by id; :meth:`Roster.verify`
  checks a signature *as party ``i``'s* (memoized on the exact bytes:
  verification is a pure function, so a simulation of thousands of parties in
  one process verifies each distinct signed message once).
* :func:`signed_payload` -- the canonical bytes a party signs: a domain tag,
  the protocol, the run id, the round, the sender and the content, each
  length-prefixed, so a signature from another run, round, protocol or sender
  never verifies here (no replay, no relabelling).
* :func:`simulated_pki` / :func:`default_identity` -- in a simulation, a
  simulated PKI.  :func:`default_identity` derives every party's ECDSA P-256 key
  from one secret per coordinator (:func:`simulation_secret`), which the runners
  hand to every worker process they start (:func:`use_simulation_secret`): one
  roster per run, whichever runner (memory, shards, Ray, processes) runs it;
  :func:`simulated_pki` draws one Ed25519 key per party from the CSPRNG (or a
  seeded source in tests) -- what a browser page signs with in the classroom.  In
  a deployment the party layer passes an :class:`Identity` built from the
  deployment CA's certificates (ECDSA P-256, ``transports/pki.py``) with
  :func:`install_identity`: the library never imports the transports.

Keys may be Ed25519 or ECDSA (P-256, SHA-256) keys of ``cryptography``.  An ECDSA
signature is deterministic (RFC 6979: the same bytes sign the same way, so a seeded run
is reproducible to the byte) and travels as 64 raw bytes ``r || s`` (IEEE P1363, as
WebCrypto's), the size of an Ed25519 one: every signed message has one size whatever the
scheme.  Why P-256 for the simulated PKI: a simulation then signs as a deployment does,
and OpenSSL's P-256 (assembly) signs and verifies about 30 % faster here than its
Ed25519 (portable field arithmetic), which is most of what the active-server defence
costs (docs/secure_aggregation.md).
"""

from __future__ import annotations

import hashlib
import itertools
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.utils import (
    decode_dss_signature,
    encode_dss_signature,
)

from mpc_rr.core import UsageError

if TYPE_CHECKING:
    import numpy as np

    from mpc_rr.secure_sum._entropy import Entropy

__all__ = [
    "Identity",
    "PrivateSigningKey",
    "PublicSigningKey",
    "Roster",
    "default_identity",
    "install_identity",
    "leaf_hash",
    "merkle_paths",
    "merkle_root_from_path",
    "public_key_bytes",
    "share_items",
    "signed_payload",
    "simulated_pki",
    "simulation_secret",
    "sub_identity",
    "use_simulation_secret",
]

PrivateSigningKey = Ed25519PrivateKey | ec.EllipticCurvePrivateKey
PublicSigningKey = Ed25519PublicKey | ec.EllipticCurvePublicKey

_DOMAIN = b"mpc_rr/signed/v1"


def signed_payload(protocol: str, run: str, round_: str, sender: int, *parts: bytes) -> bytes:
    """The canonical bytes party ``sender`` signs in ``round_`` of ``run`` of ``protocol``.

    Every field is length-prefixed (8 bytes, little-endian), so no two
    different tuples share an encoding.
    """
    out = [_context(protocol, run, round_), _SENDER_LEN, int(sender).to_bytes(8, "little")]
    for part in parts:
        out += (len(part).to_bytes(8, "little"), part)
    return b"".join(out)


_SENDER_LEN = (8).to_bytes(8, "little")


@lru_cache(maxsize=1024)
def _context(protocol: str, run: str, round_: str) -> bytes:
    """The length-prefixed domain, protocol, run and round: the start of every payload of a round."""
    fields = (_DOMAIN, protocol.encode(), run.encode(), round_.encode())
    return b"".join(len(f).to_bytes(8, "little") + f for f in fields)


def public_key_bytes(key: PublicSigningKey) -> bytes:
    """The key's canonical bytes (raw Ed25519, or an uncompressed SEC1 point)."""
    if isinstance(key, Ed25519PublicKey):
        return key.public_bytes_raw()
    return key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)


_ECDSA = ec.ECDSA(hashes.SHA256(), deterministic_signing=True)  # RFC 6979
_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551  # of P-256's base point


@lru_cache(maxsize=1 << 16)
def _verify(kind: str, key: bytes, signature: bytes, payload: bytes) -> bool:
    """Memoized verification on the exact bytes (a bad key, signature or payload is a miss)."""
    try:
        pk = _public_key(kind, key)
        if isinstance(pk, Ed25519PublicKey):
            pk.verify(signature, payload)
        else:
            if len(signature) != 64:
                return False
            r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
            pk.verify(encode_dss_signature(r, s), payload, ec.ECDSA(hashes.SHA256()))
    except (InvalidSignature, ValueError):
        return False
    return True


@lru_cache(maxsize=1 << 16)
def _public_key(kind: str, key: bytes) -> PublicSigningKey:
    """The key object of canonical bytes, parsed once (a roster's keys are verified with often)."""
    if kind == "ed25519":
        return Ed25519PublicKey.from_public_bytes(key)
    return ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key)


@dataclass(frozen=True, eq=False)
class Roster:
    """Every party's verification key, by party id (party 0: the server or board)."""

    keys: Mapping[int, PublicSigningKey]
    _raw: dict[int, tuple[str, bytes]] = field(init=False, repr=False)
    _seen: dict[tuple[str, str, str, tuple[int, ...]], dict[int, bytes]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        raw: dict[int, tuple[str, bytes]] = {}
        for pid, key in self.keys.items():
            if isinstance(key, Ed25519PublicKey):
                raw[int(pid)] = ("ed25519", key.public_bytes_raw())
            elif isinstance(key, ec.EllipticCurvePublicKey) and isinstance(key.curve, ec.SECP256R1):
                raw[int(pid)] = ("p256", public_key_bytes(key))
            else:
                raise UsageError(f"roster: party {pid}'s key is neither Ed25519 nor ECDSA P-256")
        object.__setattr__(self, "_raw", raw)
        object.__setattr__(self, "_seen", {})

    def __contains__(self, party: object) -> bool:
        return party in self._raw

    def verify(self, party: int, signature: bytes, payload: bytes) -> bool:
        """Whether ``signature`` on ``payload`` is party ``party``'s (False for an unknown party)."""
        entry = self._raw.get(int(party))
        if entry is None or not isinstance(signature, bytes):
            return False
        return _verify(entry[0], entry[1], signature, payload)

    def verify_signed(
        self, protocol: str, run: str, round_: str, sender: int, signature: bytes, *parts: bytes
    ) -> bool:
        """:meth:`verify` of ``sender``'s signature on :func:`signed_payload` of the fields,
        memoized on the fields themselves (a hit builds no payload)."""
        return _verify_signed(self, protocol, run, round_, int(sender), signature, parts)

    def first_unsigned_row(
        self, protocol: str, run: str, round_: str, senders: list[int], signatures: list[bytes],
        rows: bytes, widths: tuple[int, ...],
    ) -> int | None:  # fmt: skip
        """The index of the first row that is not its sender's signed content (None: all are).

        Row ``i`` of ``rows`` (``sum(widths)`` bytes each) holds the fields ``senders[i]``
        signed with ``signatures[i]`` (:meth:`verify_signed` of the row cut at ``widths``).
        Memoized per sender: the signature and row last verified for ``senders[i]`` in this
        context (roster, protocol, run, round, cuts) are not verified again -- what a
        simulation's thousands of parties checking the same neighbours' keys would
        otherwise repeat; any other bytes are verified.
        """
        context = (protocol, run, round_, widths)
        verified = self._seen.get(context)
        if verified is None:
            if len(self._seen) >= 64:
                self._seen.clear()
            verified = self._seen[context] = {}
        width = sum(widths)
        if len(senders) != len(signatures) or len(rows) != width * len(senders):
            raise UsageError(f"first_unsigned_row: {len(senders)} senders, {len(signatures)} signatures, "
                             f"{len(rows)} bytes of rows of {width}")  # fmt: skip
        cuts = [0]
        for w in widths:
            cuts.append(cuts[-1] + w)
        for i, (v, sig) in enumerate(zip(senders, signatures, strict=True)):
            row = rows[i * width : (i + 1) * width]
            signed = sig + row
            if verified.get(v) == signed:
                continue
            parts = tuple(row[a:b] for a, b in itertools.pairwise(cuts))
            if not self.verify(v, sig, signed_payload(protocol, run, round_, v, *parts)):
                return i
            verified[v] = signed
        return None


@lru_cache(maxsize=1 << 18)
def _verify_signed(
    roster: Roster, protocol: str, run: str, round_: str, sender: int, signature: bytes,
    parts: tuple[bytes, ...],
) -> bool:  # fmt: skip
    return roster.verify(sender, signature, signed_payload(protocol, run, round_, sender, *parts))


@dataclass(frozen=True, eq=False)
class Identity:
    """Party ``party_id``'s long-term signing key and the roster it verifies against."""

    party_id: int
    key: PrivateSigningKey = field(repr=False)
    roster: Roster

    def sign(self, payload: bytes) -> bytes:
        """64 bytes: an Ed25519 signature, or a deterministic ECDSA one as ``r || s``."""
        if isinstance(self.key, Ed25519PrivateKey):
            return self.key.sign(payload)
        r, s = decode_dss_signature(self.key.sign(payload, _ECDSA))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def simulated_pki(ids: range | list[int], entropy: Entropy | None = None) -> dict[int, Identity]:
    """A simulated PKI: one Ed25519 key per party (from ``entropy``, default the OS CSPRNG)."""
    from mpc_rr.secure_sum._entropy import SystemEntropy  # numpy: only when a simulation needs it

    ent = entropy if entropy is not None else SystemEntropy()
    keys = {int(i): Ed25519PrivateKey.from_private_bytes(ent.key(32)) for i in ids}
    roster = Roster({i: k.public_key() for i, k in keys.items()})
    return {i: Identity(i, k, roster) for i, k in keys.items()}


_lock = threading.Lock()
_installed: dict[int, Identity | Callable[[], Identity]] = {}
_secret: bytes | None = None  # this process's simulated-PKI secret (drawn at first use)
_derived: dict[int, ec.EllipticCurvePrivateKey] = {}  # party id -> its simulated key
_rosters: dict[int, Roster] = {}  # n -> the simulated roster of parties 0..n

_PKI_DOMAIN = b"mpc_rr/simulated-pki/v1/"


def simulation_secret() -> bytes:
    """This process's simulated-PKI secret: 32 bytes of the OS CSPRNG drawn at first use,
    or the one adopted with :func:`use_simulation_secret`.

    Every simulated party's long-term key derives from it (:func:`default_identity`), so
    processes sharing it verify against one roster: a runner that starts worker processes
    (shards, Ray actors) hands it to each of them before they build roles.
    """
    global _secret
    with _lock:
        if _secret is None:
            _secret = os.urandom(32)
        return _secret


def use_simulation_secret(secret: bytes) -> None:
    """Adopt a coordinator's simulated-PKI secret (a worker process, before it builds roles)."""
    global _secret
    if not isinstance(secret, bytes) or len(secret) != 32:
        raise UsageError("use_simulation_secret: the secret must be 32 bytes")
    with _lock:
        if secret != _secret:
            _secret = secret
            _derived.clear()
            _rosters.clear()


def _simulated_key(party_id: int) -> ec.EllipticCurvePrivateKey:
    """Party ``party_id``'s simulated ECDSA P-256 key: its scalar from SHAKE-256 of the secret
    and the id, 48 bytes reduced into ``[1, order)`` (bias below 2^-128; caller holds the lock)."""
    key = _derived.get(party_id)
    if key is None:
        global _secret
        if _secret is None:
            _secret = os.urandom(32)
        seed = hashlib.shake_256(_PKI_DOMAIN + _secret + party_id.to_bytes(8, "little")).digest(48)
        scalar = int.from_bytes(seed, "big") % (_ORDER - 1) + 1
        key = _derived[party_id] = ec.derive_private_key(scalar, ec.SECP256R1())
    return key


def sub_identity(identity: Identity, inner_id: int, members: Sequence[int]) -> Identity:
    """``identity`` inside a sub-protocol whose inner party ``i >= 1`` is outer party
    ``members[i - 1]`` (inner 0 is outer 0, the coordinator): the same key, and a roster
    relabelled to inner ids (:class:`~mpc_rr.core.SubProtocol`'s numbering; RRBA's blocks).

    Without it an inner party would sign and verify as the *outer* party of its inner id:
    in a deployment, where each process holds only its own outer key, block 2's inner
    party 1 (outer party ``members[0]``) would be checked against outer party 1's key.
    """
    outer = (0, *(int(m) for m in members))
    if not 0 <= inner_id < len(outer) or outer[inner_id] != identity.party_id:
        raise UsageError(
            f"sub_identity: party {identity.party_id} is not inner party {inner_id} of members {list(members)[:8]}"
        )
    return Identity(inner_id, identity.key, _sub_roster(identity.roster, outer))


@lru_cache(maxsize=256)
def _sub_roster(roster: Roster, outer: tuple[int, ...]) -> Roster:
    """The roster of a sub-protocol: inner id ``i`` verifies with outer party ``outer[i]``'s key
    (one per roster and block, shared by every party of the block in a simulation)."""
    missing = [o for o in outer if o not in roster.keys]
    if missing:
        raise UsageError(f"sub_identity: parties {missing[:8]} are not in the roster")
    return Roster({i: roster.keys[o] for i, o in enumerate(outer)})


def install_identity(identity: Identity | Callable[[], Identity] | None, *, party_id: int | None = None) -> None:
    """Make ``identity`` the one every role of party ``party_id`` (default: its own) in this
    process signs with -- a deployment: the party's certificate key and the CA-issued roster.
    A callable is called once, when a role first needs it (a party process starts without
    loading keys it may never use); ``None`` removes the party's identity."""
    with _lock:
        if identity is None:
            if party_id is not None:
                _installed.pop(int(party_id), None)
            return
        if isinstance(identity, Identity):
            party_id = identity.party_id if party_id is None else party_id
        if party_id is None:
            raise UsageError("install_identity: a callable identity needs its party_id")
        _installed[int(party_id)] = identity


def default_identity(party_id: int, n: int) -> Identity:
    """Party ``party_id``'s identity when a role is given none.

    The identity installed by the party layer (a deployment), else the simulated PKI of
    parties ``0..n``: ECDSA P-256 keys derived from :func:`simulation_secret` (long-term keys
    live across runs, as a real PKI's do, and every process holding the secret derives
    the same roster).
    """
    pid, n = int(party_id), int(n)
    with _lock:
        installed = _installed.get(pid)
        if installed is not None:
            if not isinstance(installed, Identity):
                installed = _installed[pid] = installed()
            return installed
        if not 0 <= pid <= n:
            raise UsageError(f"no identity for party {party_id} among parties 0..{n}")
        roster = _rosters.get(n)
        if roster is None:
            roster = _rosters[n] = Roster({i: _simulated_key(i).public_key() for i in range(n + 1)})
        return Identity(pid, _simulated_key(pid), roster)


# -- one signature over many items: the Merkle tree hash of RFC 6962 (Sec. 2.1) -----------
# A party signs the root once; each recipient gets its item, the signature and the audit
# path (ceil(log2 k) hashes), enough to prove to anyone that the signer sent that item.


def _split(n: int) -> int:
    """The largest power of two smaller than ``n`` (RFC 6962's ``k``), ``n >= 2``."""
    return 1 << ((n - 1).bit_length() - 1)


def leaf_hash(item: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + item).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def merkle_paths(items: list[bytes], *, with_paths: bool = True) -> tuple[bytes, list[list[bytes]]]:
    """``(root, paths)``: the RFC 6962 tree hash of ``items`` and each item's audit path
    (``[]`` when not ``with_paths``: a signer needs only the root).

    Built level by level, bottom up: adjacent nodes are paired and a last unpaired node
    moves up unchanged, which is exactly RFC 6962's left-balanced tree (its left subtree
    holds the largest power of two below the count) -- without recursion.
    """
    if not items:
        return hashlib.sha256(b"").digest(), []
    sha = hashlib.sha256
    level = [sha(b"\x00" + item).digest() for item in items]
    paths: list[list[bytes]] = [[] for _ in items]
    shift = 0  # leaf i sits in node i >> shift of the current level (a promoted node keeps i // 2)
    while len(level) > 1:
        if with_paths:
            width = len(level)
            for i, path in enumerate(paths):
                sibling = (i >> shift) ^ 1
                if sibling < width:
                    path.append(level[sibling])
        up = [sha(b"\x01" + level[2 * j] + level[2 * j + 1]).digest() for j in range(len(level) // 2)]
        if len(level) % 2:
            up.append(level[-1])
        level = up
        shift += 1
    return level[0], paths  # each path from the bottom up


def share_items(recipients: np.ndarray, cts: np.ndarray) -> list[bytes]:
    """The items a party's share signature covers (SecAgg+ and the full mesh): row ``i`` is
    ``recipient (uint32 LE) || ciphertext``, in the order given (recipient order)."""
    import numpy as np  # numpy: only when shares are signed

    ids = np.ascontiguousarray(recipients, "<u4")
    rows = np.concatenate([ids.view(np.uint8).reshape(ids.size, 4), np.asarray(cts, np.uint8).reshape(ids.size, -1)], axis=1)
    flat, width = rows.tobytes(), rows.shape[1]  # one copy, then one slice per item
    return [flat[i * width : (i + 1) * width] for i in range(ids.size)]


def merkle_root_from_path(item: bytes, index: int, count: int, path: list[bytes]) -> bytes | None:
    """The root that ``item`` at ``index`` of ``count`` with ``path`` proves (None: malformed)."""
    if not 0 <= index < count:
        return None
    h = leaf_hash(item)
    sizes = []  # the subtree sizes on the way down, to replay the way up
    lo, n, m = 0, count, index
    while n > 1:
        k = _split(n)
        sizes.append(m < k)
        if m < k:
            n = k
        else:
            m, n, lo = m - k, n - k, lo + k
    if len(path) != len(sizes):
        return None
    for went_left, sibling in zip(reversed(sizes), path, strict=True):
        h = _node(h, sibling) if went_left else _node(sibling, h)
    return h
