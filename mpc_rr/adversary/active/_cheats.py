"""Active cheaters against SecAgg+: a server and clients that deviate, and the broken variants.

Each cheater is a subclass of the real role that overrides one step (as
:mod:`mpc_rr.adversary._broken` does); each *broken* variant is a real role
with one protection switched off, so that every attack is shown to work where
the protection is missing and to be caught where it is not
(:func:`~mpc_rr.adversary.active.cheat` runs them).  Server strategies (the server
records what it learns in ``learned``: party -> recovered input vector):

* ``key-substitution`` -- replaces every neighbour key by its own and re-encrypts
  the shares it forwards (a man in the middle): learns every share;
* ``equivocate`` -- tells half of a target's neighbours that it dropped (they
  reveal shares of its mask key) and the others that it survived (shares of its
  self-mask seed): Bonawitz et al. 2017, Sec. 4;
* ``isolate`` -- tells everyone but the target's neighbours that those neighbours
  dropped, and the neighbours that they survived: the target's pairwise masks
  and its self-mask seed;
* ``replay`` -- substitutes the parties' signed keys of an earlier run, whose
  private halves leaked (e.g. as complaint evidence): learns every share;
* ``forge-shares`` -- replaces forwarded ciphertexts by garbage to provoke
  complaints, whose evidence (the complainer's key) opens every share it holds;
* ``withhold-shares`` -- forwards a target fewer than t shares, then declares
  those senders dropped;
* ``different-aggregates`` -- tells half the parties a different total.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec
import numpy as np

from mpc_rr.core import COORDINATOR, PeerError, Send, WireArray
from mpc_rr.secure_sum import SystemEntropy
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum import _shamir as shamir
from mpc_rr.secure_sum.secagg import (
    AdvertiseKeys,
    Aggregate,
    EncryptedShares,
    ForwardedShares,
    NeighborKeys,
    SecAggAbort,
    SecAggClient,
    SecAggServer,
    SignedShares,
    SurvivorSet,
    UnmaskRequest,
    UnmaskShares,
)
from mpc_rr.secure_sum.secagg._messages import bitmap, share_batch, share_digest

__all__ = [
    "CLIENT_STRATEGIES",
    "SERVER_STRATEGIES",
    "BlamingClient",
    "CheatingClient",
    "CheatingServer",
    "TrustingClient",
    "TrustingServer",
    "unmask_input",
]

SERVER_STRATEGIES = (
    "key-substitution", "equivocate", "isolate", "replay", "forge-shares", "withhold-shares",
    "different-aggregates",
)  # fmt: skip
CLIENT_STRATEGIES = ("forged-signature", "key-reuse", "bad-shares", "inconsistent-shares", "claim-sender")

_C = shamir.CHUNKS


def unmask_input(
    server: SecAggServer, u: int, y: np.ndarray, b: bytes, s_sks: Mapping[int, bytes],
    partners: list[int], partner_pk: Mapping[int, bytes] | None = None,
) -> np.ndarray | None:  # fmt: skip
    """``x_u = y_u - PRG(b_u) - sum_v sign(u, v) PRG(s_uv)`` mod R, as the client masked it.

    Each pairwise key comes from whichever end's mask key is known (``s_sks``); ``None``
    when a pair has neither.  ``partner_pk``: the mask keys ``u`` was shown (default: the
    advertised ones).
    """
    cfg, run = server.cfg, server.run
    plus: list[bytes] = [crypto.pair_key(b, "self", run, u, u)]
    minus: list[bytes] = []
    for v in partners:
        if u in s_sks:
            pk = partner_pk[v] if partner_pk is not None else server.ledger.s_pk[v].tobytes()
            shared = crypto.agree(s_sks[u], pk)
        elif v in s_sks:
            shared = crypto.agree(s_sks[v], server.ledger.s_pk[u].tobytes())
        else:
            return None
        key = crypto.pair_key(shared, "mask", run, min(u, v), max(u, v))
        (plus if v > u else minus).append(key)
    mask = crypto.signed_mask_sum(plus, minus, cfg.cells, cfg.modulus).astype(np.int64)
    out: np.ndarray = (y.astype(np.int64) - mask) % cfg.modulus
    return out


def _secret(holders: list[int], rows: list[np.ndarray], t: int) -> bytes | None:
    """The 32-byte secret of ``t`` Shamir shares (None: too few, or they do not decode)."""
    if len(holders) < t:
        return None
    xs = np.asarray(holders[:t], np.int64).reshape(1, t)
    ys = np.asarray(rows[:t], np.uint64).reshape(1, t, _C)
    try:
        return bytes(shamir.chunks_to_bytes(shamir.reconstruct(xs, ys))[0].tobytes())
    except Exception:  # inconsistent shares: nothing learned
        return None


class CheatingServer(SecAggServer):
    """The aggregator playing ``strategy`` against ``target`` (module docstring)."""

    def __init__(self, *args: Any, strategy: str, target: int = 1, fake_keys: Mapping[int, Any] | None = None,
                 fake_ads: Mapping[int, AdvertiseKeys] | None = None, **kw: Any) -> None:  # fmt: skip
        super().__init__(*args, **kw)
        self.strategy, self.target = strategy, target
        self.learned: dict[int, np.ndarray] = {}
        self._fake_sk: dict[int, Any] = dict(fake_keys or {})  # party -> the private key it substitutes
        self._fake_ads = dict(fake_ads or {})
        self._plain: dict[tuple[int, int], np.ndarray] = {}  # (owner, holder) -> share row
        self._ys: dict[int, np.ndarray] = {}
        self._reveals: dict[int, UnmaskShares] = {}
        self._evidence: dict[int, bytes] = {}
        if strategy == "key-substitution":
            sk, _ = crypto.keypair(SystemEntropy())
            self._fake_sk = {u: sk for u in range(1, self.cfg.n + 1)}

    # -- keys: substitution and replay --------------------------------------------------------
    def _send_neighbor_keys(self) -> list[Send]:
        out = super()._send_neighbor_keys()
        if not self._fake_sk and not self._fake_ads:
            return out
        # replay in a deployment: the recorded advertisements alone (their private halves unknown)
        fake = {u: a.c_pk for u, a in self._fake_ads.items()}
        fake |= {u: sk.public_key().public_bytes_raw() for u, sk in self._fake_sk.items()}
        rewritten = []
        for s in out:
            m: NeighborKeys = s.msg  # type: ignore[assignment]
            ids = m.ids.to_numpy().tolist()
            c_pks, s_pks = m.c_pks.to_numpy().copy(), m.s_pks.to_numpy().copy()
            commits = np.zeros((len(ids), 32), np.uint8) if m.commits is None else m.commits.to_numpy().copy()
            sigs = list(m.signatures)
            for k, v in enumerate(ids):
                if v in fake:
                    c_pks[k] = np.frombuffer(fake[v], np.uint8)
                ad = self._fake_ads.get(v)
                if ad is not None:  # replay: the earlier run's signed advertisement, whole
                    s_pks[k], commits[k] = np.frombuffer(ad.s_pk, np.uint8), np.frombuffer(ad.b_commit, np.uint8)
                    sigs[k] = ad.signature
            msg = msgspec.structs.replace(m, c_pks=WireArray.from_numpy(c_pks), s_pks=WireArray.from_numpy(s_pks),
                                          commits=WireArray.from_numpy(commits), signatures=sigs)  # fmt: skip
            rewritten.append(Send(s.dst, msg))
        return rewritten

    def _check_keys(self, src: int, msg: AdvertiseKeys) -> None:
        return None  # a cheating server does not care

    def _draw_opens(self, src: int, reveal: bytes) -> bool:
        return True  # nor about the draw's commitments (the parties check them)

    def _check_draw(self, *args: Any) -> None:
        return None

    def _check_shares(
        self, src: int, recipients: np.ndarray, cts: np.ndarray, signature: bytes, commitments: np.ndarray | None = None
    ) -> Any:
        return _unchecked_shares(super()._check_shares, src, recipients, cts, signature, commitments)

    # -- shares: read them (substitution), forge or withhold them --------------------------------
    def _forward_shares(self) -> list[Send]:
        out = super()._forward_shares()
        run, rewritten = self.run, []
        rng = np.random.default_rng(7)
        for s in out:
            m: ForwardedShares = s.msg  # type: ignore[assignment]
            senders = m.senders.to_numpy().astype(np.int64)
            cts = m.ciphertexts.to_numpy().copy()
            u = s.dst
            if self._fake_sk:
                for i, v in enumerate(senders.tolist()):
                    k_vu = crypto.enc_keys(crypto.agree(self._fake_sk[u], self.ledger.c_pk[v].tobytes()), run, v, u)[0]
                    aad = f"{run}/{v}/{u}".encode()
                    plain = crypto.decrypt(k_vu, cts[i].tobytes(), aad)
                    self._plain[(v, u)] = np.frombuffer(plain, np.uint32).astype(np.uint64)
                    k_new = crypto.enc_keys(crypto.agree(self._fake_sk[v], self.ledger.c_pk[u].tobytes()), run, v, u)[0]
                    cts[i] = np.frombuffer(crypto.encrypt(k_new, plain, aad), np.uint8)
            keep = np.ones(senders.size, bool)
            if self.strategy == "forge-shares":  # garbage in all but t of them: the victim goes on
                forged = np.arange(senders.size) >= min(self.cfg.threshold, senders.size - 1)
                cts[forged] = rng.integers(0, 256, cts[forged].shape, dtype=np.uint8)
            if self.strategy == "withhold-shares" and u == self.target:
                keep[self.cfg.threshold - 1 :] = False  # t - 1 shares: it masks with those only
                self._withheld = senders[keep]
                self.ledger.mask_sets[u] = senders[keep]
            msg = ForwardedShares(
                run=m.run, step=m.step, senders=WireArray.from_numpy(senders[keep].astype("<u4")),
                ciphertexts=WireArray.from_numpy(np.ascontiguousarray(cts[keep])),
            )  # fmt: skip
            rewritten.append(Send(u, msg))
        return rewritten

    # -- masked inputs: keep them; complaints' evidence is a key -------------------------------------
    def _on_masked(self, src: int, msg: Any) -> list[Send]:
        self._ys[src] = msg.y.to_numpy().astype(np.int64)
        if msg.evidence:
            self._evidence[src] = msg.evidence
        return super()._on_masked(src, msg)

    def _judge(self, *args: Any, **kw: Any) -> list[int]:
        return []  # a cheating server convicts nobody: it wants the run to go on

    # -- survivor sets: equivocation and isolation ------------------------------------------------
    def _request_unmask(self) -> list[Send]:
        if self.strategy == "forge-shares":  # the complaints' evidence is all it wanted
            self._learn()
            return self._stop()
        if self.strategy == "withhold-shares" and hasattr(self, "_withheld"):
            for v in self._withheld.tolist():
                self.alive[v] = False  # "they dropped": within the bound, consistently told
        out = super()._request_unmask()
        if self.strategy not in ("equivocate", "isolate") or self.done:
            return out
        j, members = self.target, self.ledger.inputs.copy()
        nb = self.graph.of(j)
        told: dict[int, bytes] = {}
        if self.strategy == "equivocate":
            gone = members.copy()
            gone[j] = False
            for i, v in enumerate(nb.tolist()):
                told[v] = bitmap(gone) if i % 2 == 0 else bitmap(members)
        else:
            gone = members.copy()
            gone[nb] = False
            for v in np.flatnonzero(members).tolist():
                told[v] = bitmap(members) if v in set(nb.tolist()) | {j} else bitmap(gone)
        self._told = told
        return [Send(s.dst, SurvivorSet(run=self.run, step=3, survivors=told.get(s.dst, self.ledger.survivors)))
                for s in out]  # fmt: skip

    def _check_consistency(self, src: int, msg: Any) -> bytes:
        sig: bytes = msg.signature
        return sig  # accepts a signature on whatever set it told that party

    def _request_unmask_shares(self) -> list[Send]:
        if self.strategy not in ("equivocate", "isolate"):
            return super()._request_unmask_shares()
        signed: dict[bytes, list[int]] = {}  # set -> the committee members that signed it
        for v in sorted(self.ledger.consistency):
            signed.setdefault(self._told.get(v, self.ledger.survivors), []).append(v)
        requests: dict[bytes, UnmaskRequest] = {}
        out = []
        for v in np.flatnonzero(self.alive).tolist():  # each party sees its own set and its signatures
            told = self._told.get(v, self.ledger.survivors)
            if told not in requests:
                requests[told] = self._unmask_request(signed.get(told, []), told)
            out.append(Send(v, requests[told]))
        return out

    # -- unmasking: keep the raw reveals, learn, then abort as if for dropouts ----------------------
    def _on_unmask(self, src: int, msg: UnmaskShares) -> list[Send]:
        self._reveals[src] = msg
        self.ledger.expect.discard(src)
        return []

    def _unmask_sum(self) -> list[Send]:
        self._learn()
        if self.strategy == "different-aggregates" or not self.learned:
            return self._honest_then_split() if self.strategy == "different-aggregates" else self._stop()
        return self._stop()

    def _stop(self) -> list[Send]:
        """Stop as an honest server would for dropouts: nobody is the wiser."""
        reason = "too many parties dropped out"
        self.abort(reason)
        msg = SecAggAbort(run=self.run, step=9, reason=reason)
        return [Send(u, msg) for u in range(1, self.cfg.n + 1)]

    def _honest_then_split(self) -> list[Send]:
        for src, msg in self._reveals.items():
            try:
                super()._on_unmask(src, msg)
            except Exception:
                pass
        out = super()._unmask_sum()
        wrong = self._receipt_of_plus_one()
        return [s if s.dst % 2 else Send(s.dst, wrong) for s in out]

    def _receipt_of_plus_one(self) -> Aggregate:
        total = (np.asarray(self.result.total) + 1) % self.cfg.modulus
        return self._receipt(total, self.result.n_included)

    def _receipt(self, total: np.ndarray, n_included: int) -> Aggregate:
        msg = super()._receipt(total, n_included)
        if not self.sign_receipts:  # the broken variant: an aggregate nobody can attribute
            msg = Aggregate(run=msg.run, step=msg.step, total=msg.total, n_included=n_included)
        return msg

    sign_receipts = True

    # -- what the server learns ------------------------------------------------------------------
    def _learn(self) -> None:
        t = self.cfg.threshold
        b_sh: dict[int, tuple[list[int], list[np.ndarray]]] = {}
        s_sh: dict[int, tuple[list[int], list[np.ndarray]]] = {}
        for (owner, holder), row in self._plain.items():  # read in transit (substitution)
            s_sh.setdefault(owner, ([], []))
            b_sh.setdefault(owner, ([], []))
            s_sh[owner][0].append(holder)
            s_sh[owner][1].append(row[:_C])
            b_sh[owner][0].append(holder)
            b_sh[owner][1].append(row[_C:])
        self._learn_from_evidence(b_sh, s_sh)
        for holder, r in self._reveals.items():
            for owners, shares, into in ((r.b_owners, r.b_shares, b_sh), (r.s_owners, r.s_shares, s_sh)):
                ids = owners.to_numpy().tolist()
                rows: Any = shares.to_numpy().reshape(len(ids), _C) if ids else []
                for i, o in enumerate(ids):
                    into.setdefault(o, ([], []))
                    if holder not in into[o][0]:
                        into[o][0].append(holder)
                        into[o][1].append(np.asarray(rows[i], np.uint64))
        s_keys = {o: k for o, (h, r) in s_sh.items() if (k := _secret(h, r, t)) is not None}
        old = {v: a.s_pk for v, a in self._fake_ads.items()} if self._fake_ads else None
        for u, y in self._ys.items():
            b = _secret(*b_sh.get(u, ([], [])), t)
            if b is None:
                continue
            partners = self.ledger.mask_sets.get(u, np.zeros(0, np.int64)).tolist()
            x = unmask_input(self, u, y, b, s_keys, partners, old)
            if x is not None:
                self.learned[u] = x

    def _learn_from_evidence(self, b_sh: dict[int, Any], s_sh: dict[int, Any]) -> None:
        """Open every share a complainer holds with the key it revealed."""
        run = self.run
        for u, key in self._evidence.items():
            sk = crypto.X25519PrivateKey.from_private_bytes(key)
            for v, held in self.ledger.shares.items():
                hit = np.flatnonzero(held.recipients == u)
                if not hit.size:
                    continue
                k_in = crypto.enc_keys(crypto.agree(sk, self.ledger.c_pk[v].tobytes()), run, u, v)[1]
                try:
                    row = np.frombuffer(crypto.decrypt(k_in, held.cts[hit[0]].tobytes(), f"{run}/{v}/{u}".encode()),
                                        np.uint32).astype(np.uint64)  # fmt: skip
                except crypto.InvalidTag:
                    continue
                for into, part in ((s_sh, row[:_C]), (b_sh, row[_C:])):
                    into.setdefault(v, ([], []))
                    into[v][0].append(u)
                    into[v][1].append(part)


def _unchecked_shares(
    check: Any, src: int, recipients: np.ndarray, cts: np.ndarray, signature: bytes, commitments: np.ndarray | None
) -> Any:
    """A party's shares as received, whether or not its signature holds."""
    try:
        return check(src, recipients, cts, signature, commitments)
    except PeerError:
        return SignedShares(recipients, cts, signature, commitments)


