"""The data party of the modular secure sum of Domingo-Ferrer & Soria-Comas, Section 4.2, with end-to-end encrypted shares.

How this protocol works (paper steps 1-4, applied component-wise to a whole
vector of ``D`` cells, e.g. every cell of every attribute pair), with a key
step before the shares:

1. **Keys.** Each party ``i`` draws an X25519 key pair from its
   :class:`~mpc_rr.secure_sum.Entropy` and sends the public key to
   every other party (``"all-to-all"``: ``n(n-1)`` :class:`MeshKey` messages)
   or to the board (``"board"``: ``n`` :class:`MeshKey` messages, then the
   board sends the list of all ``n`` keys to every party, ``n``
   :class:`MeshKeys` messages -- the key step stays O(n) messages).
2. **Shares.** Party ``i`` draws ``n`` share vectors ``r_i1 .. r_in``
   uniformly modulo ``m = n + 1`` subject to ``sum_j r_ij = 0 (mod m)``
   (``n - 1`` drawn freely, the last fixed by the constraint: the uniform
   distribution on such tuples) and sends ``r_ij`` to party ``j`` (keeps
   ``r_ii``) as AES-256-GCM ciphertext under the key of direction ``i -> j``:
   the SHA-256 one-step KDF of the X25519 agreement of ``i`` and ``j``, bound to the purpose
   (``mesh-share``), the run id, the sender and the receiver
   (:func:`share_key`); the run id and both ids are also the associated data.
   ``n(n-1)`` :class:`MeshShare` messages (board mode: each through the
   board, ``2n(n-1)``).  Whoever relays them (the hub, the board) reads
   ciphertext only.
3. Party ``j`` decrypts and adds what it received and its private 0/1
   indicator vector ``x_j`` and publishes ``r_j = sum_i r_ij + x_j (mod m)``.
4. Everyone computes ``sum_j r_j (mod m)`` = ``sum_j x_j`` since the sum is
   at most ``n < m``.

Publication (step 3) is either ``"all-to-all"`` (faithful: every party sends
``r_j`` to every other party, ``n(n-1)`` :class:`MeshPublish` messages) or
``"board"`` (a bulletin-board relay, party 0, collects the ``n`` values and
publishes their sum mod m: ``2n`` messages).  :func:`full_mesh_message_count`
gives the totals: ``3n(n-1)`` all-to-all, ``2n(n-1) + 4n`` with the board.

Threat model: honest-but-curious parties, and an honest-but-curious relay
(hub, board), as SecAgg+'s server.  Any coalition of up to ``n - 2`` parties
learns nothing beyond the sum (each ``r_j`` is uniform given the coalition's
view); the relay reads public keys, ciphertexts and the publications ``r_j``
(uniform, given the sum).  Against an *active* relay: every public key is
signed by its owner for this run (``keys``), so a substituted or replayed key
is refused (board mode names the board); every publication is signed too
(``publish``): all-to-all receivers check each one, and the board's total
comes with the signed publications it sums, which each party checks, so no
relay or board shows some parties another total.  Every share carries its
sender's signature on the tree hash of all its share ciphertexts and the
share's audit path (:func:`sign_shares`, SecAgg+'s scheme): a share that does
not open, with a valid signature and path, names its sender alone (it signed
garbage); with an invalid one, whoever relayed it.  **Who is named**
(``mpc-rr attack cheat --protocol full-mesh|full-mesh-board``,
docs/adversary.md): in board mode every message passes through the board,
which checks on ingress every signature it relays (keys, shares,
publications), refuses a bad one naming its sender and tells every party
(:class:`MeshAbort`), so a bad signature reaching a party names the board
alone.  **Limitation**: in all-to-all mode the relay is the transport hub,
which plays no protocol role and checks nothing; a bad, old-run or missing
signed message "from" ``v`` was forged or withheld by ``v`` or changed or
dropped by the hub, and no receiver can tell which (either could frame the
other): it reports the suspects ``{v, relay}`` (:data:`~mpc_rr.core.RELAY`),
not a culprit.
There is no dropout tolerance: a missing key, share or publication makes the
run abort (``ProtocolAbort`` naming the silent parties, or suspecting them
with the relay).  A malformed key or share (wrong length, a ciphertext that
fails authentication, a decrypted value >= m) aborts, blaming as above; an
identical duplicate is reported (``PeerError``) and ignored, a conflicting
second message aborts.

Wire: residues are encrypted as the smallest unsigned dtype holding ``m - 1``
(uint16 for Adult's ``m = 32,562``), little-endian: a share of ``D`` cells is
``D * itemsize + 16`` bytes of ciphertext, plus a 64-byte signature and a
``32 * ceil(log2(n - 1))``-byte audit path (board mode: none to the board,
which checks the whole batch's signature and adds each path).
"""

