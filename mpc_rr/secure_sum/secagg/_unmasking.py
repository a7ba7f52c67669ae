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
from mpc_rr.secure_sum import _crypto as crypto
from mpc_rr.secure_sum import _shamir as shamir
from mpc_rr.secure_sum.secagg._client import mask_sum
from mpc_rr.secure_sum.secagg._ledger import ServerLedger, Unmask
from mpc_rr.secure_sum.secagg._messages import SHARE, UnmaskShares, read_ids, share_commitment
from mpc_rr.secure_sum.secagg._params import SecAggConfig

__all__ = ["Abort", "Retry", "Unmask", "identify", "ids_text", "read_unmask", "reconstruct", "remove_pair_masks", "remove_self_masks"]


class Abort(Exception):
    """The run cannot go on: ``reason``, the parties it names (``culprits``) and whether the
    cause is shares that do not rebuild what their dealers committed to (``inconsistent``:
    a retry with verifiable shares can tell who)."""

    def __init__(self, reason: str, culprits: Iterable[int] = (), *, inconsistent: bool = False) -> None:
        super().__init__(reason)
        self.culprits = [int(c) for c in culprits]
        self.inconsistent = inconsistent


class Retry(Abort):
    """The run can go on as its next attempt without the parties ``excluded`` (``proven``:
    misbehaviour proven by their signatures, else dropouts); beyond the retries or the
    dropout bound it aborts as an :class:`Abort` would."""

    def __init__(self, reason: str, culprits: Iterable[int], excluded: Iterable[int], *, proven: bool) -> None:
        super().__init__(reason, culprits)
        self.excluded = sorted({int(u) for u in excluded})
        self.proven = proven


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
        raise Abort(f"{name}: inconsistent {which}-shares: {exc}", inconsistent=True) from None
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
            raise Abort(f"{name}: reconstructed mask key of party {d} is inconsistent", [d], inconsistent=True)
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
        raise Abort(f"{name}: reconstructed self-mask seeds of {ids_text(bad)} fail their commitment", bad, inconsistent=True)
    total = ledger.y_sum.astype(np.int64)
    ids = alive_b.tolist()
    for lo in range(0, len(ids), 4096):
        chunk = ids[lo : lo + 4096]
        keys = crypto.self_keys(seeds[32 * lo : 32 * (lo + len(chunk))], run, chunk)
        total -= crypto.signed_mask_sum(keys, [], cfg.cells, R).astype(np.int64)
        total %= R
    return total


def _opens_commitment(which: str, owner: int, secret: bytes, ledger: ServerLedger) -> bool:
    """Whether a rebuilt secret is the one ``owner`` committed to in its signed keys."""
    if which == "b":
        return bool(hashlib.sha256(secret).digest() == ledger.commit[owner].tobytes())
    sk = crypto.X25519PrivateKey.from_private_bytes(secret)
    return bool(sk.public_key().public_bytes_raw() == ledger.s_pk[owner].tobytes())


def identify(ledger: ServerLedger, cfg: SecAggConfig) -> tuple[list[int], list[int]]:
    """With verifiable shares (a retry), who made the unmasking fail, with proof:
    ``(liars, dealers)``.

    A *liar* revealed a share that does not match the commitment its dealer signed for it
    (an honest holder checked its share against that commitment on receipt and complained
    if it did not match, so it only ever reveals matching shares).  A *dealer* has ``t``
    revealed shares that match its signed commitments and yet rebuild a secret other than
    the one its signed keys commit to (``SHA-256(b)``, or ``s_pk``): an honest dealer's
    shares all lie on one polynomial through its secret, so any ``t`` of them rebuild it.
    Its signed batch, the ``t`` shares and its signed keys are the proof; anyone holding
    the roster can check it.  An owner with fewer than ``t`` matching shares is judged by
    nobody (too few shares is no proof).
    """
    t, run = cfg.threshold, cfg.run
    liars: set[int] = set()
    dealers: set[int] = set()
    for which in ("b", "s"):
        owner, holder, sh = _gather(ledger, which)
        rows = np.ascontiguousarray(sh, SHARE).reshape(-1, shamir.CHUNKS)
        good: dict[int, list[tuple[int, np.ndarray]]] = {}
        col = slice(32, 64) if which == "b" else slice(0, 32)
        for i, (o, h) in enumerate(zip(owner.tolist(), holder.tolist(), strict=True)):
            held = ledger.shares.get(o)
            if held is None or held.commitments is None:
                continue
            k = int(np.searchsorted(held.recipients, h))
            if k >= held.recipients.size or int(held.recipients[k]) != h:
                continue
            raw = rows[i].tobytes()
            if share_commitment(run, o, h, which, raw) != held.commitments[k, col].tobytes():
                liars.add(h)
                continue
            good.setdefault(o, []).append((h, rows[i]))
        for o, got in good.items():
            if len(got) < t:
                continue
            got.sort(key=lambda p: p[0])
            xs = np.asarray([h for h, _ in got[:t]], np.int64).reshape(1, t)
            ys = np.stack([r for _, r in got[:t]]).astype(np.uint64).reshape(1, t, shamir.CHUNKS)
            try:
                secret = bytes(shamir.chunks_to_bytes(shamir.reconstruct(xs, ys))[0].tobytes())
            except UsageError:  # the shares do not even decode
                dealers.add(o)
                continue
            if len(secret) != 32 or not _opens_commitment(which, o, secret, ledger):
                dealers.add(o)
    return sorted(liars), sorted(dealers)
