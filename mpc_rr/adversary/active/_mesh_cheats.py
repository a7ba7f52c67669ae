"""The full mesh against an active relay or client: the cheaters and the broken variants.

Every message of a full-mesh run passes through a relay (the TCP hub in a
deployment; in board mode, the board itself, which is also the hub: a board
relay here plays the board's process after its role checked what came in).
Relay (server) strategies:

* ``key-substitution`` -- :class:`KeySubstitutingRelay` replaces each party's
  advertised X25519 key with one of its own (one fake key pair per party),
  opens every share it forwards with the fake key, re-encrypts it to its
  receiver under the receiver's fake peer key, and from the shares and the
  publications recovers every input:
  ``x_j = r_j - sum_{i != j} r_ij - r_jj`` with ``r_jj = -sum_{k != j} r_jk``
  (the shares of each party sum to zero, Sec. 4.2 of Domingo-Ferrer & Soria-Comas);
* ``replay`` -- the same relay, but the keys it shows are each party's key of
  an earlier run, with that party's genuine signature of that run, whose
  private halves leaked;
* ``forge-shares`` -- :class:`ShareForgingRelay` replaces the ciphertexts of the
  shares addressed to a target by random bytes, keeping each sender's signature
  and audit path (the target's total moves; the path no longer fits);
* ``withhold-shares`` -- :class:`ShareWithholdingRelay` drops them;
* ``different-aggregates`` -- :class:`AggregateSplittingRelay` shows half the
  parties a total one higher in cell 0 (all-to-all: it changes the last
  party's publication to them; board mode: the board's total to them).  The
  signed publications expose both: all-to-all receivers check each one, and
  the board's total comes with the signed publications it sums.

Client strategies (:class:`CheatingMeshParty`, party 3): ``forged-signature``
(its key with a zero signature), ``key-reuse`` (its key pair and signed key of
an earlier run), ``claim-sender`` (its own key, signed as party 1's),
``bad-shares`` (random ciphertexts instead of its shares, which it signs: it
is named alone).

Broken variants, one protection switched off each: :class:`TrustingMeshParty`
/ :class:`TrustingBoard` (no signature check on keys or publications, the
board's total taken on its word), :class:`RunlessMeshParty` /
:class:`RunlessBoard` (keys signed and checked without the run id), and
:class:`LenientMeshParty` (a share that fails authentication counts as zero).
:func:`~mpc_rr.adversary.active.mesh_cheat` plays them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any

import numpy as np
from msgspec.structs import replace

from mpc_rr.core import COORDINATOR, PeerError, ProtocolAbort, Role, Send, UsageError, WireArray
from mpc_rr.secure_sum import SeededEntropy
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum._identity import signed_payload
from mpc_rr.secure_sum.full_mesh import (
    BulletinBoard,
    FullMeshParty,
    MeshKey,
    MeshKeys,
    MeshPublish,
    MeshShare,
    MeshTotal,
)
from mpc_rr.secure_sum.full_mesh._messages import PROTOCOL, share_aad, share_key

__all__ = ["KeySubstitutingRelay", "TrustingMeshParty", "mesh_relay", "relay_run"]

# -- broken variants -------------------------------------------------------------------


class TrustingMeshParty(FullMeshParty):
    """BROKEN on purpose: takes any advertised key or publication as its sender's (no signature
    check) and the board's total on its word."""

    def _genuine(self, owner: int, pk: bytes, signature: bytes) -> bool:
        return True

    def _genuine_publication(self, owner: int, residues: bytes, signature: bytes) -> bool:
        return True

    def _board_total(self, src: int, msg: MeshTotal) -> np.ndarray:
        return self._read(msg.total, src, "total")  # the board's word, unchecked


class TrustingBoard(BulletinBoard):
    """BROKEN on purpose: the board lists any key as its sender's (no signature check)."""

    def _genuine(self, owner: int, pk: bytes, signature: bytes) -> bool:
        return True


