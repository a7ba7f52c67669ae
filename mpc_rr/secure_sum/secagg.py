"""Scalable, dropout-tolerant secure aggregation (SecAgg+, Bell et al. 2020).

How this protocol works.  Data parties ``1..n`` talk only to the aggregator
(party 0), which routes every message; a public random ``k``-regular graph
(:class:`~mpc_rr.secure_sum.graph.Graph`) says who masks with whom.

====  ===========================  ==============================================
step  party ``u``                  aggregator
====  ===========================  ==============================================
0     :class:`AdvertiseKeys`:      waits for all (timeout: dropouts), drops parties
      two X25519 public keys       with fewer than ``t`` live neighbours, sends each
      (``c`` to encrypt shares,    party :class:`NeighborKeys` (its live
      ``s`` for masks) and a hash  neighbours' public keys)
      of its self-mask seed ``b``
1     Shamir-shares ``s_sk`` and   collects (timeout: dropouts), regroups the
      ``b`` (threshold ``t``)      ciphertexts by recipient: :class:`ForwardedShares`
      among its neighbours,
      AES-GCM-encrypts each share
      under the pairwise ``c`` key:
      :class:`EncryptedShares`
2     :class:`MaskedInput`         collects ``y_u`` (timeout: dropouts), tells each
      ``y = x + PRG(b) + sum_v     survivor which of its neighbours dropped:
      +-PRG(s_uv)  (mod R)``       :class:`UnmaskRequest`
      (``v`` = neighbours that
      shared in step 1; ``+`` if
      ``u < v``)
3     :class:`UnmaskShares`: its   reconstructs ``b`` of every survivor and ``s_sk``
      share of ``b_v`` for live    of every party that dropped after sharing,
      ``v``, of ``s_sk_v`` for     removes their masks (vectorized over cells and
      dropped ``v`` -- never both  parties), sends :class:`Aggregate`
====  ===========================  ==============================================

Threat model (what the docstring promises, and what tests check):

* The aggregator is **honest-but-curious**: it follows the protocol (routes
  faithfully, reports dropouts truthfully, uses the public graph) but tries
  to learn individual inputs from what it sees.  Share payloads are encrypted
  and authenticated end-to-end (AES-256-GCM under X25519-derived keys bound to
  run id and both ids), so routing gives it nothing.
* Up to ``t - 1`` **colluding parties** among any party's neighbours (plus the
  aggregator) learn nothing about that party's input beyond the sum: they hold
  fewer than ``t`` shares of its seeds.  Honest parties reveal, for each
  neighbour, a share of ``b`` *or* of ``s_sk``, never both.
* **Dropouts**: any party may vanish at any step (key advertisement, share
  distribution, masked input, unmasking).  The run is exact over the inputs of
  the parties that sent a masked input, as long as the cumulative number of
  dropouts is at most ``floor(max_dropout * n)`` and every party whose seed
  must be reconstructed keeps ``t`` live neighbours.  Beyond either bound the
  aggregator stops with :class:`~mpc_rr.errors.ProtocolAbort` (naming the
  parties concerned) and tells the survivors (:class:`SecAggAbort`) -- it
  never returns a wrong sum.  With a sparse graph the second condition holds
  with the probability computed by :func:`default_threshold` (``failure``),
  for dropouts that are independent of the graph; with a complete graph
  (``degree >= n - 1``) the default threshold makes it deterministic.
* A party that sends a malformed message (wrong length, dtype, value outside
  the modulus or field, wrong recipients) or two different messages for one
  step is reported (``PeerError`` naming it) and excluded as a dropout if
  the step is still open; an identical duplicate is reported and ignored.

Modulus: sums are computed mod ``R`` (default the smallest power of two above
``n * max_value``: 2^15 for Adult's 0/1 cells), and masked vectors travel in the
smallest unsigned dtype holding ``R - 1`` (uint16 for Adult).

Reference: K. Bonawitz et al., "Practical Secure Aggregation for
Privacy-Preserving Machine Learning", CCS 2017; J. H. Bell et al., "Secure
Single-Server Aggregation with (Poly)Logarithmic Overhead", CCS 2020.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mpc_rr.errors import DecodeError, PeerError, UsageError
from mpc_rr.messages import Message, WireArray
from mpc_rr.roles import COORDINATOR, Role, Send
from mpc_rr.secure_sum import crypto, shamir
from mpc_rr.secure_sum.common import SumResult, check_inputs, read_residues
from mpc_rr.secure_sum.entropy import Entropy, SystemEntropy, smallest_uint
from mpc_rr.secure_sum.graph import Graph

__all__ = [
    "SECAGG_MESSAGES",
    "AdvertiseKeys",
    "Aggregate",
    "EncryptedShares",
    "ForwardedShares",
    "MaskedInput",
    "NeighborKeys",
    "SecAggAbort",
    "SecAggClient",
    "SecAggConfig",
    "SecAggServer",
    "UnmaskRequest",
    "UnmaskShares",
    "default_degree",
    "default_threshold",
    "secagg_roles",
]

_IDS = np.dtype("<u4")
_SHARE = np.dtype("<u4")
_PLAIN_LEN = 2 * shamir.CHUNKS * _SHARE.itemsize  # shares of s_sk and of b
CIPHERTEXT_LEN = _PLAIN_LEN + 16  # AES-GCM tag


# -- messages -----------------------------------------------------------------------
class AdvertiseKeys(Message, frozen=True):
    """Step 0, party -> aggregator: public keys and a commitment to the self-mask seed."""

    c_pk: bytes
    s_pk: bytes
    b_commit: bytes


class NeighborKeys(Message, frozen=True):
    """Step 0, aggregator -> party: live neighbours and their public keys."""

    ids: WireArray
    c_pks: WireArray
    s_pks: WireArray


class EncryptedShares(Message, frozen=True):
    """Step 1, party -> aggregator: one ciphertext per live neighbour."""

    recipients: WireArray
    ciphertexts: WireArray


class ForwardedShares(Message, frozen=True):
    """Step 1, aggregator -> party: the ciphertexts addressed to it."""

    senders: WireArray
    ciphertexts: WireArray


class MaskedInput(Message, frozen=True):
    """Step 2, party -> aggregator: the masked input vector."""

    y: WireArray


class UnmaskRequest(Message, frozen=True):
    """Step 3, aggregator -> party: which of its neighbours dropped after sharing."""

    dropped: WireArray


class UnmaskShares(Message, frozen=True):
    """Step 3, party -> aggregator: shares of ``b`` (live owners) and ``s_sk`` (dropped)."""

    b_owners: WireArray
    b_shares: WireArray
    s_owners: WireArray
    s_shares: WireArray


class Aggregate(Message, frozen=True):
    """Final, aggregator -> party: the sum and how many inputs it contains."""

    total: WireArray
    n_included: int


class SecAggAbort(Message, frozen=True):
    """Final, aggregator -> party: the run stopped without a result."""

    reason: str


SECAGG_MESSAGES: tuple[type[Message], ...] = (
    AdvertiseKeys,
    NeighborKeys,
    EncryptedShares,
    ForwardedShares,
    MaskedInput,
    UnmaskRequest,
    UnmaskShares,
    Aggregate,
    SecAggAbort,
)


# -- parameters ---------------------------------------------------------------------
def default_degree(n: int) -> int:
    """Graph degree ``2 * ceil(log2 n)`` (even); the complete graph for ``n <= 32``."""
    if n <= 32:
        return n - 1
    return min(n - 1, 2 * math.ceil(math.log2(n)))


def default_threshold(n: int, degree: int, max_dropout: float, failure: float = 1e-6) -> int:
    """Largest Shamir threshold that survives ``max_dropout`` (with prob. >= 1 - ``failure``).

    The larger of two guarantees: ``degree - floor(max_dropout * n)`` live
    neighbours, which every party keeps whatever parties drop (the rule for a
    complete graph), and the largest ``t`` with
    ``n * P[Binomial(degree, 1 - max_dropout) < t] <= failure`` (a union bound
    over parties, for dropouts independent of the graph).
    """
    from scipy.stats import binom

    deterministic = degree - math.floor(max_dropout * n)
    if degree >= n - 1:
        return deterministic
    ts = np.arange(1, degree + 1)
    ok = n * binom.cdf(ts - 1, degree, 1.0 - max_dropout) <= failure
    return max(deterministic, int(ts[ok].max()) if ok.any() else 0)


@dataclass(frozen=True)
class SecAggConfig:
    """Public parameters of one SecAgg+ run (validated; build with :meth:`create`).

    Attributes
    ----------
    n, cells:
        Data parties ``1..n`` and the vector length.
    modulus:
        ``R``; every input is in ``[0, (R - 1) // n]``.
    degree, threshold:
        Graph degree ``k`` and Shamir threshold ``t`` (``2 <= t <= k``; ``t = 1`` only
        when ``n = 2``).
    max_dropout:
        Largest tolerated fraction of parties that drop out (cumulative).
    run:
        Run id in every message and key derivation.
    """

    n: int
    cells: int
    modulus: int
    degree: int
    threshold: int
    max_dropout: float
    run: str = ""

    @classmethod
    def create(
        cls,
        n: int,
        cells: int,
        *,
        max_value: int = 1,
        modulus: int | None = None,
        degree: int | None = None,
        threshold: int | None = None,
        max_dropout: float = 1 / 3,
        failure: float = 1e-6,
        run: str = "",
    ) -> SecAggConfig:
        if n < 2:
            raise UsageError(f"SecAggConfig: n must be >= 2 parties, got {n}")
        if n >= shamir.PRIME:
            raise UsageError(f"SecAggConfig: n must be < {shamir.PRIME}, got {n}")
        if cells < 1:
            raise UsageError(f"SecAggConfig: cells must be >= 1, got {cells}")
        if not 0.0 <= max_dropout < 1.0:
            raise UsageError(f"SecAggConfig: max_dropout must be in [0, 1), got {max_dropout}")
        if modulus is None:
            modulus = max(2, 1 << (n * max_value).bit_length())
        if not 2 <= modulus <= 2**32 or n * max_value >= modulus:
            raise UsageError(
                f"SecAggConfig: modulus must be in [2, 2^32] and exceed n * max_value = "
                f"{n * max_value}, got {modulus}"
            )
        if degree is None and threshold is None:
            # grow the default degree until the dropout tolerance admits a threshold >= 2
            k = default_degree(n)
            while k < n - 1 and default_threshold(n, k, max_dropout, failure) < 2:
                k += 2
        else:
            k = default_degree(n) if degree is None else int(degree)
        if k < 1:
            raise UsageError(f"SecAggConfig: degree must be >= 1, got {degree}")
        k = n - 1 if k >= n - 1 else k + (k % 2)  # the graph rounds odd degrees up
        if k >= n - 1:
            k = n - 1
        t = default_threshold(n, k, max_dropout, failure) if threshold is None else threshold
        t_min = 1 if n == 2 else 2  # with 2 parties the sum reveals the other input anyway
        if not t_min <= t <= k:
            raise UsageError(
                f"SecAggConfig: threshold must be in [{t_min}, degree={k}], got {t} (a degree this "
                f"small cannot tolerate max_dropout={max_dropout}; raise degree)"
            )
        return cls(int(n), int(cells), int(modulus), k, int(t), float(max_dropout), run)

    @property
    def dtype(self) -> np.dtype:
        return smallest_uint(self.modulus)

    @property
    def max_dropped(self) -> int:
        return math.floor(self.max_dropout * self.n)


def _wire(a: np.ndarray, dtype: np.dtype | str) -> WireArray:
    return WireArray.from_numpy(np.ascontiguousarray(a, dtype=dtype))


def _ids(w: WireArray, sender: int, what: str) -> np.ndarray:
    a = w.to_numpy(dtype=_IDS, sender=sender)
    if a.ndim != 1:
        raise DecodeError(f"{what} from party {sender}: ids must be 1-D", sender)
    return a.astype(np.int64)


def _mask_sum(
    self_key: bytes | None, pair_keys: list[bytes], signs: np.ndarray, cells: int, modulus: int
) -> np.ndarray:
    """``PRG(self) + sum_i signs[i] * PRG(pair_keys[i])`` mod R, vectorized over cells."""
    keys = ([self_key] if self_key is not None else []) + pair_keys
    if not keys:
        return np.zeros(cells, np.uint64)
    masks = crypto.expand_masks(keys, cells, modulus).astype(np.int64)
    w = np.concatenate([[1] if self_key is not None else [], signs]).astype(np.int64)
    return np.mod(w @ masks, modulus).astype(np.uint64)


# -- the data party -----------------------------------------------------------------
class SecAggClient(Role):
    """Data party ``party_id`` in ``1..n``.

    Parameters
    ----------
    config, graph:
        The public parameters and graph (shared by all roles of the run).
    x:
        The private input vector (``cells`` entries in ``[0, (R - 1) // n]``).
    entropy:
        Cryptographic source of keys, seeds and share polynomials.
    """

    message_types = SECAGG_MESSAGES

    def __init__(
        self,
        party_id: int,
        config: SecAggConfig,
        graph: Graph,
        x: np.ndarray,
        *,
        entropy: Entropy | None = None,
    ) -> None:
        super().__init__(party_id)
        if not 1 <= self.party_id <= config.n:
            raise UsageError(f"party_id must be in 1..{config.n}, got {party_id}")
        if graph.n != config.n or graph.degree != config.degree:
            raise UsageError("graph does not match config (n or degree differ)")
        self.cfg = config
        self.graph = graph
        self.x = check_inputs(x, config.modulus, config.n)
        if self.x.size != config.cells:
            raise UsageError(f"x must have {config.cells} cells, got {self.x.size}")
        self.entropy = entropy if entropy is not None else SystemEntropy()
        self.state = "keys"
        self._handled: set[type[Message]] = set()
        self._table: dict[tuple[str, type[Message]], Callable[[Message], list[Send]]] = {
            ("keys", NeighborKeys): self._on_neighbor_keys,
            ("shares", ForwardedShares): self._on_forwarded,
            ("masked", UnmaskRequest): self._on_unmask_request,
            ("unmask", Aggregate): self._on_aggregate,
        }

    def _msg(self, cls: type[Message], step: int, **kw: object) -> Message:
        return cls(run=self.cfg.run, step=step, **kw)

    def start(self) -> list[Send]:
        self._c_sk, c_pk = crypto.keypair(self.entropy)
        self._s_sk, s_pk = crypto.keypair(self.entropy)
        self._b = self.entropy.key(32)
        commit = hashlib.sha256(self._b).digest()
        return [
            Send(COORDINATOR, self._msg(AdvertiseKeys, 0, c_pk=c_pk, s_pk=s_pk, b_commit=commit))
        ]

    def on_timeout(self) -> list[Send]:
        """A data party waits for the aggregator, which decides about dropouts."""
        return []

    def waiting_for(self) -> set[int]:
        return set() if self.done else {COORDINATOR}

    def receive(self, src: int, msg: Message) -> list[Send]:
        if self.done:
            return []
        if src != COORDINATOR:
            raise PeerError(
                f"party {self.party_id}: message from party {src}, not the aggregator", src
            )
        if isinstance(msg, SecAggAbort):
            self.abort(f"party {self.party_id}: aggregator aborted: {msg.reason}")
            return []
        handler = self._table.get((self.state, type(msg)))
        if handler is None and type(msg) in self._handled:
            raise PeerError(
                f"party {self.party_id}: duplicate {type(msg).__name__} from aggregator ignored",
                src,
            )
        if handler is None or msg.run != self.cfg.run:
            raise PeerError(
                f"party {self.party_id}: cannot handle {type(msg).__name__} (run {msg.run!r}) "
                f"from party {src} in state {self.state!r}",
                src,
            )
        self._handled.add(type(msg))
        try:
            return handler(msg)
        except (PeerError, ValueError, crypto.InvalidTag) as exc:
            # a malformed message from the aggregator: leave the run (we become a dropout)
            self.abort(
                f"party {self.party_id}: bad {type(msg).__name__} from aggregator: {exc}", [src]
            )
            raise PeerError(str(self.error), src) from None

    def _on_neighbor_keys(self, msg: Message) -> list[Send]:
        assert isinstance(msg, NeighborKeys)
        ids = _ids(msg.ids, COORDINATOR, "neighbor ids")
        m = ids.size
        c_pks = msg.c_pks.to_numpy(dtype=np.uint8, shape=(m, 32), sender=COORDINATOR)
        s_pks = msg.s_pks.to_numpy(dtype=np.uint8, shape=(m, 32), sender=COORDINATOR)
        mine = set(self.graph.of(self.party_id).tolist())
        id_list = ids.tolist()
        if m and (np.any(np.diff(ids) <= 0) or not mine.issuperset(id_list)):
            raise PeerError("neighbour ids are not a sorted subset of my graph neighbours", 0)
        t = self.cfg.threshold
        if m < t:
            raise PeerError(f"only {m} live neighbours, threshold is {t}", 0)
        self._nb_ids = ids
        self._nb_s_pks = [r.tobytes() for r in s_pks]
        u, run = self.party_id, self.cfg.run
        secrets = np.frombuffer(crypto.private_bytes(self._s_sk) + self._b, np.uint8)
        chunks = shamir.bytes_to_chunks(secrets.reshape(2, 32)).reshape(-1)
        shares = shamir.share(chunks, ids, t, self.entropy).astype(_SHARE)  # (m, 22)
        self._dec_key: dict[int, bytes] = {}
        cts = []
        for i, v in enumerate(id_list):
            shared = crypto.agree(self._c_sk, c_pks[i].tobytes())
            k_out, self._dec_key[v] = crypto.enc_keys(shared, run, u, v)
            cts.append(crypto.encrypt(k_out, shares[i].tobytes(), f"{run}/{u}/{v}".encode()))
        cts = np.frombuffer(b"".join(cts), np.uint8).reshape(m, CIPHERTEXT_LEN)
        self.state = "shares"
        out = self._msg(
            EncryptedShares, 1, recipients=_wire(ids, _IDS), ciphertexts=_wire(cts, np.uint8)
        )
        return [Send(COORDINATOR, out)]

    def _on_forwarded(self, msg: Message) -> list[Send]:
        assert isinstance(msg, ForwardedShares)
        senders = _ids(msg.senders, COORDINATOR, "senders")
        m = senders.size
        cts = msg.ciphertexts.to_numpy(dtype=np.uint8, shape=(m, CIPHERTEXT_LEN), sender=0)
        sender_list = senders.tolist()
        if m and (np.any(np.diff(senders) <= 0) or not set(self._dec_key).issuperset(sender_list)):
            raise PeerError("share senders are not a sorted subset of my live neighbours", 0)
        u, run = self.party_id, self.cfg.run
        pts = [
            crypto.decrypt(self._dec_key[v], cts[i].tobytes(), f"{run}/{v}/{u}".encode())
            for i, v in enumerate(sender_list)
        ]
        plain = np.frombuffer(b"".join(pts), _SHARE).reshape(m, 2 * shamir.CHUNKS)
        if plain.size and int(plain.max()) >= shamir.PRIME:
            raise PeerError("a decrypted share is not a field element", 0)
        self._holders = senders
        self._held = plain  # row i: shares of s_sk (first 11) and b (last 11) of senders[i]
        # masked input: y = x + PRG(b) + sum_v sign(u, v) PRG(s_uv)  (mod R)
        pk_of = dict(zip(self._nb_ids.tolist(), self._nb_s_pks, strict=True))
        keys = [
            crypto.pair_key(crypto.agree(self._s_sk, pk_of[v]), "mask", run, min(u, v), max(u, v))
            for v in sender_list
        ]
        signs = np.where(senders > u, 1, -1)
        self_key = crypto.pair_key(self._b, "self", run, u, u)
        mask = _mask_sum(self_key, keys, signs, self.cfg.cells, self.cfg.modulus)
        y = (self.x + mask) % np.uint64(self.cfg.modulus)
        self.state = "masked"
        return [Send(COORDINATOR, self._msg(MaskedInput, 2, y=_wire(y, self.cfg.dtype)))]

    def _on_unmask_request(self, msg: Message) -> list[Send]:
        assert isinstance(msg, UnmaskRequest)
        dropped = set(_ids(msg.dropped, COORDINATOR, "dropped").tolist())
        holders = self._holders.tolist()
        if not dropped.issubset(holders):
            raise PeerError("unmask request names parties whose shares I do not hold", 0)
        is_dropped = np.array([h in dropped for h in holders], bool)
        alive = ~is_dropped
        c = shamir.CHUNKS
        out = self._msg(
            UnmaskShares,
            3,
            b_owners=_wire(self._holders[alive], _IDS),
            b_shares=_wire(self._held[alive, c:], _SHARE),
            s_owners=_wire(self._holders[is_dropped], _IDS),
            s_shares=_wire(self._held[is_dropped, :c], _SHARE),
        )
        self.state = "unmask"  # answered once: never reveal both shares of one neighbour
        return [Send(COORDINATOR, out)]

    def _on_aggregate(self, msg: Message) -> list[Send]:
        assert isinstance(msg, Aggregate)
        total = read_residues(msg.total, self.cfg.modulus, self.cfg.cells, 0, "aggregate")
        self._result = SumResult(total.astype(np.int64), (), int(msg.n_included), self.cfg.modulus)
        self.state = "done"
        self._done = True
        return []


# -- the aggregator -----------------------------------------------------------------
_PHASES = ("keys", "shares", "masked", "unmask")
_EXPECTS = {
    "keys": AdvertiseKeys,
    "shares": EncryptedShares,
    "masked": MaskedInput,
    "unmask": UnmaskShares,
}


class SecAggServer(Role):
    """The aggregator (party 0): routes messages, tracks dropouts, unmasks the sum.

    ``result`` is a :class:`SumResult` whose ``included`` lists the parties whose
    inputs are in the total; ``dropped`` maps each dropped party to the step at
    which it dropped; ``culprits`` lists parties excluded for misbehaving.
    """

    message_types = SECAGG_MESSAGES

    def __init__(self, config: SecAggConfig, graph: Graph) -> None:
        super().__init__(COORDINATOR)
        if graph.n != config.n or graph.degree != config.degree:
            raise UsageError("graph does not match config (n or degree differ)")
        self.cfg = config
        self.graph = graph
        n = config.n
        self.alive = np.zeros(n + 1, bool)
        self.alive[1:] = True
        self.dropped: dict[int, str] = {}
        self.culprits: list[int] = []
        self.late: list[tuple[int, str]] = []
        self.phase = "keys"
        self._expect: set[int] = set(range(1, n + 1))  # live parties still silent this step
        self._got: dict[int, Message] = {}
        self._c_pk = np.zeros((n + 1, 32), np.uint8)
        self._s_pk = np.zeros((n + 1, 32), np.uint8)
        self._commit = np.zeros((n + 1, 32), np.uint8)

    # -- bookkeeping --------------------------------------------------------------
    def _msg(self, cls: type[Message], step: int, **kw: object) -> Message:
        return cls(run=self.cfg.run, step=step, **kw)

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> set[int]:
        if self.done:
            return set()
        return set(self._expect)

    def on_timeout(self) -> list[Send]:
        """The step's deadline passed: the silent parties are dropouts; close the step."""
        if self.done:
            return []
        for u in sorted(self.waiting_for()):
            self._drop(u, self.phase)
        return self._close()

    def _drop(self, u: int, why: str) -> None:
        self._expect.discard(u)
        if self.alive[u]:
            self.alive[u] = False
            self.dropped[u] = why

    def _abort_all(self, reason: str, culprits: object = ()) -> list[Send]:
        self.abort(reason, culprits)
        out = self._msg(SecAggAbort, 9, reason=reason)
        return [Send(int(u), out) for u in np.flatnonzero(self.alive)]

    def _check_bound(self) -> str | None:
        dropped = self.cfg.n - int(self.alive.sum())
        if dropped > self.cfg.max_dropped:
            return (
                f"aggregator: {dropped} of {self.cfg.n} parties dropped out by step "
                f"{self.phase!r}; max_dropout={self.cfg.max_dropout:g} allows "
                f"{self.cfg.max_dropped}"
            )
        return None

    def _live_degree(self, members: np.ndarray) -> np.ndarray:
        """Number of neighbours in ``members`` (bool, n+1) for every party."""
        return members[self.graph.neighbors].sum(axis=1)

    def _prune(self, why: str) -> None:
        """Drop, to a fixed point, live parties with fewer than t live neighbours."""
        while True:
            weak = self.alive & (self._live_degree(self.alive) < self.cfg.threshold)
            if not weak.any():
                return
            for u in np.flatnonzero(weak).tolist():
                self._drop(u, why)

    def receive(self, src: int, msg: Message) -> list[Send]:
        if self.done:
            return []
        if not 1 <= src <= self.cfg.n or msg.run != self.cfg.run:
            raise PeerError(f"aggregator: message from unknown party {src} or run {msg.run!r}", src)
        expected = _EXPECTS[self.phase]
        if type(msg) is not expected:
            earlier = _PHASES[: _PHASES.index(self.phase)]
            if any(type(msg) is _EXPECTS[p] for p in earlier):
                self.late.append((src, type(msg).__name__))
                return []
            raise PeerError(
                f"aggregator: cannot handle {type(msg).__name__} from party {src} in state "
                f"{self.phase!r}",
                src,
            )
        if not self.alive[src]:
            self.late.append((src, type(msg).__name__))
            return []
        try:
            payload = self._validate(src, msg)
        except PeerError as exc:
            if src in self._got:
                self._forget(src)
            self._exclude(src)
            raise PeerError(f"{exc}; party {src} excluded as a dropout", src) from None
        if src in self._got:
            if _same(self._got[src], payload):
                raise PeerError(
                    f"aggregator: duplicate {expected.__name__} from party {src} ignored", src
                )
            self._forget(src)
            self._exclude(src)  # the step then closes at its deadline (on_timeout)
            raise PeerError(
                f"aggregator: party {src} sent two different {expected.__name__}; excluded", src
            )
        self._got[src] = payload
        if isinstance(msg, MaskedInput):
            self._y_acc += payload
        self._expect.discard(src)
        return self._maybe_close()

    def _forget(self, u: int) -> None:
        payload = self._got.pop(u)
        if self.phase == "masked":
            self._y_acc -= payload

    def _exclude(self, u: int) -> None:
        self.culprits.append(u)
        self._drop(u, f"excluded at {self.phase}")

    def _maybe_close(self) -> list[Send]:
        if self.done or self._expect:
            return []
        return self._close()

    # -- validation of each step's message ------------------------------------------
    def _validate(self, u: int, msg: Message) -> object:
        """Check one step message from party ``u``; return the decoded payload."""
        cfg = self.cfg
        if isinstance(msg, AdvertiseKeys):
            for name in ("c_pk", "s_pk", "b_commit"):
                if len(getattr(msg, name)) != 32:
                    raise PeerError(f"aggregator: {name} from party {u} is not 32 bytes", u)
            return msg
        if isinstance(msg, EncryptedShares):
            rec = _ids(msg.recipients, u, "recipients")
            if not np.array_equal(rec, self._sent_ids[u]):
                raise PeerError(f"aggregator: party {u} addressed shares to the wrong parties", u)
            return msg.ciphertexts.to_numpy(
                dtype=np.uint8, shape=(rec.size, CIPHERTEXT_LEN), sender=u
            )
        if isinstance(msg, MaskedInput):
            return read_residues(msg.y, cfg.modulus, cfg.cells, u, "masked input")
        if isinstance(msg, UnmaskShares):
            holders = self._mask_sets[u]
            is_dropped = ~self._inputs[holders]  # status frozen when the unmask step opened
            out = []
            for owners_w, shares_w, want in (
                (msg.b_owners, msg.b_shares, holders[~is_dropped]),
                (msg.s_owners, msg.s_shares, holders[is_dropped]),
            ):
                owners = _ids(owners_w, u, "share owners")
                if not np.array_equal(owners, want):
                    raise PeerError(
                        f"aggregator: party {u} revealed shares of the wrong parties", u
                    )
                sh = shares_w.to_numpy(dtype=_SHARE, shape=(want.size, shamir.CHUNKS), sender=u)
                if sh.size and int(sh.max()) >= shamir.PRIME:
                    raise PeerError(f"aggregator: share from party {u} is not a field element", u)
                out += [want, sh]
            return out
        raise PeerError(f"aggregator: unexpected {type(msg).__name__} from party {u}", u)

    # -- step transitions ------------------------------------------------------------
    def _close(self) -> list[Send]:
        handler = {
            "keys": self._close_keys,
            "shares": self._close_shares,
            "masked": self._close_masked,
            "unmask": self._close_unmask,
        }[self.phase]
        try:
            out = handler()
        except _Abort as exc:
            return self._abort_all(str(exc), exc.culprits)
        self._expect = set() if self.done else set(np.flatnonzero(self.alive).tolist())
        return out

    def _bound(self) -> None:
        reason = self._check_bound()
        if reason:
            raise _Abort(reason, sorted(self.dropped))

    def _close_keys(self) -> list[Send]:
        for u, msg in self._got.items():
            assert isinstance(msg, AdvertiseKeys)
            self._c_pk[u] = np.frombuffer(msg.c_pk, np.uint8)
            self._s_pk[u] = np.frombuffer(msg.s_pk, np.uint8)
            self._commit[u] = np.frombuffer(msg.b_commit, np.uint8)
        self._got = {}
        self._bound()
        self._prune("pruned: too few live neighbours after key advertisement")
        self._bound()
        self.phase = "shares"
        out: list[Send] = []
        self._sent_ids: dict[int, np.ndarray] = {}
        nb = self.graph.neighbors
        for u in np.flatnonzero(self.alive).tolist():
            ids = nb[u][self.alive[nb[u]]]
            self._sent_ids[u] = ids
            msg = self._msg(
                NeighborKeys,
                0,
                ids=_wire(ids, _IDS),
                c_pks=_wire(self._c_pk[ids], np.uint8),
                s_pks=_wire(self._s_pk[ids], np.uint8),
            )
            out.append(Send(u, msg))
        return out

    def _close_shares(self) -> list[Send]:
        self._bound()
        self._prune("pruned: too few live neighbours after share distribution")
        self._bound()
        got = {u: m for u, m in self._got.items() if self.alive[u]}
        self._got = {}
        self.phase = "masked"
        snd = np.concatenate(
            [np.full(self._sent_ids[u].size, u) for u in got] or [np.zeros(0, int)]
        )
        rcv = np.concatenate([self._sent_ids[u] for u in got] or [np.zeros(0, int)])
        cts = np.concatenate(list(got.values()) or [np.zeros((0, CIPHERTEXT_LEN), np.uint8)])
        keep = self.alive[rcv]
        snd, rcv, cts = snd[keep], rcv[keep], cts[keep]
        order = np.lexsort((snd, rcv))
        snd, rcv, cts = snd[order], rcv[order], cts[order]
        bounds = np.searchsorted(rcv, np.arange(self.cfg.n + 2))
        out: list[Send] = []
        self._mask_sets: dict[int, np.ndarray] = {}
        for v in np.flatnonzero(self.alive).tolist():
            lo, hi = bounds[v], bounds[v + 1]
            self._mask_sets[v] = snd[lo:hi]
            msg = self._msg(
                ForwardedShares,
                1,
                senders=_wire(snd[lo:hi], _IDS),
                ciphertexts=_wire(cts[lo:hi], np.uint8),
            )
            out.append(Send(v, msg))
        self._sharers = self.alive.copy()  # U2: parties whose seeds are shared
        self._y_acc = np.zeros(self.cfg.cells, np.uint64)
        return out

    def _close_masked(self) -> list[Send]:
        self._bound()
        cfg = self.cfg
        self._inputs = self.alive.copy()  # U3
        self._y_sum = self._y_acc % np.uint64(cfg.modulus)
        self._got = {}
        # every party whose seed must be rebuilt needs t live share holders among U3
        dropped_sharers = self._sharers & ~self._inputs
        holders = self._live_degree(self._inputs)
        need_b = self._inputs
        need_s = dropped_sharers & (self._live_degree(self._inputs) > 0)
        short = np.flatnonzero((need_b | need_s) & (holders < cfg.threshold))
        if short.size:
            raise_abort = (
                f"aggregator: parties {short.tolist()[:10]} keep fewer than t={cfg.threshold} "
                f"live share holders; their masks cannot be removed"
            )
            raise _Abort(raise_abort, short.tolist())
        self.phase = "unmask"
        out = []
        for v in np.flatnonzero(self._inputs).tolist():
            ms = self._mask_sets[v]
            msg = self._msg(UnmaskRequest, 3, dropped=_wire(ms[dropped_sharers[ms]], _IDS))
            out.append(Send(v, msg))
        return out

    def _gather(self, which: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        own, hold, sh = [], [], []
        k = 0 if which == "b" else 2
        for v, payload in self._got.items():
            owners, shares = payload[k], payload[k + 1]
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
            raise _Abort(
                f"aggregator: only {int(counts[short].min())} shares of the "
                f"{'self-mask seed' if which == 'b' else 'mask key'} of parties "
                f"{short.tolist()[:10]} arrived, threshold t={t}",
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
            return shamir.chunks_to_bytes(secrets)
        except UsageError as exc:
            raise _Abort(f"aggregator: inconsistent {which}-shares: {exc}") from None

    def _close_unmask(self) -> list[Send]:
        self._bound()
        cfg = self.cfg
        run, R = cfg.run, cfg.modulus
        alive_b = np.flatnonzero(self._inputs)
        b = self._reconstruct("b", alive_b)
        # verify every reconstructed seed against its commitment
        bad = [
            int(u)
            for u, seed in zip(alive_b, b, strict=True)
            if hashlib.sha256(seed.tobytes()).digest() != self._commit[u].tobytes()
        ]
        if bad:
            raise _Abort(
                f"aggregator: reconstructed self-mask seeds of {bad[:10]} fail their commitment",
                bad,
            )
        total = self._y_sum.astype(np.int64)
        for lo in range(0, alive_b.size, 4096):
            keys = [
                crypto.pair_key(seed.tobytes(), "self", run, int(u), int(u))
                for u, seed in zip(alive_b[lo : lo + 4096], b[lo : lo + 4096], strict=True)
            ]
            total -= crypto.expand_masks(keys, cfg.cells, R).astype(np.int64).sum(axis=0) % R
            total %= R
        dropped = np.flatnonzero(self._sharers & ~self._inputs)
        dropped = dropped[self._live_degree(self._inputs)[dropped] > 0]
        if dropped.size:
            sks = self._reconstruct("s", dropped)
            for d, sk_bytes in zip(dropped.tolist(), sks, strict=True):
                sk = crypto.X25519PrivateKey.from_private_bytes(sk_bytes.tobytes())
                if sk.public_key().public_bytes_raw() != self._s_pk[d].tobytes():
                    raise _Abort(
                        f"aggregator: reconstructed mask key of party {d} is inconsistent", [d]
                    )
                vs = [
                    v for v in self._mask_sets.get(d, np.zeros(0, int)).tolist() if self._inputs[v]
                ]
                keys = [
                    crypto.pair_key(
                        crypto.agree(sk, self._s_pk[v].tobytes()), "mask", run, min(d, v), max(d, v)
                    )
                    for v in vs
                ]
                # survivor v added sign(v, d) * PRG(s_vd): + if v < d
                signs = np.where(np.asarray(vs) < d, 1, -1)
                total -= _mask_sum(None, keys, signs, cfg.cells, R).astype(np.int64)
                total %= R
        included = tuple(int(u) for u in alive_b)
        self._result = SumResult(total.astype(np.int64), included, len(included), R)
        self._done = True
        self.phase = "done"
        msg = self._msg(Aggregate, 4, total=_wire(total, cfg.dtype), n_included=len(included))
        return [Send(int(v), msg) for v in np.flatnonzero(self.alive)]


class _Abort(Exception):
    def __init__(self, reason: str, culprits: object = ()) -> None:
        super().__init__(reason)
        self.culprits = culprits


def _same(a: object, b: object) -> bool:
    """Equality of two decoded step payloads (messages, arrays or lists of arrays)."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.shape == b.shape and bool(np.array_equal(a, b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def secagg_roles(
    inputs: np.ndarray,
    config: SecAggConfig,
    graph: Graph,
    *,
    entropy: Callable[[int], Entropy] | None = None,
) -> dict[int, Role]:
    """Aggregator and data parties for one run; party ``i`` holds ``inputs[i - 1]``."""
    x = np.asarray(inputs)
    if x.shape != (config.n, config.cells):
        raise UsageError(f"inputs must have shape ({config.n}, {config.cells}), got {x.shape}")
    roles: dict[int, Role] = {COORDINATOR: SecAggServer(config, graph)}
    for i in range(1, config.n + 1):
        roles[i] = SecAggClient(
            i, config, graph, x[i - 1], entropy=entropy(i) if entropy is not None else None
        )
    return roles
