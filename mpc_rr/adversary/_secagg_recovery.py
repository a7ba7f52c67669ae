"""SecAgg+ input recovery: masks removed wherever the view and the coalition yield their seeds.

The attack of :mod:`._recovery`'s docstring, for SecAgg+: ``b_u`` rebuilt from
``t`` shares of it (the server receives them for every survivor), pairwise
keys from ``s_sk`` of either end -- a member's own, or rebuilt from ``t``
Shamir shares the coalition holds -- each checked against its commitment or
public key before use.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpc_rr.adversary._recovery import MemberState, Recovery, _finish, _members, one_hot_cell
from mpc_rr.core import COORDINATOR, UsageError
from mpc_rr.core._views import View
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum import _shamir as shamir
from mpc_rr.secure_sum.secagg import SPEC as SECAGG
from mpc_rr.secure_sum.secagg import (
    AdvertiseKeys,
    Aggregate,
    ForwardedShares,
    MaskedInput,
    SecAggConfig,
    UnmaskShares,
)

__all__ = ["SecAggView", "recover_secagg"]


class _Lagrange:
    """Shamir reconstruction with a cache keyed by ``(owner, holders used, shares)``."""

    def __init__(self) -> None:
        self._done: dict[tuple[int, bytes, bytes], bytes | None] = {}

    def rebuild(
        self, pool: Mapping[int, Mapping[int, np.ndarray]], owners: Iterable[int], t: int
    ) -> dict[int, bytes]:
        """32-byte secrets of the ``owners`` with at least ``t`` shares in ``pool``."""
        todo: list[tuple[int, list[int], tuple[int, bytes, bytes]]] = []
        out: dict[int, bytes] = {}
        for u in owners:
            held = pool.get(u, {})
            if len(held) < t:
                continue
            hs = sorted(held)[:t]
            rows = np.stack([held[h] for h in hs]).astype(np.uint64)
            key = (u, np.asarray(hs, np.int64).tobytes(), rows.tobytes())
            if key in self._done:
                got = self._done[key]
                if got is not None:
                    out[u] = got
                continue
            todo.append((u, hs, key))
        if todo:
            xs = np.array([hs for _, hs, _ in todo], np.uint64)
            ys = np.stack([np.stack([pool[u][h] for h in hs]) for u, hs, _ in todo])
            secrets = shamir.reconstruct(xs, ys.astype(np.uint64))
            for (u, _, key), chunk in zip(todo, secrets, strict=True):
                try:
                    val: bytes | None = shamir.chunks_to_bytes(chunk[None, :])[0].tobytes()
                except UsageError:  # inconsistent shares: no secret
                    val = None
                self._done[key] = val
                if val is not None:
                    out[u] = val
        return out


@dataclass
class SecAggView:
    """A SecAgg+ view parsed once (for attacking it many times, e.g. a coalition sweep).

    Holds what the messages say -- masked inputs, public keys, mask sets,
    revealed shares, the aggregate -- and caches of rebuilt secrets and
    pairwise keys (pure functions of public data and of the secrets used).
    """

    view: View
    config: SecAggConfig
    y: dict[int, np.ndarray] = field(init=False)
    s_pk: dict[int, bytes] = field(init=False)
    b_commit: dict[int, bytes] = field(init=False)
    mask_set: dict[int, list[int]] = field(init=False)
    s_pool: dict[int, dict[int, np.ndarray]] = field(init=False)
    b_pool: dict[int, dict[int, np.ndarray]] = field(init=False)
    total: np.ndarray | None = field(init=False)

    def __post_init__(self) -> None:
        v = self.view
        self.y = {
            s.src: mi.y.to_numpy().astype(np.int64) for s, mi in v.select(MaskedInput, dst=COORDINATOR)
        }
        keys = {s.src: ak for s, ak in v.select(AdvertiseKeys, dst=COORDINATOR)}
        self.s_pk = {u: ak.s_pk for u, ak in keys.items()}
        self.b_commit = {u: ak.b_commit for u, ak in keys.items()}
        self.mask_set = {
            s.dst: fw.senders.to_numpy().astype(np.int64).tolist()
            for s, fw in v.select(ForwardedShares, src=COORDINATOR)
        }
        self.s_pool, self.b_pool = {}, {}
        for s, us in v.select(UnmaskShares, dst=COORDINATOR):
            for owner, row in zip(us.b_owners.to_numpy().tolist(), us.b_shares.to_numpy(), strict=True):
                self.b_pool.setdefault(int(owner), {})[s.src] = row
            for owner, row in zip(us.s_owners.to_numpy().tolist(), us.s_shares.to_numpy(), strict=True):
                self.s_pool.setdefault(int(owner), {})[s.src] = row
        agg = v.first(Aggregate, src=COORDINATOR)
        self.total = agg.total.to_numpy().astype(np.int64) if agg is not None else None
        self._lagrange = _Lagrange()
        self._pair: dict[tuple[int, int], bytes] = {}
        self._self: dict[int, bytes] = {}

    def pair_key(self, u: int, v: int, sk: bytes, owner: int) -> bytes:
        """The mask key of edge ``{u, v}`` from ``owner``'s private mask key ``sk``."""
        a, b = min(u, v), max(u, v)
        k = self._pair.get((a, b))
        if k is None:
            other = v if owner == u else u
            shared = crypto.agree(sk, self.s_pk[other])
            k = self._pair[(a, b)] = crypto.pair_key(shared, "mask", self.config.run, a, b)
        return k

    def self_key(self, u: int, b: bytes) -> bytes:
        k = self._self.get(u)
        if k is None:
            k = self._self[u] = crypto.pair_key(b, "self", self.config.run, u, u)
        return k