from __future__ import annotations

import enum
from collections.abc import Set as AbstractSet

import numpy as np

from mpc_rr.core import (
    COORDINATOR,
    AllIn,
    DecodeError,
    Message,
    PeerError,
    Role,
    Send,
    Transition,
    UsageError,
    WireArray,
    table,
)
from mpc_rr.core._errors import RELAY
from mpc_rr.core._roles import NOBODY, broadcast, each
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum._common import SumResult, check_inputs, read_residues
from mpc_rr.secure_sum._entropy import Entropy, SystemEntropy, smallest_uint
from mpc_rr.secure_sum._identity import Identity, default_identity, signed_payload
from mpc_rr.secure_sum.full_mesh._messages import (
    KEY_LEN,
    MESH_MESSAGES,
    PROTOCOL,
    TAG_LEN,
    MeshAbort,
    MeshKey,
    MeshKeys,
    MeshPublish,
    MeshShare,
    MeshTotal,
    Publication,
    check_publication,
    checked_modulus,
    frame_digest,
    share_aad,
    share_index,
    share_key,
    share_signed,
    sign_shares,
)

__all__ = ["FullMeshParty", "MeshState"]


class MeshState(enum.Enum):
    KEYS = "public key sent, collecting the others' keys (or the board's list)"
    SHARING = "encrypted shares sent, collecting the shares addressed to me"
    PUBLISHING = "r_j published, collecting publications (or the board's total)"
    DONE = "done"
    ABORTED = "aborted"


# How a party goes through the steps (the module docstring has the detail):
#   KEYS        its public key is out (start); once every key is in -- the others' keys, or
#               the board's list -- it sends each party its share, encrypted;
#   SHARING     once every share addressed to it is in, it publishes r_j;
#   PUBLISHING  the sum of the publications (all-to-all), or the board's total, is the result.
# A faster party's share (in KEYS) or publication (in SHARING) is held or counted early; a
# message of a step already closed is a duplicate, reported.  No deadline entry: no dropout
# tolerance, a silent party makes the run abort (patience), naming it.
MESH_PARTY_TABLE = table({
    **each((MeshState.KEYS, MeshState.SHARING, MeshState.PUBLISHING), MeshKey, "_on_key"),
    **each((MeshState.KEYS, MeshState.SHARING, MeshState.PUBLISHING), MeshKeys, "_on_key_list"),
    (MeshState.KEYS, MeshShare): Transition("_on_share", MeshState.KEYS),  # a faster party's, held
    (MeshState.KEYS, AllIn): Transition("_send_shares", MeshState.SHARING),
    (MeshState.SHARING, MeshShare): Transition("_on_share", MeshState.SHARING),
    (MeshState.SHARING, MeshPublish): Transition("_on_publish", MeshState.SHARING),  # a faster party's
    (MeshState.SHARING, AllIn): Transition("_publish", MeshState.PUBLISHING),
    (MeshState.PUBLISHING, MeshShare): Transition("_on_share", MeshState.PUBLISHING),  # duplicates
    (MeshState.PUBLISHING, MeshPublish): Transition("_on_publish", MeshState.PUBLISHING),
    (MeshState.PUBLISHING, MeshTotal): Transition("_on_total", MeshState.DONE),
    (MeshState.PUBLISHING, AllIn): Transition("_sum_publications", MeshState.DONE),
    **each((MeshState.KEYS, MeshState.SHARING, MeshState.PUBLISHING), MeshAbort, "_on_board_abort"),
})