class RunlessMeshParty(FullMeshParty):
    """BROKEN on purpose: signs and checks keys without the run id (a key signed once serves every run)."""

    def start(self) -> list[Send]:
        out = super().start()
        sig = self.identity.sign(signed_payload(PROTOCOL, "", "keys", self.party_id, self.pk))
        msg = MeshKey(pk=self.pk, run=self.run, step=1, signature=sig)
        return [Send(s.dst, msg) for s in out]

    def _genuine(self, owner: int, pk: bytes, signature: bytes) -> bool:
        return self.identity.roster.verify_signed(PROTOCOL, "", "keys", owner, signature, pk)


class RunlessBoard(BulletinBoard):
    """BROKEN on purpose: the board of :class:`RunlessMeshParty` (checks keys without the run id)."""

    def _genuine(self, owner: int, pk: bytes, signature: bytes) -> bool:
        return self.roster.verify_signed(PROTOCOL, "", "keys", owner, signature, pk)


class LenientMeshParty(FullMeshParty):
    """BROKEN on purpose: a share that fails authentication counts as zero instead of aborting."""

    def _unseal(self, key: bytes, ciphertext: bytes, aad: bytes) -> bytes:
        try:
            return super()._unseal(key, ciphertext, aad)
        except crypto.InvalidTag:
            return bytes(self.cells * self.dtype.itemsize)


# -- the cheating client -----------------------------------------------------------------

CLIENT_CHEATS = ("forged-signature", "key-reuse", "bad-shares", "claim-sender")


class CheatingMeshParty(FullMeshParty):
    """A data party playing a client ``strategy`` (module docstring) against its peers.

    ``earlier``: ``(sk, pk, signature)`` of its key of an earlier run (``key-reuse``).
    """

    def __init__(self, *args: Any, strategy: str,
                 earlier: tuple[crypto.X25519PrivateKey, bytes, bytes] | None = None, **kw: Any) -> None:  # fmt: skip
        super().__init__(*args, **kw)
        self.strategy, self._earlier = strategy, earlier

    def _genuine(self, owner: int, pk: bytes, signature: bytes) -> bool:
        return True  # a cheater takes whatever keys it is shown: its peers' checks are under test

    def start(self) -> list[Send]:
        out = super().start()
        sig = out[0].msg.signature  # type: ignore[attr-defined]
        if self.strategy == "forged-signature":
            sig = bytes(64)
        elif self.strategy == "key-reuse" and self._earlier is not None:
            self._sk, self.pk, sig = self._earlier
            self._pks[self.party_id] = self.pk
        elif self.strategy == "claim-sender":  # its own key, signed as party 1's
            sig = self.identity.sign(signed_payload(PROTOCOL, self.run, "keys", 1, self.pk))
        msg = MeshKey(pk=self.pk, run=self.run, step=1, signature=sig)
        return [Send(s.dst, msg) for s in out]

    def _seal(self, key: bytes, plaintext: bytes, aad: bytes) -> bytes:
        if self.strategy == "bad-shares":
            return self.entropy.key(len(plaintext) + 16)
        return super()._seal(key, plaintext, aad)


# -- relays ----------------------------------------------------------------------------------


class MeshRelay:
    """An honest relay: forwards every message as it is (the base of the cheating ones)."""

    def forward(self, src: int, dst: int, msg: Any) -> Any | None:
        """The message delivered to ``dst`` (``None``: dropped)."""
        return msg

    def recovered(self) -> dict[int, np.ndarray]:
        """Each input the relay computed (party -> input vector)."""
        return {}


