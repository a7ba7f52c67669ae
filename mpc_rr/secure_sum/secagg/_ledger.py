"""Everything SecAgg+'s aggregator records of one run: one typed structure, created whole
when the role is built (:class:`~mpc_rr.secure_sum.secagg.SecAggServer`).

Arrays indexed by party id have ``n + 1`` rows (row 0, the aggregator, unused).  The
step that fills a field is named in its comment; before that step the field holds its
empty value (no field is created later).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum.secagg._messages import AdvertiseKeys, DrawReveal

__all__ = ["ServerLedger", "SignedShares", "Unmask"]


class SignedShares:
    """One party's ciphertexts as received: recipients, ciphertexts, its commitments to the
    plaintext shares (a retry's verifiable shares, ``(m, 64)``; else None) and its signature
    on their digest (:func:`~mpc_rr.secure_sum.secagg.share_digest`)."""

    __slots__ = ("commitments", "cts", "recipients", "signature")

    def __init__(
        self, recipients: np.ndarray, cts: np.ndarray, signature: bytes, commitments: np.ndarray | None = None
    ) -> None:
        self.recipients, self.cts, self.signature, self.commitments = recipients, cts, signature, commitments

    def same(self, other: SignedShares) -> bool:
        return self.signature == other.signature and np.array_equal(self.cts, other.cts)


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


def _parties(n: int) -> np.ndarray:
    return np.zeros(n + 1, bool)


def _keys(n: int) -> np.ndarray:
    return np.zeros((n + 1, 32), np.uint8)


@dataclass(eq=False)
class ServerLedger:
    """The aggregator's mutable state of one run (module docstring); :meth:`for_run` builds it."""

    n: int
    cells: int
    #: live parties (bool, n+1): every data party until it drops out or is excluded
    alive: np.ndarray
    #: live parties still silent in the current step (the step closes when it is empty)
    expect: set[int]
    #: dropped party -> the step at which it dropped (or "excluded at STEP", "pruned: ...")
    dropped: dict[int, str] = field(default_factory=dict)
    #: parties excluded for misbehaving, in the order they were caught
    culprits: list[int] = field(default_factory=list)
    #: messages that arrived after their step closed (or from parties already dropped)
    late: int = 0
    # -- keys and the draw ----------------------------------------------------------------
    #: step KEYS: each party's AdvertiseKeys as received (cleared when the step closes)
    keys: dict[int, AdvertiseKeys] = field(default_factory=dict)
    #: step KEYS: the parties' share-encryption keys, mask keys, self-mask seed commitments,
    #: draw commitments (n+1, 32 bytes each) and key signatures
    c_pk: np.ndarray = field(init=False)
    s_pk: np.ndarray = field(init=False)
    commit: np.ndarray = field(init=False)
    draw_commit: np.ndarray = field(init=False)
    key_sigs: list[bytes] = field(init=False)
    #: the draw's contributors (bool, n+1: every party whose keys arrived) and the digest
    #: ``D`` of their draw commitments, fixed when step KEYS closes
    contributors: np.ndarray = field(init=False)
    digest: bytes = b""
    #: step DRAW: the reveals as received (cleared once the seed is drawn)
    draw_reveals: dict[int, DrawReveal] = field(default_factory=dict)
    #: the run's joint seed, the graph and the consistency committee (bool, n+1) it draws
    seed: bytes | None = None
    graph: Graph | None = None
    committee: np.ndarray = field(init=False)
    #: the neighbour ids each live party was sent with NeighborKeys
    sent_ids: dict[int, np.ndarray] = field(default_factory=dict)
    # -- shares -------------------------------------------------------------------------
    #: step SHARES: the signed ciphertexts as they arrive
    cts: dict[int, SignedShares] = field(default_factory=dict)
    #: the signed ciphertexts kept after forwarding: complaints are judged on them
    shares: dict[int, SignedShares] = field(default_factory=dict)
    #: U2 (bool, n+1): the parties whose seeds are shared (set when step SHARES closes)
    sharers: np.ndarray = field(init=False)
    #: party -> the senders whose shares it holds, i.e. it masked with (complaints removed)
    mask_sets: dict[int, np.ndarray] = field(default_factory=dict)
    # -- masked inputs and complaints --------------------------------------------------------
    #: step MASKED: the masked inputs as they arrive (summed into ``y_sum`` when it closes)
    y: dict[int, np.ndarray] = field(default_factory=dict)
    #: (accuser, accused): pairs with no mask between them
    accusations: set[tuple[int, int]] = field(default_factory=set)
    #: parties that asked for share proofs (once each)
    complained: set[int] = field(default_factory=set)
    #: U3 (bool, n+1): the parties whose masked inputs count (set when step MASKED closes)
    inputs: np.ndarray = field(init=False)
    #: the sum of U3's masked inputs mod R (cells,)
    y_sum: np.ndarray = field(init=False)
    # -- consistency and unmasking -----------------------------------------------------------
    #: the survivor-set bitmap the committee was shown (step CONSISTENCY)
    survivors: bytes = b""
    #: committee member -> its signature on ``survivors``
    consistency: dict[int, bytes] = field(default_factory=dict)
    #: step UNMASK: each survivor's validated shares
    unmask: dict[int, Unmask] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = self.n
        self.c_pk, self.s_pk, self.commit, self.draw_commit = _keys(n), _keys(n), _keys(n), _keys(n)
        self.key_sigs = [b""] * (n + 1)
        self.contributors, self.committee, self.sharers, self.inputs = _parties(n), _parties(n), _parties(n), _parties(n)
        self.y_sum = np.zeros(self.cells, np.uint64)

    @classmethod
    def for_run(cls, n: int, cells: int) -> ServerLedger:
        """The ledger before the first message: every data party alive and expected."""
        alive = _parties(n)
        alive[1:] = True
        return cls(n=n, cells=cells, alive=alive, expect=set(range(1, n + 1)))

    def drawn_graph(self) -> Graph:
        """The run's graph (a :class:`RuntimeError` before the draw: a bug, never a peer's fault)."""
        if self.graph is None:
            raise RuntimeError("SecAgg+ aggregator: the graph is used before the draw")
        return self.graph

    def holders_in(self, members: np.ndarray) -> np.ndarray:
        """For every party, how many parties in ``members`` masked with it (hold its shares)."""
        sets = [self.mask_sets[v] for v in np.flatnonzero(members).tolist() if v in self.mask_sets]
        flat = np.concatenate(sets) if sets else np.zeros(0, np.int64)
        counts: np.ndarray = np.bincount(flat, minlength=self.n + 1)
        return counts