def recover_secagg(
    view: View | SecAggView,
    members: Mapping[int, MemberState] | Iterable[MemberState] = (),
    *,
    config: SecAggConfig | None = None,
    targets: Sequence[int] | None = None,
    public: Any = None,
) -> Recovery:
    """SecAgg+: remove from ``y_u`` every mask whose seed or key the view and the members yield.

    ``config``: the run's public parameters (modulus, threshold, run id), or
    ``public`` (a :class:`~mpc_rr.secure_sum.secagg.SecAggPublic`) holding it;
    ``view`` may be a :class:`SecAggView` parsed once.  ``targets``: the
    parties to attack (default every party whose masked input is in the
    view).  Seeds rebuilt from shares are checked against their commitment /
    public key before use.
    """
    if public is not None:
        config = public.config
    if isinstance(view, SecAggView):
        sv = view
    else:
        if config is None:
            raise UsageError("recover_secagg: config (the run's public parameters) is required")
        sv = SecAggView(view, config)
    mem = _members(members)
    cfg = sv.config
    t, R, cells = cfg.threshold, cfg.modulus, cfg.cells
    c = shamir.CHUNKS
    s_pool = {u: dict(h) for u, h in sv.s_pool.items()}
    b_pool = {u: dict(h) for u, h in sv.b_pool.items()}
    for m in mem.values():
        for owner, row in zip(m.holders.tolist(), m.held, strict=True):
            s_pool.setdefault(int(owner), {})[m.party] = row[:c]
            b_pool.setdefault(int(owner), {})[m.party] = row[c:]
    want = sorted(sv.y) if targets is None else [int(u) for u in targets if int(u) in sv.y]
    want = [u for u in want if u not in mem]
    needed_sk = set(want)
    for u in want:
        needed_sk.update(sv.mask_set.get(u, []))
    b_known = {u: m.b for u, m in mem.items() if m.b is not None}
    for u, seed in sv._lagrange.rebuild(b_pool, [u for u in want if u not in b_known], t).items():
        commit = sv.b_commit.get(u)
        if commit is None or hashlib.sha256(seed).digest() == commit:
            b_known[u] = seed
    sk_known = {u: m.s_sk for u, m in mem.items() if m.s_sk is not None}
    rebuilt = sv._lagrange.rebuild(s_pool, [v for v in needed_sk if v not in sk_known], t)
    for u, sk in rebuilt.items():
        try:
            pk = crypto.X25519PrivateKey.from_private_bytes(sk).public_key().public_bytes_raw()
        except ValueError:
            continue
        if sv.s_pk.get(u, pk) == pk:
            sk_known[u] = sk
    cands: dict[int, np.ndarray] = {}
    for u in want:
        keys: list[bytes] = []
        weights: list[int] = []
        if u in b_known:
            keys.append(sv.self_key(u, b_known[u]))
            weights.append(1)
        for v in sv.mask_set.get(u, []):
            if v not in sv.s_pk or u not in sv.s_pk:
                continue
            if u in sk_known:
                keys.append(sv.pair_key(u, v, sk_known[u], u))
            elif v in sk_known:
                keys.append(sv.pair_key(u, v, sk_known[v], v))
            else:
                continue
            weights.append(1 if v > u else -1)
        cand = sv.y[u].copy()
        if keys:
            masks = crypto.expand_masks(keys, cells, R).astype(np.int64)
            full = (cand - np.asarray(weights, np.int64) @ masks) % R
            if one_hot_cell(full) is None and u in b_known:
                # second hypothesis: no pairwise mask was applied (only the self mask)
                own = (cand - masks[0]) % R
                cand = own if one_hot_cell(own) is not None else full
            else:
                cand = full
        cands[u] = cand
    return _finish(SECAGG.name, sv.view, mem, cands, sv.total, t)
