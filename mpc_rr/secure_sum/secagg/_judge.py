"""The aggregator's checks against active parties: signatures, complaints, the consistency round.

Pure functions over the aggregator's ledger (:class:`~mpc_rr.secure_sum.secagg._ledger.ServerLedger`)
that :class:`~mpc_rr.secure_sum.secagg.SecAggServer` calls; each either returns its
verdict or raises :class:`~mpc_rr.core.PeerError` naming the party.  What each check
establishes:

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

from mpc_rr.core import Message, PeerError
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum import _shamir as shamir
from mpc_rr.secure_sum._identity import Identity, Roster, default_identity, signed_payload
from mpc_rr.secure_sum.secagg._ledger import ServerLedger, SignedShares
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
    ShareProofs,
    UnmaskRequest,
    bitmap,
    read_ids,
    share_batch,
    share_commitments,
    share_digest,
    wire,
)
from mpc_rr.secure_sum.secagg._params import SecAggConfig

__all__ = [
    "SecAggPrecheck",
    "SignedShares",
    "check_consistency",
    "check_draw",
    "check_keys",
    "check_shares",
    "judge_complaint",
    "receipt",
    "share_proofs",
    "unmask_request",
]


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


def _signed(run: str, round_: str, sender: int, *parts: bytes) -> bytes:
    return signed_payload(PROTOCOL, run, round_, sender, *parts)


# -- round 0 ---------------------------------------------------------------------------------
def check_keys(roster: Roster, run: str, name: str, src: int, msg: AdvertiseKeys) -> None:
    """The signature of ``src`` on its keys and commitments for this run (else PeerError)."""
    payload = _signed(run, "keys", src, msg.c_pk, msg.s_pk, msg.b_commit, msg.draw_commit)
    if not roster.verify(src, msg.signature, payload):
        raise PeerError(
            f"{name}: the keys of party {src} do not carry its signature for this run "
            "(forged, replayed or claiming another sender)",
            src,
        )


def check_draw(roster: Roster, run: str, name: str, src: int, msg: DrawReveal, digest: bytes) -> None:
    """The reveal's signature on the draw digest the server sent (its neighbours check it too)."""
    if not roster.verify(src, msg.signature, _signed(run, "draw", src, digest)):
        raise PeerError(f"{name}: party {src}'s signature is not on the draw's commitment set", src)


# -- round 1 ---------------------------------------------------------------------------------
def check_shares(
    roster: Roster, run: str, name: str, src: int, recipients: np.ndarray, cts: np.ndarray, signature: bytes,
    commitments: np.ndarray | None = None,
) -> SignedShares:  # fmt: skip
    """The batch of ``src`` (with its commitments, in a retry) and its signature on the
    batch's digest (else PeerError)."""
    root = share_digest(share_batch(recipients, cts, commitments))
    if not roster.verify(src, signature, _signed(run, "shares", src, root)):
        raise PeerError(f"{name}: the shares of party {src} do not carry its signature", src)
    return SignedShares(recipients, cts, signature, commitments)


# -- complaints (with the masked input) --------------------------------------------------------
def judge_complaint(ledger: ServerLedger, run: str, src: int, msg: MaskedInput, forwarded: AbstractSet[int]) -> list[int]:
    """The parties ``src``'s complaint convicts (the accused, or ``src`` itself if it lied);
    ``forwarded``: the senders whose shares ``src`` was forwarded."""
    if msg.accused is None:
        return []
    accused = read_ids(msg.accused, src, "accused", at_most=len(forwarded)).tolist()
    if not accused:
        return []
    if len(set(accused)) != len(accused) or not set(accused) <= forwarded:
        return [src]
    if len(msg.evidence) != 32:
        return [src]
    c_pk = ledger.c_pk
    sk = crypto.X25519PrivateKey.from_private_bytes(msg.evidence)
    if sk.public_key().public_bytes_raw() != c_pk[src].tobytes():
        return [src]  # not the key it signed: a lie
    guilty = []
    for v in accused:
        held = ledger.shares[v]
        row = int(np.searchsorted(held.recipients, src))
        ct = held.cts[row].tobytes()
        try:
            _, k_in = crypto.enc_keys(crypto.agree(sk, c_pk[v].tobytes()), run, src, v)
            plain = np.frombuffer(crypto.decrypt(k_in, ct, f"{run}/{v}/{src}".encode()), SHARE)
            opens = plain.size == 2 * shamir.CHUNKS and int(plain.max()) < shamir.PRIME
            if opens and held.commitments is not None:  # and matches what v committed to
                opens = bool(np.array_equal(share_commitments(run, v, src, plain)[0], held.commitments[row]))
        except (crypto.InvalidTag, crypto.InvalidPublicKey):
            opens = False
        if opens:
            return [src]  # the share opens under the true key: the complainer lied
        guilty.append(v)
    return guilty


def share_proofs(ledger: ServerLedger, run: str, senders: list[int]) -> ShareProofs:
    """What a complainer asked for: each sender's signature and the batch it signed
    (Round 1, on request: the common run sends none)."""
    shares = ledger.shares
    return ShareProofs(
        run=run, step=2, senders=wire(np.asarray(senders), IDS),
        signatures=[shares[v].signature for v in senders],
        batches=[share_batch(shares[v].recipients, shares[v].cts, shares[v].commitments) for v in senders],
    )  # fmt: skip


# -- round 3: consistency -------------------------------------------------------------------------
def check_consistency(roster: Roster, run: str, name: str, src: int, msg: ConsistencySig, survivors: bytes) -> bytes:
    """The signature of committee member ``src`` on the survivor set it was shown."""
    if not roster.verify(src, msg.signature, _signed(run, "consistency", src, survivors)):
        raise PeerError(f"{name}: party {src}'s signature is not on the survivor set", src)
    return msg.signature


def unmask_request(ledger: ServerLedger, run: str, signers: list[int], survivors: bytes | None = None) -> UnmaskRequest:
    """The survivor set (default: the one the committee was shown) with ``signers``'
    signatures on it."""
    members = np.zeros(ledger.n + 1, bool)
    members[signers] = True
    sigs = [ledger.consistency[v] for v in signers]
    return UnmaskRequest(
        run=run, step=4, survivors=ledger.survivors if survivors is None else survivors,
        signers=bitmap(members), signatures=sigs,
    )  # fmt: skip


# -- the result --------------------------------------------------------------------------------------
def receipt(identity: Identity, cfg: SecAggConfig, total: np.ndarray, n_included: int) -> Aggregate:
    """The total, signed by the aggregator with the number of inputs it counts."""
    w = wire(total, cfg.dtype)
    sig = identity.sign(_signed(cfg.run, "aggregate", 0, w.data, str(n_included).encode()))
    return Aggregate(run=cfg.run, step=5, total=w, n_included=n_included, signature=sig)