class CheatingClient(SecAggClient):
    """A data party playing a client ``strategy`` (:data:`CLIENT_STRATEGIES`)."""

    def __init__(self, *args: Any, strategy: str, earlier: SecAggClient | None = None, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.strategy, self._earlier = strategy, earlier

    def start(self) -> list[Send]:
        out = super().start()
        msg: AdvertiseKeys = out[0].msg  # type: ignore[assignment]
        if self.strategy == "forged-signature":
            msg = AdvertiseKeys(run=msg.run, step=0, c_pk=msg.c_pk, s_pk=msg.s_pk, b_commit=msg.b_commit,
                                draw_commit=msg.draw_commit, signature=bytes(64))  # fmt: skip
        elif self.strategy == "key-reuse" and self._earlier is not None:
            e = self._earlier
            self._c_sk, self._s_sk, self._b, self._r = e._c_sk, e._s_sk, e._b, e._r
            # its earlier keys and signature, in this run's envelope (a deployment's run label
            # carries the hub's nonce: the earlier run's label would not even be routed)
            msg = msgspec.structs.replace(e.sent_keys, run=msg.run)  # type: ignore[attr-defined]
        elif self.strategy == "claim-sender":  # its own keys, signed as party 1's
            sig = self.identity.sign(self._signed("keys", 1, msg.c_pk, msg.s_pk, msg.b_commit, msg.draw_commit))
            msg = AdvertiseKeys(run=msg.run, step=0, c_pk=msg.c_pk, s_pk=msg.s_pk, b_commit=msg.b_commit,
                                draw_commit=msg.draw_commit, signature=sig)  # fmt: skip
        self.sent_keys = msg
        return [Send(COORDINATOR, msg)]

    def _on_neighbor_keys(self, src: int, msg: NeighborKeys) -> list[Send]:
        out = super()._on_neighbor_keys(src, msg)
        m: EncryptedShares = out[0].msg  # type: ignore[assignment]
        self.sent_shares = m
        earlier_shares = getattr(self._earlier, "sent_shares", None)  # none: its earlier run stopped sooner
        if self.strategy == "key-reuse" and earlier_shares is not None:
            m = msgspec.structs.replace(earlier_shares, run=m.run)  # its own shares of an earlier run
        elif self.strategy == "bad-shares":
            cts = np.frombuffer(self.entropy.key(len(m.ciphertexts.data)), np.uint8).reshape(m.ciphertexts.shape)
            m = self._resign(m, cts)
        elif self.strategy == "inconsistent-shares":
            # shares of another seed than the committed one, encrypted and signed properly
            real_b, self._b = self._b, self.entropy.key(32)
            m = super()._on_neighbor_keys(src, msg)[0].msg  # type: ignore[assignment]
            self._b = real_b
        return [Send(COORDINATOR, m)]

    def _resign(self, m: EncryptedShares, cts: np.ndarray) -> EncryptedShares:
        root = share_digest(share_batch(m.recipients.to_numpy(), cts))
        sig = self.identity.sign(self._signed("shares", self.party_id, root))
        return EncryptedShares(run=m.run, step=1, recipients=m.recipients, ciphertexts=WireArray.from_numpy(cts),
                               signature=sig)  # fmt: skip


# -- broken variants: one protection off each -------------------------------------------------------


class TrustingClient(SecAggClient):
    """SecAgg+ client without the checks against the server: keys, share origin, survivor-set
    quorum and receipts are taken on the server's word (``unbound``: signatures without the
    run id, as a scheme that signs keys but not their context)."""

    unbound = False

    def _signed(self, round_: str, sender: int, *parts: bytes) -> bytes:
        run = self.run
        if self.unbound:
            self.run = ""
            if round_ == "keys":
                parts = parts[:3]  # the keys alone: no draw commitment binds them to this run either
        try:
            return super()._signed(round_, sender, *parts)
        finally:
            self.run = run

    @property
    def _draw_label(self) -> str:
        return "" if self.unbound else self.run

    def _forged_key(self, ids: list[int], *args: Any) -> int | None:
        if not self.unbound:
            return None
        c_pks, s_pks, commits, _draws, sigs = args
        for i, v in enumerate(ids):
            parts = (c_pks[i].tobytes(), s_pks[i].tobytes(), commits[i].tobytes())
            payload = self._signed("keys", v, *parts)
            if not self.roster.verify(v, sigs[i], payload):
                return v
        return None

    def _share_signed(self, *args: Any) -> bool:
        return True

    def _draw_unsigned(self, *args: Any) -> int | None:
        return None

    def _unproven_reveal(self, *args: Any) -> int | None:
        return None

    def _survivors_suspect(self, *args: Any) -> str:
        return ""

    def _inconsistent(self, msg: UnmaskRequest, members: np.ndarray) -> str:
        return ""

    def _receipt_ok(self, msg: Aggregate) -> bool:
        return True

    def _too_few_shares(self, m: int) -> bool:
        return m == 0  # no "at least t" check


class UnboundClient(TrustingClient):
    unbound = True


class BlamingClient(SecAggClient):
    """SecAgg+ client as it was before complaints: a share that does not open makes it leave
    blaming the aggregator (one bad client names every honest neighbour)."""

    def _share_signed(self, *args: Any) -> bool:
        self.abort(f"{self.name}: a share fails authentication", [COORDINATOR])
        return False


class TrustingServer(SecAggServer):
    """SecAgg+ aggregator that checks no signature and judges no complaint."""

    def _check_keys(self, src: int, msg: AdvertiseKeys) -> None:
        return None

    def _draw_opens(self, src: int, reveal: bytes) -> bool:
        return True

    def _check_draw(self, *args: Any) -> None:
        return None

    def _check_shares(
        self, src: int, recipients: np.ndarray, cts: np.ndarray, signature: bytes, commitments: np.ndarray | None = None
    ) -> Any:
        return _unchecked_shares(super()._check_shares, src, recipients, cts, signature, commitments)

    def _unmask_sum(self) -> list[Send]:
        import hashlib

        real = self.ledger.commit.copy()
        try:
            alive_b = np.flatnonzero(self.ledger.inputs)
            b = super()._reconstruct("b", alive_b)
            for i, u in enumerate(alive_b.tolist()):
                self.ledger.commit[u] = np.frombuffer(hashlib.sha256(b[i].tobytes()).digest(), np.uint8)
            return super()._unmask_sum()
        finally:
            self.ledger.commit = real
