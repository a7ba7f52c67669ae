"""The aggregator's unmasking: Shamir reconstruction of seeds and mask keys, and the removal
of the masks -- pure functions over its ledger
(:class:`~mpc_rr.secure_sum.secagg._ledger.ServerLedger`) that
:class:`~mpc_rr.secure_sum.secagg.SecAggServer` calls.  Each returns its result or raises
:class:`Abort` naming the parties it could not unmask."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import numpy as np

from mpc_rr.core import PeerError, UsageError
from mpc_rr.secure_sum import crypto, shamir
from mpc_rr.secure_sum.secagg._client import mask_sum
from mpc_rr.secure_sum.secagg._ledger import ServerLedger, Unmask
from mpc_rr.secure_sum.secagg._messages import SHARE, UnmaskShares, read_ids
from mpc_rr.secure_sum.secagg._params import SecAggConfig

__all__ = ["Abort", "Unmask", "ids_text", "read_unmask", "reconstruct", "remove_pair_masks", "remove_self_masks"]


class Abort(Exception):
    def __init__(self, reason: str, culprits: Iterable[int] = ()) -> None:
        super().__init__(reason)
        self.culprits = [int(c) for c in culprits]


def ids_text(ids: Iterable[int], limit: int = 20) -> str:
    ids = sorted(int(i) for i in ids)
    more = f" and {len(ids) - limit} more" if len(ids) > limit else ""
    return f"{ids[:limit]}{more}"


def _gather(ledger: ServerLedger, which: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every revealed share of ``which`` ("b" or "s"): owners, holders, rows."""
    own, hold, sh = [], [], []
    for v, u in ledger.unmask.items():
        owners, shares = (u.b_owners, u.b_shares) if which == "b" else (u.s_owners, u.s_shares)
        own.append(owners)
        hold.append(np.full(owners.size, v))
        sh.append(shares)
    if not own:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, shamir.CHUNKS))
    return np.concatenate(own), np.concatenate(hold), np.concatenate(sh)


def reconstruct(ledger: ServerLedger, cfg: SecAggConfig, name: str, which: str, need: np.ndarray) -> np.ndarray:
    """The 32-byte secrets (``which``: "b" self-mask seeds, "s" mask keys) of parties
    ``need``, each from the first ``t`` of its revealed shares by holder id, ``(len(need), 32)``."""
    t = cfg.threshold
    owner, holder, sh = _gather(ledger, which)
    counts = np.bincount(owner, minlength=cfg.n + 1)
    short = need[counts[need] < t]
    if short.size:
        raise Abort(
            f"{name}: only {int(counts[short].min())} shares of the "
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
        raise Abort(f"{name}: inconsistent {which}-shares: {exc}") from None
    return out


def remove_pair_masks(
    ledger: ServerLedger, cfg: SecAggConfig, name: str, dropped: np.ndarray, sks: np.ndarray, total: np.ndarray
) -> np.ndarray:
    """``total`` less the survivors' pairwise masks with the parties ``dropped`` after
    sharing, whose rebuilt mask keys are ``sks`` (each checked against its advertised key)."""
    run, R = cfg.run, cfg.modulus
    graph = ledger.drawn_graph()
    for d, sk_bytes in zip(dropped.tolist(), sks, strict=True):
        sk = crypto.X25519PrivateKey.from_private_bytes(sk_bytes.tobytes())
        if sk.public_key().public_bytes_raw() != ledger.s_pk[d].tobytes():
            raise Abort(f"{name}: reconstructed mask key of party {d} is inconsistent", [d])
        # the survivors that masked with d: those holding its share (complaints removed)
        vs = [
            v for v in graph.of(d).tolist()
            if ledger.inputs[v] and bool((ledger.mask_sets.get(v, np.zeros(0, int)) == d).any())
        ]  # fmt: skip
        try:
            keys = [
                crypto.pair_key(crypto.agree(sk, ledger.s_pk[v].tobytes()), "mask", run, min(d, v), max(d, v))
                for v in vs
            ]
        except crypto.InvalidPublicKey as exc:
            raise Abort(f"{name}: a survivor's mask key is invalid: {exc}") from None
        # survivor v added sign(v, d) * PRG(s_vd): + if v < d
        signs = np.where(np.asarray(vs) < d, 1, -1)
        total = (total - mask_sum(None, keys, signs, cfg.cells, R).astype(np.int64)) % R
    return total


def read_unmask(ledger: ServerLedger, name: str, src: int, msg: UnmaskShares) -> Unmask:
    """Survivor ``src``'s reveal, checked: shares of ``b`` of exactly the holders it masked
    with that are in U3, of ``s_sk`` of exactly the others, each a field element."""
    holders = ledger.mask_sets.get(src)
    if holders is None or not ledger.inputs[src]:
        raise PeerError(f"{name}: party {src} was not asked to unmask", src)
    is_dropped = ~ledger.inputs[holders]  # status frozen when the unmask step opened
    parts = []
    for owners_w, shares_w, want in (
        (msg.b_owners, msg.b_shares, holders[~is_dropped]),
        (msg.s_owners, msg.s_shares, holders[is_dropped]),
    ):
        owners = read_ids(owners_w, src, "share owners", at_most=want.size)
        if not np.array_equal(owners, want):
            raise PeerError(f"{name}: party {src} revealed shares of the wrong parties", src)
        sh = shares_w.to_numpy(dtype=SHARE, shape=(want.size, shamir.CHUNKS), sender=src)
        if sh.size and int(sh.max()) >= shamir.PRIME:
            raise PeerError(f"{name}: share from party {src} is not a field element", src)
        parts += [want, sh]
    return Unmask(*parts)


def remove_self_masks(ledger: ServerLedger, cfg: SecAggConfig, name: str, alive_b: np.ndarray, b: np.ndarray) -> np.ndarray:
    """U3's masked sum less the self-masks ``PRG(b_u)`` of ``alive_b`` (int64, mod R), each
    rebuilt seed ``b`` checked against the party's signed commitment ``SHA-256(b_u)``."""
    run, R = cfg.run, cfg.modulus
    seeds = b.tobytes()
    sha = hashlib.sha256
    digests = b"".join([sha(seeds[i : i + 32]).digest() for i in range(0, len(seeds), 32)])
    wrong = np.frombuffer(digests, np.uint8).reshape(-1, 32) != ledger.commit[alive_b]
    bad = alive_b[wrong.any(axis=1)].tolist()
    if bad:
        raise Abort(f"{name}: reconstructed self-mask seeds of {ids_text(bad)} fail their commitment", bad)
    total = ledger.y_sum.astype(np.int64)
    ids = alive_b.tolist()
    for lo in range(0, len(ids), 4096):
        chunk = ids[lo : lo + 4096]
        keys = crypto.self_keys(seeds[32 * lo : 32 * (lo + len(chunk))], run, chunk)
        total -= crypto.signed_mask_sum(keys, [], cfg.cells, R).astype(np.int64)
        total %= R
    return total
