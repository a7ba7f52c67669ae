"""The aggregator's unmasking: Shamir reconstruction of seeds and mask keys (a mixin of
:class:`~mpc_rr.secure_sum.secagg.SecAggServer`, kept apart for length)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum import _shamir as shamir
from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum.secagg._client import mask_sum
from mpc_rr.secure_sum.secagg._params import SecAggConfig

__all__ = ["Abort", "Unmask", "Unmasker", "ids_text"]

@dataclass(frozen=True)
class Unmask:
    """A validated UnmaskShares: shares of ``b`` of live owners and of ``s_sk`` of dropped ones."""

    b_owners: np.ndarray
    b_shares: np.ndarray
    s_owners: np.ndarray
    s_shares: np.ndarray

    def same(self, other: Unmask) -> bool:
        return all(
            np.array_equal(getattr(self, f), getattr(other, f))
            for f in ("b_owners", "b_shares", "s_owners", "s_shares")
        )


class Abort(Exception):
    def __init__(self, reason: str, culprits: Iterable[int] = ()) -> None:
        super().__init__(reason)
        self.culprits = [int(c) for c in culprits]


def ids_text(ids: Iterable[int], limit: int = 20) -> str:
    ids = sorted(int(i) for i in ids)
    more = f" and {len(ids) - limit} more" if len(ids) > limit else ""
    return f"{ids[:limit]}{more}"


class Unmasker:
    """The reconstruction steps; needs the server's state (``cfg``, ``graph``, ``run``...)."""

    cfg: SecAggConfig
    graph: Graph
    run: str
    name: str
    _unmask: dict[int, Unmask]
    _s_pk: np.ndarray
    _inputs: np.ndarray
    _mask_sets: dict[int, np.ndarray]

    def _gather(self, which: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        own, hold, sh = [], [], []
        for v, u in self._unmask.items():
            owners, shares = (u.b_owners, u.b_shares) if which == "b" else (u.s_owners, u.s_shares)
            own.append(owners)
            hold.append(np.full(owners.size, v))
            sh.append(shares)
        if not own:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, shamir.CHUNKS))
        return np.concatenate(own), np.concatenate(hold), np.concatenate(sh)

    def _reconstruct(self, which: str, need: np.ndarray) -> np.ndarray:
        """Rebuild the 32-byte secrets of parties ``need`` from ``t`` shares each."""
        t = self.cfg.threshold
        owner, holder, sh = self._gather(which)
        counts = np.bincount(owner, minlength=self.cfg.n + 1)
        short = need[counts[need] < t]
        if short.size:
            raise Abort(
                f"{self.name}: only {int(counts[short].min())} shares of the "
                f"{'self-mask seed' if which == 'b' else 'mask key'} of parties "
                f"{ids_text(short.tolist())} arrived, threshold t={t}",
                short.tolist(),
            )
        order = np.lexsort((holder, owner))
        owner, holder, sh = owner[order], holder[order], sh[order]
        start = np.searchsorted(owner, owner)
        keep = (np.arange(owner.size) - start) < t
        keep &= np.isin(owner, need)
        xs = holder[keep].reshape(-1, t)
        ys = sh[keep].reshape(-1, t, shamir.CHUNKS)
        secrets = shamir.reconstruct(xs, ys)
        try:
            out: np.ndarray = shamir.chunks_to_bytes(secrets)
        except UsageError as exc:  # shares that do not decode: some holder lied
            raise Abort(f"{self.name}: inconsistent {which}-shares: {exc}") from None
        return out

    def _remove_pair_masks(self, dropped: np.ndarray, total: np.ndarray) -> np.ndarray:
        """Subtract the survivors' pairwise masks with parties that dropped after sharing."""
        cfg, run, R = self.cfg, self.run, self.cfg.modulus
        sks = self._reconstruct("s", dropped)
        for d, sk_bytes in zip(dropped.tolist(), sks, strict=True):
            sk = crypto.X25519PrivateKey.from_private_bytes(sk_bytes.tobytes())
            if sk.public_key().public_bytes_raw() != self._s_pk[d].tobytes():
                raise Abort(f"{self.name}: reconstructed mask key of party {d} is inconsistent", [d])
            # the survivors that masked with d: those holding its share (complaints removed)
            vs = [
                v for v in self.graph.of(d).tolist()
                if self._inputs[v] and bool((self._mask_sets.get(v, np.zeros(0, int)) == d).any())
            ]  # fmt: skip
            try:
                keys = [
                    crypto.pair_key(
                        crypto.agree(sk, self._s_pk[v].tobytes()), "mask", run, min(d, v), max(d, v)
                    )
                    for v in vs
                ]
            except crypto.InvalidPublicKey as exc:
                raise Abort(f"{self.name}: a survivor's mask key is invalid: {exc}") from None
            # survivor v added sign(v, d) * PRG(s_vd): + if v < d
            signs = np.where(np.asarray(vs) < d, 1, -1)
            total = (total - mask_sum(None, keys, signs, cfg.cells, R).astype(np.int64)) % R
        return total
