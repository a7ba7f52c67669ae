"""The full mesh against an active relay: key substitution by the hub or the board.

Every message of a full-mesh run passes through a relay (the TCP hub in a
deployment; in board mode, the board itself).  :class:`KeySubstitutingRelay`
replaces each party's advertised X25519 key with one of its own (one fake key
pair per party), opens every share it forwards with the fake key, re-encrypts
it to its receiver under the receiver's fake peer key, and from the shares and
the publications recovers every input:
``x_j = r_j - sum_{i != j} r_ij - r_jj`` with ``r_jj = -sum_{k != j} r_jk``
(the shares of each party sum to zero, Sec. 4.2 of Domingo-Ferrer & Soria-Comas).

:func:`mesh_cheat` plays it over seeded trials against our parties (signed
keys: the substituted key does not carry its owner's signature for this run)
and against :class:`TrustingMeshParty` (the broken variant: no signature check),
with a relay loop of its own (:func:`relay_run`): every message is handed to
the relay, which forwards it, possibly changed, as a hub would.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, Literal

import numpy as np

from mpc_rr.core import COORDINATOR, PeerError, ProtocolAbort, Role, Send, WireArray
from mpc_rr.secure_sum import SeededEntropy, crypto, simulated_pki
from mpc_rr.secure_sum.full_mesh import (
    BulletinBoard,
    FullMeshParty,
    MeshKey,
    MeshKeys,
    MeshPublish,
    MeshShare,
    share_aad,
    share_key,
)

__all__ = ["MESH_PROTOCOLS", "KeySubstitutingRelay", "TrustingMeshParty", "mesh_cheat", "relay_run"]

MESH_PROTOCOLS = {"full-mesh": "all-to-all", "full-mesh-board": "board"}
"""The cheat command's full-mesh protocols and their publication modes."""


class TrustingMeshParty(FullMeshParty):
    """BROKEN on purpose: takes any advertised key as its owner's (no signature check)."""

    def _genuine(self, owner: int, pk: bytes, signature: bytes) -> bool:
        return True


class KeySubstitutingRelay:
    """Forwards every message; substitutes keys and reads every share (module docstring)."""

    def __init__(self, n: int, cells: int, modulus: int, run: str, seed: int) -> None:
        self.n, self.cells, self.modulus, self.run = n, cells, modulus, run
        ent = SeededEntropy(seed, "relay")
        self._fake = {j: crypto.keypair(ent) for j in range(1, n + 1)}  # j -> (sk, pk) shown as j's
        self._real: dict[int, bytes] = {}
        self.shares: dict[tuple[int, int], np.ndarray] = {}  # (sender, receiver) -> residues
        self.published: dict[int, np.ndarray] = {}
        self.dtype = np.dtype(FullMeshParty(1, n, np.zeros(cells, np.int64)).wire_dtype)

    def forward(self, src: int, dst: int, msg: Any) -> Any:
        if isinstance(msg, MeshKey):
            self._real[src] = msg.pk
            if dst == COORDINATOR:  # board mode: the board is the relay's accomplice or itself
                return msg
            return MeshKey(pk=self._fake[src][1], run=msg.run, step=msg.step, signature=msg.signature)
        if isinstance(msg, MeshKeys):
            rows = msg.pks.to_numpy().copy()
            for j in range(1, self.n + 1):
                if j != dst:
                    rows[j - 1] = np.frombuffer(self._fake[j][1], np.uint8)
            return MeshKeys(pks=WireArray.from_numpy(rows), run=msg.run, step=msg.step, signatures=msg.signatures)
        if isinstance(msg, MeshShare) and src in self._real and dst in self._real:
            # src sealed it under (src's key, dst's fake key); dst opens it with (dst's key, src's fake key)
            k_in = share_key(crypto.agree(self._fake[dst][0], self._real[src]), self.run, src, dst)
            try:
                plain = crypto.decrypt(k_in, msg.ciphertext, share_aad(self.run, src, dst))
            except crypto.InvalidTag:
                return msg
            self.shares[(src, dst)] = np.frombuffer(plain, self.dtype).astype(np.uint64)
            k_out = share_key(crypto.agree(self._fake[src][0], self._real[dst]), self.run, src, dst)
            return MeshShare(ciphertext=crypto.encrypt(k_out, plain, share_aad(self.run, src, dst)),
                             run=msg.run, step=msg.step)  # fmt: skip
        if isinstance(msg, MeshPublish):
            self.published[src] = msg.value.to_numpy().astype(np.uint64)
        return msg

    def recovered(self) -> dict[int, np.ndarray]:
        """Each input the relay can compute from what it read (module docstring)."""
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


