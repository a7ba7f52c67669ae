"""The aggregator's checks against active parties: signatures, complaints, the consistency round.

A mixin of :class:`~mpc_rr.secure_sum.secagg.SecAggServer` (kept apart so the
server's routing stays readable).  What each check establishes:

* **Keys** (Bonawitz et al. 2017, Round 0 AdvertiseKeys, signed): the server
  verifies each party's signature on its keys and seed commitment (bound to
  the run id, round and sender) and forwards the signatures, so every party
  can check that its neighbours' keys are theirs.  A forged or replayed
  advertisement excludes its sender (named in ``culprits``).
* **Shares** (Round 1 ShareKeys, signed): a party signs the SHA-256 digest
  of its whole batch (rows ``recipient || ciphertext``); the server verifies
  it and forwards the ciphertexts alone.  A recipient whose share does not
  open asks (``ShareComplaint``) and gets the sender's signature and batch
  (``ShareProofs``): enough to tell the sender's garbage from the server's
  forgery.  The common run sends no proof at all.
* **Complaints** (with the masked input): a party whose neighbour's *signed*
  share does not open reveals its share-encryption private key.  The server
  checks that it matches the complainer's signed public key, re-derives the
  pairwise key and opens the ciphertext itself: if it does not open (or is no
  field element), the accused signed garbage and is excluded; if it opens,
  the complainer lied and is excluded.  Nobody else is blamed: an honest
  sender's ciphertext opens under the true key, and the true key is the only
  one that matches the complainer's signed public key.
* **Consistency** (Round 3 ConsistencyCheck): the survivor set ``U3`` goes to
  every member of the consistency committee in it
  (drawn for the run: :meth:`~mpc_rr.secure_sum.secagg.SecAggConfig.committee_for`), each signs it, and
  the set with the signatures of at least
  :attr:`~mpc_rr.secure_sum.secagg.SecAggConfig.quorum` members travels in the
  unmask request to every survivor; an honest party reveals only then.  Only the
  committee's signatures count, so nobody else is asked to sign (at the defaults
  55 signers whatever ``n``: 2 messages and a signature per committee member,
  none for the other parties).
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet

import numpy as np

from mpc_rr.core import Message, PeerError, Send
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum import _shamir as shamir
from mpc_rr.secure_sum._identity import Identity, Roster, default_identity, signed_payload
from mpc_rr.secure_sum.secagg._messages import (
    CIPHERTEXT_LEN,
    IDS,
    PROTOCOL,
    SHARE,
    AdvertiseKeys,
    Aggregate,
    ConsistencySig,
    DrawReveal,
    EncryptedShares,
    MaskedInput,
    ShareComplaint,
    ShareProofs,
    SurvivorSet,
    UnmaskRequest,
    bitmap,
    read_ids,
    share_batch,
    share_digest,
    wire,
)
from mpc_rr.secure_sum.secagg._params import SecAggConfig

__all__ = ["Judge", "SecAggPrecheck", "SignedShares"]


class SignedShares:
    """One party's ciphertexts as received: recipients, ciphertexts and its signature on
    their digest (:func:`~mpc_rr.secure_sum.secagg.share_digest`)."""

    __slots__ = ("cts", "recipients", "signature")

    def __init__(self, recipients: np.ndarray, cts: np.ndarray, signature: bytes) -> None:
        self.recipients, self.cts, self.signature = recipients, cts, signature

    def same(self, other: SignedShares) -> bool:
        return self.signature == other.signature and np.array_equal(self.cts, other.cts)


class SecAggPrecheck:
    """The aggregator's stateless checks of a data party's message: the signature on its
    keys (round ``keys``) and on its share batch's digest (round ``shares``) -- a pure
    function of the message, its sender and the run's public parameters.

    A runner that spreads the parties over processes runs it where the sender runs (a
    trusted co-worker of the aggregator, :meth:`~mpc_rr.core.RolePlan.prechecks`); the
    aggregator then skips those two checks for a message that passed
    (:meth:`~mpc_rr.core.Role.receive_prechecked`) and still checks everything else
    (recipients, shapes, duplicates).  Alone, the aggregator checks everything itself.
    """

    def __init__(self, cfg: SecAggConfig) -> None:
        self.cfg = cfg
        self._roster: Roster | None = None

    def __call__(self, src: int, msg: Message) -> bool:
        if self._roster is None:  # the aggregator's (simulated) roster, as its role resolves it
            self._roster = default_identity(0, self.cfg.n).roster
        run = self.cfg.run
        try:
            if isinstance(msg, AdvertiseKeys):
                parts = (msg.c_pk, msg.s_pk, msg.b_commit, msg.draw_commit)
                return all(len(p) == 32 for p in parts) and self._roster.verify(
                    src, msg.signature, signed_payload(PROTOCOL, run, "keys", src, *parts)
                )
            if isinstance(msg, EncryptedShares):
                rec = read_ids(msg.recipients, src, "recipients", at_most=self.cfg.degree)
                cts = msg.ciphertexts.to_numpy(dtype=np.uint8, shape=(rec.size, CIPHERTEXT_LEN), sender=src)
                root = share_digest(share_batch(rec, cts))
                return self._roster.verify(src, msg.signature, signed_payload(PROTOCOL, run, "shares", src, root))
        except PeerError:  # malformed: the aggregator finds and names it itself
            return False
        return False


class Judge:
    """The mixin (module docstring).  Needs the server's ``cfg``, ``run``, ``identity``."""

    cfg: SecAggConfig
    run: str
    name: str
    committee: np.ndarray
    prechecked: bool
    late: int
    _mask_sets: dict[int, np.ndarray]
    _shares: dict[int, SignedShares]
    _y: dict[int, np.ndarray]
    _complained: set[int]

    def _exclude(self, u: int) -> None:
        raise NotImplementedError

    @property
    def identity(self) -> Identity:  # the server's
        raise NotImplementedError
    alive: np.ndarray

    def _signed(self, round_: str, sender: int, *parts: bytes) -> bytes:
        return signed_payload(PROTOCOL, self.run, round_, sender, *parts)

    # -- round 0 ---------------------------------------------------------------------------
    def _check_keys(self, src: int, msg: AdvertiseKeys) -> None:
        if self.prechecked:  # verified by a co-worker of the aggregator (SecAggPrecheck)
            return
        payload = self._signed("keys", src, msg.c_pk, msg.s_pk, msg.b_commit, msg.draw_commit)
        if not self.identity.roster.verify(src, msg.signature, payload):
            raise PeerError(
                f"{self.name}: the keys of party {src} do not carry its signature for this run "
                "(forged, replayed or claiming another sender)",
                src,
            )

    def _check_draw(self, src: int, msg: DrawReveal, digest: bytes) -> None:
        """The reveal's signature on the draw digest the server sent (its neighbours check it too)."""
        if not self.identity.roster.verify(src, msg.signature, self._signed("draw", src, digest)):
            raise PeerError(f"{self.name}: party {src}'s signature is not on the draw's commitment set", src)

    # -- round 1 ---------------------------------------------------------------------------
    def _check_shares(self, src: int, recipients: np.ndarray, cts: np.ndarray, signature: bytes) -> SignedShares:
        if self.prechecked:  # verified by a co-worker of the aggregator (SecAggPrecheck)
            return SignedShares(recipients, cts, signature)
        root = share_digest(share_batch(recipients, cts))
        if not self.identity.roster.verify(src, signature, self._signed("shares", src, root)):
            raise PeerError(f"{self.name}: the shares of party {src} do not carry its signature", src)
        return SignedShares(recipients, cts, signature)

    # -- complaints (with the masked input) ---------------------------------------------------
    def _judge(
        self, src: int, msg: MaskedInput, forwarded: AbstractSet[int], c_pk: np.ndarray,
        shares: dict[int, SignedShares],
    ) -> list[int]:  # fmt: skip
        """The parties ``src``'s complaint convicts (the accused, or ``src`` itself if it lied)."""
        if msg.accused is None:
            return []
        accused = read_ids(msg.accused, src, "accused", at_most=len(forwarded)).tolist()
        if not accused:
            return []
        if len(set(accused)) != len(accused) or not set(accused) <= forwarded:
            return [src]
        if len(msg.evidence) != 32:
            return [src]
        sk = crypto.X25519PrivateKey.from_private_bytes(msg.evidence)
        if sk.public_key().public_bytes_raw() != c_pk[src].tobytes():
            return [src]  # not the key it signed: a lie
        guilty = []
        for v in accused:
            held = shares[v]
            row = int(np.searchsorted(held.recipients, src))
            ct = held.cts[row].tobytes()
            try:
                _, k_in = crypto.enc_keys(crypto.agree(sk, c_pk[v].tobytes()), self.run, src, v)
                plain = np.frombuffer(crypto.decrypt(k_in, ct, f"{self.run}/{v}/{src}".encode()), SHARE)
                opens = plain.size == 2 * shamir.CHUNKS and int(plain.max()) < shamir.PRIME
            except (crypto.InvalidTag, crypto.InvalidPublicKey):
                opens = False
            if opens:
                return [src]  # the share opens under the true key: the complainer lied
            guilty.append(v)
        return guilty

    def _on_complaint(self, src: int, msg: ShareComplaint) -> list[Send]:
        """A party whose forwarded shares did not open asks for their senders' proofs (once)."""
        if not 1 <= src <= self.cfg.n or not self.alive[src]:
            self.late += 1
            return []
        ms = self._mask_sets.get(src, np.zeros(0, np.int64))
        try:
            senders = read_ids(msg.senders, src, "complaint", at_most=ms.size)
            if src in self._complained or src in self._y:
                raise PeerError(f"{self.name}: party {src} complained twice or after its masked input", src)
            if not senders.size or np.any(np.diff(senders) <= 0) or not np.isin(senders, ms).all():
                raise PeerError(f"{self.name}: party {src} complained about shares it was not sent", src)
        except PeerError as exc:
            self._exclude(src)
            raise PeerError(f"{exc}; party {src} excluded as a dropout", src) from None
        self._complained.add(src)
        return [Send(src, self._share_proofs(src, senders.tolist(), self._shares))]

    def _share_proofs(self, src: int, senders: list[int], shares: dict[int, SignedShares]) -> ShareProofs:
        """What party ``src`` asked for: each sender's signature and the batch it signed
        (Round 1, on request: the common run sends none)."""
        return ShareProofs(
            run=self.run, step=2, senders=wire(np.asarray(senders), IDS),
            signatures=[shares[v].signature for v in senders],
            batches=[share_batch(shares[v].recipients, shares[v].cts) for v in senders],
        )  # fmt: skip

    # -- round 3: consistency -----------------------------------------------------------------
    def _survivor_set(self, members: np.ndarray) -> list[Send]:
        self._survivors = bitmap(members)
        self._consistency: dict[int, bytes] = {}
        msg = SurvivorSet(run=self.run, step=3, survivors=self._survivors)
        return [Send(int(v), msg) for v in np.flatnonzero(members & self.committee)]

    def _check_consistency(self, src: int, msg: ConsistencySig) -> bytes:
        if not self.identity.roster.verify(src, msg.signature, self._signed("consistency", src, self._survivors)):
            raise PeerError(f"{self.name}: party {src}'s signature is not on the survivor set", src)
        return msg.signature

    def _unmask_request(self, signers: list[int], survivors: bytes | None = None) -> UnmaskRequest:
        """The survivor set (default: the one the committee was shown) with ``signers``'
        signatures on it."""
        members = np.zeros(self.cfg.n + 1, bool)
        members[signers] = True
        sigs = [self._consistency[v] for v in signers]
        return UnmaskRequest(
            run=self.run, step=4, survivors=self._survivors if survivors is None else survivors,
            signers=bitmap(members), signatures=sigs,
        )  # fmt: skip

    # -- the result ------------------------------------------------------------------------------
    def _receipt(self, total: np.ndarray, n_included: int) -> Aggregate:
        w = wire(total, self.cfg.dtype)
        sig = self.identity.sign(self._signed("aggregate", 0, w.data, str(n_included).encode()))
        return Aggregate(run=self.run, step=5, total=w, n_included=n_included, signature=sig)