class KeySubstitutingRelay(MeshRelay):
    """Forwards every message; substitutes keys and reads every share (module docstring).

    ``fakes``: party -> ``(sk, pk, signature)`` shown as that party's key (``replay``:
    its earlier run's key and signature); default: a fresh key pair per party, shown
    with the party's real signature.
    """

    def __init__(self, n: int, cells: int, modulus: int, run: str, seed: int,
                 fakes: Mapping[int, tuple[crypto.X25519PrivateKey, bytes, bytes]] | None = None) -> None:  # fmt: skip
        self.n, self.cells, self.modulus, self.run = n, cells, modulus, run
        if fakes is None:
            ent = SeededEntropy(seed, "relay")
            fakes = {j: (*crypto.keypair(ent), b"") for j in range(1, n + 1)}
        self._fake = dict(fakes)  # j -> (sk, pk, signature or b"": keep the real one) shown as j's
        self._real: dict[int, bytes] = {}
        self.shares: dict[tuple[int, int], np.ndarray] = {}  # (sender, receiver) -> residues
        self.published: dict[int, np.ndarray] = {}
        self.dtype = np.dtype(FullMeshParty(1, n, np.zeros(cells, np.int64)).wire_dtype)

    def forward(self, src: int, dst: int, msg: Any) -> Any | None:
        if isinstance(msg, MeshKey):
            self._real[src] = msg.pk
            if dst == COORDINATOR:  # board mode: the board is the relay's accomplice or itself
                return msg
            _, pk, sig = self._fake[src]
            return MeshKey(pk=pk, run=msg.run, step=msg.step, signature=sig or msg.signature)
        if isinstance(msg, MeshKeys):
            rows, sigs = msg.pks.to_numpy().copy(), list(msg.signatures)
            for j in range(1, self.n + 1):
                if j != dst:
                    _, pk, sig = self._fake[j]
                    rows[j - 1] = np.frombuffer(pk, np.uint8)
                    sigs[j - 1] = sig or sigs[j - 1]
            return MeshKeys(pks=WireArray.from_numpy(rows), run=msg.run, step=msg.step, signatures=sigs)
        if isinstance(msg, MeshShare) and dst != COORDINATOR:
            # board mode: re-encrypted as the board passes it on (after its check, on its way out)
            src = msg.peer if src == COORDINATOR else src
            if src not in self._real or dst not in self._real:
                return msg
            # src sealed it under (src's key, dst's fake key); dst opens it with (dst's key, src's fake key)
            k_in = share_key(crypto.agree(self._fake[dst][0], self._real[src]), self.run, src, dst)
            try:
                plain = crypto.decrypt(k_in, msg.ciphertext, share_aad(self.run, src, dst))
            except crypto.InvalidTag:
                return msg
            self.shares[(src, dst)] = np.frombuffer(plain, self.dtype).astype(np.uint64)
            k_out = share_key(crypto.agree(self._fake[src][0], self._real[dst]), self.run, src, dst)
            return replace(msg, ciphertext=crypto.encrypt(k_out, plain, share_aad(self.run, src, dst)))
        if isinstance(msg, MeshPublish):
            self.published[src] = msg.value.to_numpy().astype(np.uint64)
        return msg

    def recovered(self) -> dict[int, np.ndarray]:
        m, out = np.uint64(self.modulus), {}
        for j, r_j in self.published.items():
            try:
                incoming = np.sum([self.shares[(i, j)] for i in range(1, self.n + 1) if i != j], axis=0)
                outgoing = np.sum([self.shares[(j, k)] for k in range(1, self.n + 1) if k != j], axis=0)
            except KeyError:  # a share it did not read
                continue
            r_jj = (m - outgoing % m) % m  # unsigned: m - a, never -a
            out[j] = (r_j + 2 * m - incoming % m - r_jj) % m
        return out


class ShareForgingRelay(MeshRelay):
    """Replaces every share delivered to ``target`` by random bytes of the same length (the
    sender's signature and path kept: the best a relay without the sender's key can do)."""

    def __init__(self, target: int, rng: np.random.Generator) -> None:
        self.target, self.rng = target, rng

    def forward(self, src: int, dst: int, msg: Any) -> Any | None:
        if isinstance(msg, MeshShare) and dst == self.target:
            junk = self.rng.integers(0, 256, len(msg.ciphertext), dtype=np.uint8).tobytes()
            return replace(msg, ciphertext=junk)
        return msg


