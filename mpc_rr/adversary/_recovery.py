"""Recovering one party's input in a secure sum: the curious aggregator, coalitions, the hub.

Threat models (``docs/adversary.md``):

* **curious aggregator** -- the SecAgg+ server (party 0) follows the protocol
  and then computes whatever it can from what it received and sent
  (``view.of(0)``); it learns the sum only, unless the protocol is broken;
* **coalition** -- ``C`` colluding data parties (plus the server in SecAgg+)
  pool their views and their role states (:func:`member_state`: inputs,
  private keys, self-mask seeds, the Shamir shares they hold).  SecAgg+
  promises that fewer than ``t`` colluding neighbours of a party learn
  nothing beyond the sum; the Sec. 4.2 full mesh promises it for up to
  ``n - 2`` parties;
* **eavesdropper at a plaintext hub** -- the memory network, or a TCP relay
  that terminates TLS, sees every payload (``observe(tap, codec)``): in the
  full mesh, public keys, encrypted shares and the publications.

The attack (one for every protocol and observer) builds, for each target,
the candidate input the view allows: the plaintext value (plainsum); the
published ``r_i`` minus every share of ``i`` the view can read (full mesh:
``x_i = r_i - sum_k r_ki + sum_j r_ij mod m``, since ``r_ii = -sum_j r_ij``; a
share is read when a member is one of its ends -- its private key and the
other end's public key give the pairwise key -- and, as a second hypothesis,
every other share is read as if it had been sent in the clear);
the masked input minus every mask whose seed or key the view yields
(SecAgg+: ``b_u`` from ``t`` shares of it -- the server receives them for every
survivor --, pairwise keys from ``s_sk`` of either end: a member's own, or
rebuilt from ``t`` Shamir shares the coalition holds).  Unknown terms are
left in (and, for SecAgg+, the hypothesis that no pairwise mask was applied at
all is tried too).  Inputs are one-hot vectors (one cell per party, the counting the
framework does with secure sums), so a candidate with an unknown uniform
mask left in is almost never one-hot: a one-hot candidate that fits in the
sum is taken as recovered; otherwise the attacker falls back on what the *ideal*
functionality gives it -- the sum minus the coalition's own inputs, whose
largest cell it guesses.  That guess's success is the **baseline**; the
protocol is private exactly when the attack sits there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpc_rr.core import DecodeError, Role, UsageError, get_protocol
from mpc_rr.core._views import View
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum import _shamir as shamir
from mpc_rr.secure_sum._entropy import smallest_uint
from mpc_rr.secure_sum.full_mesh import SPEC as MESH
from mpc_rr.secure_sum.full_mesh import (
    FullMeshParty,
    MeshKey,
    MeshKeys,
    MeshPublish,
    MeshShare,
    MeshTotal,
)
from mpc_rr.secure_sum.full_mesh._messages import TAG_LEN, open_share
from mpc_rr.secure_sum.plainsum import SPEC as PLAINSUM
from mpc_rr.secure_sum.plainsum import PlainTotal, PlainValue
from mpc_rr.secure_sum.secagg import (
    SecAggClient,
)

__all__ = [
    "MemberState",
    "Recovery",
    "RecoveryResult",
    "member_state",
    "one_hot_cell",
    "recover",
    "recover_full_mesh",
    "recover_plainsum",
]


_NO_IDS = np.zeros(0, np.int64)
_NO_SHARES = np.zeros((0, 2 * shamir.CHUNKS), np.uint64)


@dataclass(frozen=True)
class MemberState:
    """What a colluding party brings besides its messages (its role state).

    ``x``: its input.  SecAgg+ only: ``s_sk`` (raw X25519 mask key), ``b``
    (self-mask seed), and the Shamir shares it holds: ``holders[i]`` owns row
    ``held[i]`` (first :data:`~mpc_rr.secure_sum.CHUNKS` field elements:
    a share of ``s_sk``, the rest: of ``b``).  Full mesh only: ``share_sk``
    (raw X25519 key of its share encryption: it reads the shares it sent and
    received).
    """

    party: int
    x: np.ndarray | None = None
    s_sk: bytes | None = None
    b: bytes | None = None
    holders: np.ndarray = field(default_factory=lambda: _NO_IDS)
    held: np.ndarray = field(default_factory=lambda: _NO_SHARES)
    share_sk: bytes | None = None


def member_state(role: Role) -> MemberState:
    """The state a colluding party hands to its coalition (after or during a run).

    Reads the role's input and its secrets through the roles' own accessors
    (``SecAggClient.coalition_secrets``, ``FullMeshParty.share_key_bytes``); a
    :class:`~mpc_rr.core.DropAt` wrapper is looked through.  Raises
    :class:`UsageError` for a role type it does not know.
    """
    inner = getattr(role, "inner", role)
    x = getattr(inner, "x", None)
    xs = None if x is None else np.asarray(x).astype(np.int64)
    if isinstance(inner, SecAggClient):
        s_sk, b, holders, held = inner.coalition_secrets()
        return MemberState(inner.party_id, xs, s_sk, b, holders, held)
    if isinstance(inner, FullMeshParty):
        return MemberState(inner.party_id, xs, share_sk=inner.share_key_bytes())
    if xs is not None:
        return MemberState(inner.party_id, xs)
    raise UsageError(f"member_state: no known state for {type(inner).__name__}")


def one_hot_cell(v: np.ndarray) -> int | None:
    """The cell of a one-hot vector, or ``None`` if ``v`` is not one-hot."""
    a = np.asarray(v)
    nz = np.flatnonzero(a)
    if nz.size != 1 or a[nz[0]] != 1:
        return None
    return int(nz[0])


@dataclass(frozen=True)
class Recovery:
    """The attack's output (no ground truth in it).

    ``recovered``: target -> cell, for every target whose candidate was one-hot;
    ``fallback``: the cell guessed for every other target (largest cell of the
    sum minus the coalition's inputs, ``-1`` when the view holds no sum);
    ``honest_sum``: that vector (``None`` without a sum); ``threshold``: the
    collusion bound the run declared (SecAgg+ ``t``; full mesh ``n - 1``).
    """

    protocol: str
    observer: str
    coalition: tuple[int, ...]
    recovered: Mapping[int, int]
    fallback: int
    honest_sum: np.ndarray | None
    threshold: int | None

    def guess(self, party: int) -> int:
        return self.recovered.get(party, self.fallback)


@dataclass(frozen=True)
class RecoveryResult:
    """A recovery attack scored against the truth.

    ``success``: share of targets whose input the attacker guessed right;
    ``baseline``: what the ideal functionality allows (the expected success of
    guessing the largest cell of the honest parties' sum); ``recovery_rate``:
    share of targets whose input the view determined (a one-hot candidate);
    ``ci`` / ``recovery_ci``: Clopper-Pearson intervals.
    """

    protocol: str
    observer: str
    coalition: tuple[int, ...]
    coalition_size: int
    targets: int
    correct: int
    recovered: int
    wrong_recoveries: int
    success: float
    baseline: float
    ci: tuple[float, float]
    recovery_rate: float
    recovery_ci: tuple[float, float]
    threshold: int | None
    confidence: float

    @property
    def leaks(self) -> bool:
        """Some input was determined by the view beyond what the sum allows."""
        return self.recovered > 0 and self.success > self.baseline

    def to_dict(self) -> dict[str, object]:
        return {
            "protocol": self.protocol,
            "observer": self.observer,
            "coalition": list(self.coalition),
            "coalition_size": self.coalition_size,
            "targets": self.targets,
            "correct": self.correct,
            "recovered": self.recovered,
            "wrong_recoveries": self.wrong_recoveries,
            "success": self.success,
            "baseline": self.baseline,
            "ci": list(self.ci),
            "recovery_rate": self.recovery_rate,
            "recovery_ci": list(self.recovery_ci),
            "threshold": self.threshold,
            "confidence": self.confidence,
            "leaks": self.leaks,
        }


def _members(members: Mapping[int, MemberState] | Iterable[MemberState]) -> dict[int, MemberState]:
    if isinstance(members, Mapping):
        return dict(members)
    return {m.party: m for m in members}


def _finish(
    protocol: str,
    view: View,
    members: dict[int, MemberState],
    candidates: Mapping[int, np.ndarray],
    total: np.ndarray | None,
    threshold: int | None,
) -> Recovery:
    honest = None
    fallback = -1
    if total is not None:
        honest = np.asarray(total, np.int64).copy()
        for m in members.values():
            if m.x is not None and m.x.shape == honest.shape:
                honest -= m.x
        fallback = int(np.argmax(honest))
    recovered = {}
    for u, c in candidates.items():
        if u in members:
            continue
        cell = one_hot_cell(c)
        # a candidate must also fit in the sum of the honest inputs
        if cell is not None and (honest is None or honest[cell] > 0):
            recovered[u] = cell
    return Recovery(
        protocol, view.observer, tuple(sorted(members)), recovered, fallback, honest, threshold
    )


def recover_plainsum(
    view: View,
    members: Mapping[int, MemberState] | Iterable[MemberState] = (),
    *,
    public: object = None,
) -> Recovery:
    """Plaintext sum: the candidate of party ``i`` is the value it sent (if seen).

    ``public`` (the run's public parameters) is accepted as every recovery takes it."""
    mem = _members(members)
    cands = {s.src: m.x.to_numpy().astype(np.int64) for s, m in view.select(PlainValue)}
    tot = view.first(PlainTotal)
    total = tot.total.to_numpy().astype(np.int64) if tot is not None else None
    return _finish(PLAINSUM.name, view, mem, cands, total, None)


def _mesh_public_keys(view: View) -> dict[int, bytes]:
    """Every party's public key the view holds (sent to a party, to the board, or the board's list)."""
    pks: dict[int, bytes] = {}
    for s, k in view.select(MeshKey):
        pks.setdefault(s.src, k.pk)
    for _, kl in view.select(MeshKeys):
        try:
            rows = kl.pks.to_numpy(dtype=np.uint8)
        except DecodeError:
            continue
        if rows.ndim == 2 and rows.shape[1] == 32:
            for j, row in enumerate(rows, 1):
                pks.setdefault(j, row.tobytes())
    return pks


def _read_share(
    msg: MeshShare, src: int, dst: int, members: Mapping[int, MemberState], pks: Mapping[int, bytes]
) -> bytes | None:
    """The plaintext of a share, when a member is one of its ends (its key + the other's)."""
    for me, peer in ((src, dst), (dst, src)):
        sk = members[me].share_sk if me in members else None
        if sk is None or peer not in pks:
            continue
        try:
            return open_share(sk, pks[peer], msg.ciphertext, run=msg.run, sender=src, receiver=dst)
        except (crypto.InvalidTag, crypto.InvalidPublicKey):
            return None
    return None


def recover_full_mesh(
    view: View,
    members: Mapping[int, MemberState] | Iterable[MemberState] = (),
    *,
    n: int | None = None,
    modulus: int | None = None,
    public: Any = None,
) -> Recovery:
    """Sec. 4.2 full mesh: ``x_i = r_i - sum_{k != i} r_ki + sum_{j != i} r_ij (mod m)``.

    A share enters the formula when a member can decrypt it (it sent or received
    it); every other share is left out (a uniform residue stays in the
    candidate).  Second hypothesis, tried too: the shares the members cannot
    decrypt were sent in the clear (the ciphertext's body read as residues) --
    against real encryption it yields noise, against a protocol that forgot to
    encrypt every input.  ``n``: data parties; ``modulus`` defaults to ``n + 1``;
    or ``public``, the run's public parameters, which hold both.
    """
    if public is not None:
        n, modulus = public.n, public.modulus
    if n is None:
        raise UsageError("recover_full_mesh: n (or the run's public parameters) is required")
    mem = _members(members)
    m = np.int64(modulus if modulus is not None else n + 1)
    wire = smallest_uint(int(m)).newbyteorder("<")
    pks = _mesh_public_keys(view)
    pub: dict[int, np.ndarray] = {}
    for s, pm in view.select(MeshPublish):
        pub.setdefault(s.src, pm.value.to_numpy().astype(np.int64))
    cells = next(iter(pub.values())).size if pub else 0
    known: tuple[dict[int, np.ndarray], dict[int, np.ndarray]] = ({}, {})  # into, out of
    clear: tuple[dict[int, np.ndarray], dict[int, np.ndarray]] = ({}, {})
    seen_pairs: set[tuple[int, int]] = set()
    for s, msg in view.select(MeshShare):
        # board mode: a share goes to the board (peer: its receiver) and on (peer: its sender)
        src, dst = (s.src, msg.peer) if s.dst == 0 else (msg.peer, s.dst) if s.src == 0 else (s.src, s.dst)
        if (src, dst) in seen_pairs:
            continue
        seen_pairs.add((src, dst))
        plain = _read_share(msg, src, dst, mem, pks)
        decrypted = plain is not None
        if plain is None:
            plain = msg.ciphertext[:-TAG_LEN]
        if len(plain) != cells * wire.itemsize:
            continue
        r = np.frombuffer(plain, wire).astype(np.int64)
        for into, out_of in (known, clear) if decrypted else (clear,):
            into[dst] = into.get(dst, 0) + r
            out_of[src] = out_of.get(src, 0) + r
    cands = {}
    for i, r in pub.items():
        if r.size != cells:
            continue
        c = (r - known[0].get(i, 0) + known[1].get(i, 0)) % m
        if one_hot_cell(c) is None:  # the clear-shares hypothesis
            alt = (r - clear[0].get(i, 0) + clear[1].get(i, 0)) % m
            if one_hot_cell(alt) is not None:
                c = alt
        cands[i] = c
    total = None
    board = view.first(MeshTotal)
    if board is not None:
        total = board.total.to_numpy().astype(np.int64)
    elif len(pub) == n:
        total = np.sum(list(pub.values()), axis=0) % m
    return _finish(MESH.name, view, mem, cands, total, n - 1)


def recover(
    protocol: str,
    view: View,
    members: Mapping[int, MemberState] | Iterable[MemberState] = (),
    **public: object,
) -> Recovery:
    """The input-recovery attack of ``protocol`` (registered: :func:`~mpc_rr.adversary.attacks_for`) on ``view``.

    ``public``: the run's public parameters, as ``public=`` (the object the
    protocol's spec built) or the attack's own keywords (``n`` and ``modulus``
    for the full mesh, ``config`` for SecAgg+).
    """
    from mpc_rr.adversary._extensions import attacked, attacks_for  # it names this module

    get_protocol(protocol)  # a UsageError naming the known ones
    attack: Any = attacks_for(protocol).recover
    if attack is None:
        known = ", ".join(attacked("recover"))
        raise UsageError(f"recover: {protocol} has no input-recovery attack (protocols with one: {known})")
    rec: Recovery = attack(view, members, **public)
    return rec