def relay_run(roles: Mapping[int, Role], relay: KeySubstitutingRelay, *, max_steps: int = 10**6) -> None:
    """Run ``roles`` to the end, FIFO, every message through ``relay.forward`` (a hub)."""
    queue: deque[tuple[int, Send]] = deque()
    for pid, first in roles.items():
        queue.extend((pid, s) for s in first.start())
    for _ in range(max_steps):
        if not queue:
            return
        src, send = queue.popleft()
        role = roles.get(send.dst)
        if role is None or role.done:
            continue
        msg = relay.forward(src, send.dst, send.msg)
        try:
            queue.extend((send.dst, s) for s in role.receive(src, msg))
        except (PeerError, ProtocolAbort):
            continue  # the role aborted (or refused the message): it says why in role.error


def mesh_cheat(protocol: str, *, broken: bool, n: int = 8, cells: int = 4, seed: int = 0,
               trials: int = 5) -> dict[str, Any]:  # fmt: skip
    """Key substitution against the full mesh over ``trials`` seeded runs (module docstring)."""
    publication: Literal["all-to-all", "board"] = "board" if MESH_PROTOCOLS[protocol] == "board" else "all-to-all"
    cls = TrustingMeshParty if broken else FullMeshParty
    rng = np.random.default_rng(seed)
    detections, recovered, total, culprits, wrong = 0, 0, 0, set(), 0
    for trial in range(trials):
        run = f"mesh-cheat-{seed}-{trial}"
        ids = simulated_pki(range(n + 1), SeededEntropy(seed, f"mesh-pki-{trial}"))
        x = rng.integers(0, 2, (n, cells))
        roles: dict[int, Role] = {
            j: cls(j, n, x[j - 1], publication=publication, run=run, identity=ids[j],
                   entropy=SeededEntropy(seed, f"mesh-{trial}-{j}"))
            for j in range(1, n + 1)
        }
        if publication == "board":
            roles[COORDINATOR] = BulletinBoard(n, cells, run=run, roster=ids[0].roster)
        modulus = roles[1].modulus  # type: ignore[attr-defined]
        relay = KeySubstitutingRelay(n, cells, modulus, run, seed * 1000 + trial)
        relay_run(roles, relay)
        honest = [roles[j] for j in range(1, n + 1)]
        named = {c for r in honest if r.error is not None for c in r.error.culprits}
        culprits |= named
        if any(r.error is not None for r in honest):
            detections += 1
        got = relay.recovered()
        recovered += sum(int(np.array_equal(v, x[j - 1])) for j, v in got.items())
        total += n
        wrong += sum(1 for r in honest if r.done and r.error is None and
                     not np.array_equal(r.result.total, x.sum(axis=0)))  # fmt: skip
    # a guess of each 0/1 vector from its marginal: the expected exact hits
    p = 0.5
    baseline = total * float(max(p, 1 - p) ** cells)
    return {
        "protocol": protocol, "strategy": "key-substitution", "side": "server",
        "variant": "broken" if broken else "ours", "trials": trials, "n": n,
        "detected": detections == trials, "detections": detections, "culprits": sorted(culprits),
        "culprit_named": COORDINATOR in culprits, "inputs_recovered": recovered, "inputs_total": total,
        "baseline": round(baseline, 3), "wrong_totals": wrong,
        "notes": [] if publication == "board" or broken else [
            "all-to-all has no relay among its parties: a receiver refuses the substituted key and "
            "names its apparent sender (it cannot tell a relay's substitution from a sender's forgery); "
            "board mode names the board"],
    }  # fmt: skip