class ShareWithholdingRelay(MeshRelay):
    """Drops every share delivered to ``target`` (board mode: on its way out of the board)."""

    def __init__(self, target: int) -> None:
        self.target = target

    def forward(self, src: int, dst: int, msg: Any) -> Any | None:
        return None if isinstance(msg, MeshShare) and dst == self.target else msg


class AggregateSplittingRelay(MeshRelay):
    """Shows the parties in ``fooled`` a total one higher in cell 0 (module docstring)."""

    def __init__(self, n: int, modulus: int, fooled: set[int]) -> None:
        self.n, self.modulus, self.fooled = n, modulus, fooled

    def _bumped(self, w: WireArray) -> WireArray:
        a = w.to_numpy().copy()
        a[0] = (int(a[0]) + 1) % self.modulus
        return WireArray.from_numpy(a)

    def forward(self, src: int, dst: int, msg: Any) -> Any | None:
        if dst not in self.fooled:
            return msg
        if isinstance(msg, MeshPublish) and src == self.n:
            return replace(msg, value=self._bumped(msg.value))
        if isinstance(msg, MeshTotal):
            return replace(msg, total=self._bumped(msg.total))
        return msg


def relay_run(roles: Mapping[int, Role], relay: MeshRelay, *, max_steps: int = 10**6) -> None:
    """Run ``roles`` to the end, FIFO, every message through ``relay.forward`` (a hub).

    When nothing is left to deliver, a deadline passes for every role still
    running (``on_timeout``, up to its patience): a silent party makes it abort
    naming the parties it waits for, as a driver's deadline would.
    """
    queue: deque[tuple[int, Send]] = deque()
    for pid, first in roles.items():
        queue.extend((pid, s) for s in first.start())
    idle = 0
    for _ in range(max_steps):
        if not queue:
            waiting = [(pid, r) for pid, r in roles.items() if not r.done]
            idle += 1
            if not waiting or idle > max(r.patience for _, r in waiting):
                return
            for pid, r in waiting:
                queue.extend((pid, s) for s in r.on_timeout())
            continue
        idle = 0
        src, send = queue.popleft()
        role = roles.get(send.dst)
        if role is None or role.done:
            continue
        msg = relay.forward(src, send.dst, send.msg)
        if msg is None:
            continue
        try:
            queue.extend((send.dst, s) for s in role.receive(src, msg))
        except (PeerError, ProtocolAbort):
            continue  # the role aborted (or refused the message): it says why in role.error


def mesh_relay(strategy: str, *, n: int, cells: int, run: str, seed: int = 0, target: int = 1) -> MeshRelay:
    """The relay that plays server ``strategy`` on an ``n``-party full-mesh run ``run`` (a deployed
    hub's too: :mod:`scenarios.workloads.hostile_hub`): ``key-substitution``, ``forge-shares`` and
    ``withhold-shares`` (the shares to ``target``), ``different-aggregates`` (half the parties);
    ``replay`` needs an earlier run's keys (:func:`~mpc_rr.adversary.active.mesh_cheat` plays it)."""
    modulus = n + 1  # the full mesh's modulus (Sec. 4.2)
    if strategy == "key-substitution":
        return KeySubstitutingRelay(n, cells, modulus, run, seed)
    if strategy == "forge-shares":
        return ShareForgingRelay(target, np.random.default_rng(seed))
    if strategy == "withhold-shares":
        return ShareWithholdingRelay(target)
    if strategy == "different-aggregates":
        return AggregateSplittingRelay(n, modulus, set(range(1, n // 2 + 1)))
    raise UsageError(f"mesh_relay: no relay plays {strategy!r} on its own; one of key-substitution, "
                     "forge-shares, withhold-shares, different-aggregates")  # fmt: skip