class FullMeshParty(Role):
    """Data party ``party_id`` in ``1..n`` of the Section 4.2 secure sum.

    Parameters
    ----------
    party_id, n:
        This party and the number of data parties (ids ``1..n``).
    x:
        Private input vector (0/1 indicators in the paper; any non-negative
        ints whose n-fold sum stays below ``modulus``).
    modulus:
        Defaults to ``n + 1`` as in the paper.
    publication:
        ``"all-to-all"`` (faithful) or ``"board"`` (relay through party 0).
    entropy:
        Cryptographic source of the key pair and the shares (default
        :class:`SystemEntropy`).
    run:
        Protocol run id carried in every message (and bound into every share key).
    """

    TRANSITIONS = MESH_PARTY_TABLE
    message_types = MESH_MESSAGES

    def __init__(
        self, party_id: int, n: int, x: np.ndarray, *, modulus: int | None = None,
        publication: Publication = "all-to-all", entropy: Entropy | None = None, run: str = "",
        identity: Identity | None = None,
    ) -> None:  # fmt: skip
        super().__init__(party_id, MeshState.KEYS)
        self._identity = identity
        if n < 2:
            raise UsageError(f"n must be >= 2 parties, got {n}")
        if not 1 <= self.party_id <= n:
            raise UsageError(f"party_id must be in 1..{n}, got {party_id}")
        check_publication(publication)
        self.n = int(n)
        self.modulus = checked_modulus(self.n, modulus)
        self.x = check_inputs(x, self.modulus, self.n)
        self.cells = self.x.size
        self.dtype = smallest_uint(self.modulus)
        self.wire_dtype = self.dtype.newbyteorder("<")
        self.share_len = self.cells * self.dtype.itemsize + TAG_LEN
        self.publication = publication
        self.entropy = entropy if entropy is not None else SystemEntropy()
        self.run = run
        self._acc = np.zeros(self.cells, np.uint64)
        self._pks: dict[int, bytes] = {}  # party -> its public key
        self._key_digest: dict[int, bytes] = {}  # sender of a key (list) -> digest (duplicates)
        self._pending: dict[int, MeshShare] = {}  # shares received before every key was in
        self._in_key: dict[int, bytes] = {}  # sender -> key of its share to me (until it arrives)
        self._shares_from: dict[int, bytes] = {}  # sender -> digest (duplicate detection)
        self._published: dict[int, bytes] = {}
        self._pub_acc = np.zeros(self.cells, np.uint64)
        others = set(range(1, self.n + 1)) - {self.party_id}
        self._others = sorted(others)
        self._no_key_yet = set(others) if publication == "all-to-all" else {COORDINATOR}
        self._no_share_yet = set(others)
        self._no_publication_yet = others if publication == "all-to-all" else {COORDINATOR}
        if publication == "board":
            self.patience = 2  # the board's own deadline first: it names a silent party (MeshAbort)

    # -- protocol -----------------------------------------------------------------
    def start(self) -> list[Send]:
        """Step 1: a fresh X25519 key pair; the public key to every other party or the board."""
        self._sk, self.pk = crypto.keypair(self.entropy)
        self._pks[self.party_id] = self.pk
        sig = self.identity.sign(signed_payload(PROTOCOL, self.run, "keys", self.party_id, self.pk))
        msg = MeshKey(pk=self.pk, run=self.run, step=1, signature=sig)
        if self.publication == "board":
            return [Send(COORDINATOR, msg)]
        return broadcast(self._others, msg)

    @property
    def identity(self) -> Identity:
        """Its signing identity (:func:`~mpc_rr.secure_sum.default_identity` unless given)."""
        if self._identity is None:
            self._identity = default_identity(self.party_id, self.n)
        return self._identity

    def _genuine(self, owner: int, pk: bytes, signature: bytes) -> bool:
        """Whether ``pk`` carries ``owner``'s signature for this run (overridden by broken variants)."""
        return self.identity.roster.verify_signed(PROTOCOL, self.run, "keys", owner, signature, pk)

    def _genuine_publication(self, owner: int, residues: bytes, signature: bytes) -> bool:
        """Whether ``owner`` signed these residues as its ``r_j`` of this run (all-to-all)."""
        return self.identity.roster.verify_signed(PROTOCOL, self.run, "publish", owner, signature, residues)

    def share_key_bytes(self) -> bytes | None:
        """This party's raw X25519 share-encryption key (``None`` before :meth:`start`).

        For the adversary module's collusion analysis only: with it a
        coalition member reads every share it sent and received.  Never sent.
        """
        sk = getattr(self, "_sk", None)
        return None if sk is None else crypto.private_bytes(sk)

    @property
    def public_keys(self) -> dict[int, bytes]:
        """The public key of each party it holds so far, its own included (a copy)."""
        return dict(self._pks)

    @property
    def accumulator(self) -> np.ndarray:
        """``r_ii`` plus every share opened so far (a copy; uint64, not reduced mod m): step 3's sum."""
        return self._acc.copy()

    def waiting_for(self) -> AbstractSet[int]:
        if self.done:
            return NOBODY
        if self.state is MeshState.KEYS:
            return self._no_key_yet
        if self.state is MeshState.SHARING:
            return self._no_share_yet if self.publication == "all-to-all" or not self._no_share_yet else {COORDINATOR}
        return self._no_publication_yet

    def blame_silent(self, missing: list[int]) -> tuple[list[int], list[tuple[int, ...]]]:
        """All-to-all: a silent party or a hub that dropped its messages, unprovable either
        way (``{v, relay}``); board mode: the board, which relays everything."""
        if self.publication == "all-to-all":
            return [], [(v, RELAY) for v in missing]
        return missing, []

    def _fail(self, src: int, what: str, *, proven: bool = False) -> PeerError:
        """Abort for ``what`` in a message from ``src``; the PeerError to raise.

        Whom it blames: ``src`` when ``proven`` (its own signature on what is wrong) or when
        ``src`` is the board (it relays and checks everything, so it answers for it); in
        all-to-all mode otherwise the suspects ``{src, relay}`` (the hub may have changed it).
        """
        text = f"{self.name}: {what} from party {src}"
        if proven or self.publication == "board":
            self.abort(text, [src])
        else:
            self.abort(text + " (forged by it or changed by the relay: suspects both)", [], [(src, RELAY)])
        return PeerError(text, src)

    def receive(self, src: int, msg: Message) -> list[Send]:
        """:meth:`Role.receive`; board mode: an abort blaming another than the board is reported to
        it (a :class:`MeshAbort` complaint), not raised: it stops the run for everyone."""
        was_done = self.done
        try:
            return super().receive(src, msg)
        except PeerError:
            err = self.error
            if self.publication != "board" or was_done or err is None or COORDINATOR in err.culprits:
                raise
            return [Send(COORDINATOR, MeshAbort(reason=str(err)[:500], culprits=list(err.culprits), run=self.run, step=4))]

    def _on_board_abort(self, src: int, msg: MeshAbort) -> list[Send]:
        """The board stopped the run naming some parties: its word, so the suspects are
        ``{board, v}`` for each ``v`` it named (nobody proven) -- unless it names this party,
        which knows itself honest: then the board."""
        if self.publication != "board" or src != COORDINATOR:
            raise PeerError(f"{self.name}: unexpected abort notice from party {src}", src)
        named = [c for c in msg.culprits if 1 <= c <= self.n]  # naming me: it lies (e.g. it withheld my shares)
        self.abort_on_word_of(COORDINATOR, f"{self.name}: the board stopped the run: {msg.reason[:500]}", named)
        return []

    def _store(self, store: dict[int, bytes], src: int, data: bytes, what: str, via: int | None = None) -> None:
        """Record a digest of ``data`` from ``src``; a second message raises PeerError.

        An identical duplicate is only reported; a conflicting one also aborts, blaming
        ``via`` (the board, which should have refused it) when given, else as :meth:`_fail`.
        """
        digest = frame_digest(data)
        if src in store:
            if store[src] == digest:
                raise PeerError(f"{self.name}: duplicate {what} from party {src} ignored", src)
            raise self._fail(src if via is None else via, f"two different {what}s of party {src}")
        store[src] = digest

    def _read(self, w: WireArray, src: int, what: str) -> np.ndarray:
        try:
            return read_residues(w, self.modulus, self.cells, src, what)
        except PeerError:
            raise self._fail(src, f"malformed {what}") from None

    # -- step 1: keys ---------------------------------------------------------------
    def _on_key(self, src: int, msg: MeshKey) -> list[Send]:
        if self.publication == "board" or not (1 <= src <= self.n) or src == self.party_id:
            raise PeerError(f"{self.name}: unexpected public key from party {src}", src)
        if len(msg.pk) != KEY_LEN:
            raise self._fail(src, f"malformed public key ({len(msg.pk)} bytes, expected {KEY_LEN})")
        if not self._genuine(src, msg.pk, msg.signature):
            raise self._fail(src, "public key without its signature for this run (forged, replayed or substituted)")
        self._store(self._key_digest, src, msg.pk, "public key")
        self._pks[src] = msg.pk
        self._no_key_yet.discard(src)
        return []

    def _on_key_list(self, src: int, msg: MeshKeys) -> list[Send]:
        if self.publication != "board" or src != COORDINATOR:
            raise PeerError(f"{self.name}: unexpected key list from party {src}", src)
        try:
            pks = msg.pks.to_numpy(dtype=np.uint8, shape=(self.n, KEY_LEN), sender=src)
        except DecodeError as exc:
            raise self._fail(src, f"malformed key list ({exc})") from None
        self._store(self._key_digest, src, pks.tobytes(), "key list")
        if pks[self.party_id - 1].tobytes() != self.pk:
            raise self._fail(src, "a key list without my own public key")
        if len(msg.signatures) != self.n:
            raise self._fail(src, f"a key list with {len(msg.signatures)} signatures for {self.n} keys")
        for j in self._others:
            if not self._genuine(j, pks[j - 1].tobytes(), msg.signatures[j - 1]):
                raise self._fail(src, f"a key list whose key of party {j} is not signed by it (substituted or replayed)")
        self._pks = {j: pks[j - 1].tobytes() for j in range(1, self.n + 1)}
        self._no_key_yet.discard(src)
        return []

    # -- step 2: shares ---------------------------------------------------------------
    def _draw_shares(self) -> np.ndarray:
        """``(n, cells)`` rows ``r_i1 .. r_in``: uniform mod m, summing to zero."""
        m, n = self.modulus, self.n
        r = self.entropy.uniform(m, (n, self.cells))
        r[n - 1] = (np.uint64(m) - r[: n - 1].sum(axis=0) % np.uint64(m)) % np.uint64(m)
        return r

    def _seal(self, key: bytes, plaintext: bytes, aad: bytes) -> bytes:
        return crypto.encrypt(key, plaintext, aad)

    def _unseal(self, key: bytes, ciphertext: bytes, aad: bytes) -> bytes:
        return crypto.decrypt(key, ciphertext, aad)

    def _send_shares(self) -> list[Send]:
        """Every key is in: derive the pairwise keys, send the encrypted shares, open early ones."""
        me = self.party_id
        r = self._draw_shares()
        self._acc += r[me - 1]
        wire = r.astype(self.wire_dtype)
        sends, cts = [], []
        keys = {}
        for j in self._others:
            try:
                shared = crypto.agree(self._sk, self._pks[j])
            except crypto.InvalidPublicKey as exc:
                raise self._fail(j, f"unusable public key, signed by it ({exc})", proven=True) from None
            keys[j] = share_key(shared, self.run, j, me)
            k_out, aad = share_key(shared, self.run, me, j), share_aad(self.run, me, j)
            cts.append(self._seal(k_out, wire[j - 1].tobytes(), aad))
        signature, paths = self._sign_shares(cts)
        board = self.publication == "board"
        for j, ct in zip(self._others, cts, strict=True):
            msg = MeshShare(ciphertext=ct, run=self.run, step=2, signature=signature,
                            path=paths[share_index(me, j)], peer=j if board else 0)  # fmt: skip
            sends.append(Send(COORDINATOR if board else j, msg))
        for j, k_in in keys.items():
            held = self._pending.pop(j, None)
            if held is None:
                self._in_key[j] = k_in
            else:
                self._accept(j, held, k_in)
        return sends

    def _sign_shares(self, cts: list[bytes]) -> tuple[bytes, list[bytes]]:
        """My signature on the tree hash of my ciphertexts, and each one's audit path (all-to-all)."""
        batch = np.frombuffer(b"".join(cts), np.uint8).reshape(len(cts), -1)
        return sign_shares(self.identity, self.run, batch, with_paths=self.publication == "all-to-all")

    def _share_signed(self, sender: int, msg: MeshShare) -> bool:
        """Whether ``sender`` signed this share to me (overridden by broken variants)."""
        return share_signed(self.identity.roster, self.run, self.n, sender, self.party_id, msg)

    def _bad_share(self, sender: int, msg: MeshShare, what: str) -> PeerError:
        """A share that does not open or is malformed: its sender alone if it signed it (it sent
        garbage); else whoever relayed it -- the board (it checks every share it relays) or, in
        all-to-all mode, the suspects ``{sender, relay}``."""
        if self._share_signed(sender, msg):
            return self._fail(sender, f"{what}, signed by it (it sent garbage)", proven=True)
        if self.publication == "board":
            return self._fail(COORDINATOR, f"{what}, relayed from party {sender} without its signature")
        return self._fail(sender, f"{what}, without its signature")

    def _accept(self, src: int, msg: MeshShare, key: bytes) -> None:
        """Decrypt the share of ``src`` and add it (abort, blaming as :meth:`_bad_share`, if it is not genuine)."""
        try:
            plain = self._unseal(key, msg.ciphertext, share_aad(self.run, src, self.party_id))
        except crypto.InvalidTag:
            raise self._bad_share(src, msg, "a share that fails authentication") from None
        w = WireArray(dtype=self.wire_dtype.str, shape=(self.cells,), data=plain)
        try:
            self._acc += read_residues(w, self.modulus, self.cells, src, "share")
        except PeerError:
            raise self._bad_share(src, msg, "a share out of range") from None

    def _on_share(self, src: int, msg: MeshShare) -> list[Send]:
        board = self.publication == "board"
        sender = msg.peer if board and src == COORDINATOR else src
        if (board and src != COORDINATOR) or not (1 <= sender <= self.n) or sender == self.party_id:
            raise PeerError(f"{self.name}: share from party {src} for sender {msg.peer}", src)
        if len(msg.ciphertext) != self.share_len:
            raise self._bad_share(sender, msg, f"a malformed share ({len(msg.ciphertext)} bytes, expected {self.share_len})")
        self._store(self._shares_from, sender, msg.ciphertext, "share", COORDINATOR if board else None)
        self._no_share_yet.discard(sender)
        if self.state is MeshState.KEYS:  # a faster party's: opened once every key is in
            self._pending[sender] = msg
        else:
            self._accept(sender, msg, self._in_key.pop(sender))
        return []

    # -- step 3: publication ------------------------------------------------------------
    def _publish(self) -> list[Send]:
        """Step 3: ``r_j = sum_i r_ij + x_j (mod m)``, to everyone or to the board."""
        m = np.uint64(self.modulus)
        r_j = ((self._acc % m + self.x) % m).astype(self.dtype)
        self._r_j = r_j.astype(np.uint64)
        sig = self.identity.sign(signed_payload(PROTOCOL, self.run, "publish", self.party_id,
                                                r_j.astype(self.wire_dtype).tobytes()))  # fmt: skip
        pub = MeshPublish(value=WireArray.from_numpy(r_j), run=self.run, step=3, signature=sig)
        if self.publication == "board":
            return [Send(COORDINATOR, pub)]
        self._published[self.party_id] = b""
        self._pub_acc += r_j
        return [Send(j, pub) for j in self._others]

    def _on_publish(self, src: int, msg: MeshPublish) -> list[Send]:
        if self.publication == "board" or not (1 <= src <= self.n) or src == self.party_id:
            raise PeerError(f"{self.name}: unexpected publication from party {src}", src)
        arr = self._read(msg.value, src, "publication")
        if not self._genuine_publication(src, arr.astype(self.wire_dtype).tobytes(), msg.signature):
            raise self._fail(src, "publication without its signature for this run (changed on the way or forged)")
        self._store(self._published, src, arr.tobytes(), "publication")
        self._no_publication_yet.discard(src)
        self._pub_acc += arr
        return []

    def _sum_publications(self) -> list[Send]:
        self._finish(self._pub_acc % np.uint64(self.modulus))
        return []

    def _on_total(self, src: int, msg: MeshTotal) -> list[Send]:
        if self.publication != "board" or src != COORDINATOR:
            raise PeerError(f"{self.name}: unexpected total from party {src}", src)
        self._finish(self._board_total(src, msg))
        return []

    def _board_total(self, src: int, msg: MeshTotal) -> np.ndarray:
        """The board's total, checked: every listed publication signed by its sender for this
        run, mine among them unchanged, and their sum the total; else abort naming the board."""
        total = self._read(msg.total, src, "total")
        if msg.values is None or len(msg.signatures) != self.n:
            raise self._fail(src, "a total without the signed publications it sums")
        try:
            rows = msg.values.to_numpy(dtype=self.wire_dtype, shape=(self.n, self.cells), sender=src)
        except DecodeError as exc:
            raise self._fail(src, f"malformed publications with the total ({exc})") from None
        if not np.array_equal(rows[self.party_id - 1], self._r_j):
            raise self._fail(src, "a total over another publication of mine")
        for j in self._others:
            if not self._genuine_publication(j, rows[j - 1].tobytes(), msg.signatures[j - 1]):
                raise self._fail(src, f"a total whose publication of party {j} is not signed by it")
        m = np.uint64(self.modulus)
        if not np.array_equal(rows.astype(np.uint64).sum(axis=0) % m, total.astype(np.uint64)):
            raise self._fail(src, "a total that is not the sum of the publications it lists")
        return total

    def _finish(self, total: np.ndarray) -> None:
        ids = tuple(range(1, self.n + 1))
        self.finish(SumResult(total.astype(np.int64), ids, self.n, self.modulus))
