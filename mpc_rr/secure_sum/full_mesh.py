"""The modular secure sum of Domingo-Ferrer & Soria-Comas, Section 4.2, faithfully.

How this protocol works (paper steps 1-4, applied component-wise to a whole
vector of ``D`` cells, e.g. every cell of every attribute pair):

1. Each party ``i`` draws ``n`` share vectors ``r_i1 .. r_in`` uniformly
   modulo ``m = n + 1`` (from its :class:`~mpc_rr.secure_sum.entropy.Entropy`)
   subject to ``sum_j r_ij = 0 (mod m)``: ``n - 1`` are drawn freely, the last
   one is fixed by the constraint, which gives the uniform distribution on
   such tuples.
2. Party ``i`` sends ``r_ij`` to party ``j`` (keeps ``r_ii``): ``n(n-1)``
   :class:`MeshShare` messages in all.
3. Party ``j`` adds what it received and its private 0/1 indicator vector
   ``x_j`` and publishes ``r_j = sum_i r_ij + x_j (mod m)``.
4. Everyone computes ``sum_j r_j (mod m)`` = ``sum_j x_j`` since the sum is
   at most ``n < m``.

Publication (step 3) is either ``"all-to-all"`` (faithful: every party sends
``r_j`` to every other party, ``n(n-1)`` :class:`MeshPublish` messages) or
``"board"`` (a bulletin-board relay, party 0, collects the ``n`` values and
publishes their sum mod m: ``2n`` messages).  :func:`full_mesh_message_count`
gives the totals.

Threat model: honest-but-curious parties; any coalition of up to ``n - 2``
parties learns nothing beyond the sum (each ``r_j`` is uniform given the
coalition's view).  There is no dropout tolerance: a missing share or
publication makes the run abort (``ProtocolAbort`` naming the silent parties).
A malformed share (wrong dtype, length or a value >= m) aborts naming the
sender; an identical duplicate is reported (``PeerError``) and ignored, a
conflicting second message aborts naming the sender.

Wire: residues travel in the smallest unsigned dtype holding ``m - 1``
(uint16 for Adult's ``m = 32,562``).
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import Literal

import numpy as np

from mpc_rr.errors import PeerError, UsageError
from mpc_rr.messages import Message, WireArray
from mpc_rr.roles import COORDINATOR, NOBODY, AllIn, Role, Send, Transition, broadcast, table
from mpc_rr.secure_sum.common import SumResult, check_inputs, read_residues
from mpc_rr.secure_sum.entropy import Entropy, SystemEntropy, smallest_uint

__all__ = [
    "MESH_MESSAGES",
    "BulletinBoard",
    "FullMeshParty",
    "MeshPublish",
    "MeshShare",
    "MeshTotal",
    "Publication",
    "full_mesh_message_count",
    "full_mesh_roles",
]

Publication = Literal["all-to-all", "board"]


class MeshShare(Message, frozen=True):
    """Step 2: share ``r_ij`` from party i to party j (residues mod m)."""

    share: WireArray


class MeshPublish(Message, frozen=True):
    """Step 3: the published ``r_j`` (to every party, or to the board)."""

    value: WireArray


class MeshTotal(Message, frozen=True):
    """Board mode: the sum of all published ``r_j`` mod m."""

    total: WireArray


MESH_MESSAGES: tuple[type[Message], ...] = (MeshShare, MeshPublish, MeshTotal)


def full_mesh_message_count(n: int, publication: Publication = "all-to-all") -> int:
    """Messages of one run: ``n(n-1)`` shares plus ``n(n-1)`` (all-to-all) or ``2n`` (board)."""
    return n * (n - 1) + (n * (n - 1) if publication == "all-to-all" else 2 * n)


def _check_publication(publication: str) -> None:
    if publication not in ("all-to-all", "board"):
        raise UsageError(f"publication must be 'all-to-all' or 'board', got {publication!r}")


class MeshState(enum.Enum):
    SHARING = "shares sent, collecting the shares addressed to me"
    PUBLISHING = "r_j published, collecting publications (or the board's total)"
    DONE = "done"
    ABORTED = "aborted"


class BoardState(enum.Enum):
    COLLECTING = "collecting publications"
    DONE = "done"
    ABORTED = "aborted"


class FullMeshParty(Role):
    """Data party ``party_id`` in ``1..n`` of the Section 4.2 secure sum.

    Parameters
    ----------
    party_id, n:
        This party and the number of data parties (ids ``1..n``).
    x:
        Private input vector (0/1 indicators in the paper; any non-negative
        ints whose n-fold sum stays below ``modulus``).
    modulus:
        Defaults to ``n + 1`` as in the paper.
    publication:
        ``"all-to-all"`` (faithful) or ``"board"`` (relay through party 0).
    entropy:
        Cryptographic source of the shares (default :class:`SystemEntropy`).
    run:
        Protocol run id carried in every message.
    """

    message_types = MESH_MESSAGES

    def __init__(
        self,
        party_id: int,
        n: int,
        x: np.ndarray,
        *,
        modulus: int | None = None,
        publication: Publication = "all-to-all",
        entropy: Entropy | None = None,
        run: str = "",
    ) -> None:
        super().__init__(party_id, MeshState.SHARING)
        if n < 2:
            raise UsageError(f"n must be >= 2 parties, got {n}")
        if not 1 <= self.party_id <= n:
            raise UsageError(f"party_id must be in 1..{n}, got {party_id}")
        _check_publication(publication)
        self.n = int(n)
        self.modulus = int(modulus) if modulus is not None else self.n + 1
        self.x = check_inputs(x, self.modulus, self.n)
        self.cells = self.x.size
        self.dtype = smallest_uint(self.modulus)
        self.publication = publication
        self.entropy = entropy if entropy is not None else SystemEntropy()
        self.run = run
        self._acc = np.zeros(self.cells, np.uint64)
        self._shares_from: dict[int, bytes] = {}  # sender -> digest (duplicate detection)
        self._published: dict[int, bytes] = {}
        self._pub_acc = np.zeros(self.cells, np.uint64)
        others = set(range(1, self.n + 1)) - {self.party_id}
        self._no_share_yet = set(others)
        self._no_publication_yet = others if publication == "all-to-all" else {COORDINATOR}

    # -- protocol -----------------------------------------------------------------
    def start(self) -> list[Send]:
        m, n = self.modulus, self.n
        r = self.entropy.uniform(m, (n, self.cells))  # rows: r_i1 .. r_in
        r[n - 1] = (np.uint64(m) - r[: n - 1].sum(axis=0) % np.uint64(m)) % np.uint64(m)
        own = self.party_id - 1
        self._acc += r[own]
        wire = r.astype(self.dtype)
        return [
            Send(j + 1, MeshShare(share=WireArray.from_numpy(wire[j]), run=self.run, step=2))
            for j in range(n)
            if j != own
        ]

    def waiting_for(self) -> AbstractSet[int]:
        if self.done:
            return NOBODY
        if self.state is MeshState.SHARING:
            return self._no_share_yet
        return self._no_publication_yet

    def _store(self, store: dict[int, bytes], src: int, arr: np.ndarray, what: str) -> None:
        """Record a digest of ``arr`` from ``src``; a second message raises PeerError.

        An identical duplicate is only reported; a conflicting one also aborts.
        """
        digest = hashlib.blake2b(arr.tobytes(), digest_size=16).digest()
        if src in store:
            if store[src] == digest:
                raise PeerError(f"{self.name}: duplicate {what} from party {src} ignored", src)
            self.abort(f"{self.name}: party {src} sent two different {what}s", [src])
            raise PeerError(f"{self.name}: conflicting {what} from party {src}", src)
        store[src] = digest

    def _read(self, w: WireArray, src: int, what: str) -> np.ndarray:
        try:
            return read_residues(w, self.modulus, self.cells, src, what)
        except PeerError:
            self.abort(f"{self.name}: malformed {what} from party {src}", [src])
            raise

    def _on_share(self, src: int, msg: MeshShare) -> list[Send]:
        if not (1 <= src <= self.n) or src == self.party_id:
            raise PeerError(f"{self.name}: share from non-party {src}", src)
        arr = self._read(msg.share, src, "share")
        self._store(self._shares_from, src, arr, "share")
        self._no_share_yet.discard(src)
        self._acc += arr
        return []

    def _publish(self) -> list[Send]:
        """Step 3: ``r_j = sum_i r_ij + x_j (mod m)``, to everyone or to the board."""
        m = np.uint64(self.modulus)
        r_j = ((self._acc % m + self.x) % m).astype(self.dtype)
        pub = MeshPublish(value=WireArray.from_numpy(r_j), run=self.run, step=3)
        if self.publication == "board":
            return [Send(COORDINATOR, pub)]
        self._published[self.party_id] = b""
        self._pub_acc += r_j
        return [Send(j, pub) for j in range(1, self.n + 1) if j != self.party_id]

    def _on_publish(self, src: int, msg: MeshPublish) -> list[Send]:
        if self.publication == "board" or not (1 <= src <= self.n) or src == self.party_id:
            raise PeerError(f"{self.name}: unexpected publication from party {src}", src)
        arr = self._read(msg.value, src, "publication")
        self._store(self._published, src, arr, "publication")
        self._no_publication_yet.discard(src)
        self._pub_acc += arr
        return []

    def _sum_publications(self) -> list[Send]:
        self._finish(self._pub_acc % np.uint64(self.modulus))
        return []

    def _on_total(self, src: int, msg: MeshTotal) -> list[Send]:
        if self.publication != "board" or src != COORDINATOR:
            raise PeerError(f"{self.name}: unexpected total from party {src}", src)
        self._finish(self._read(msg.total, src, "total"))
        return []

    def _finish(self, total: np.ndarray) -> None:
        ids = tuple(range(1, self.n + 1))
        self.finish(SumResult(total.astype(np.int64), ids, self.n, self.modulus))

    S = MeshState
    TRANSITIONS = table({
        (S.SHARING, MeshShare): Transition(_on_share, S.SHARING),
        (S.SHARING, MeshPublish): Transition(_on_publish, S.SHARING),  # a faster party's
        (S.SHARING, AllIn): Transition(_publish, S.PUBLISHING),
        (S.PUBLISHING, MeshShare): Transition(_on_share, S.PUBLISHING),  # duplicates: reported
        (S.PUBLISHING, MeshPublish): Transition(_on_publish, S.PUBLISHING),
        (S.PUBLISHING, MeshTotal): Transition(_on_total, S.DONE),
        (S.PUBLISHING, AllIn): Transition(_sum_publications, S.DONE),
    })
    del S


class BulletinBoard(Role):
    """Party 0 in ``"board"`` publication mode: collects ``r_j``, publishes their sum mod m."""

    message_types = MESH_MESSAGES

    def __init__(self, n: int, cells: int, *, modulus: int | None = None, run: str = "") -> None:
        super().__init__(COORDINATOR, BoardState.COLLECTING)
        self.n = int(n)
        self.cells = int(cells)
        self.modulus = int(modulus) if modulus is not None else self.n + 1
        self.dtype = smallest_uint(self.modulus)
        self.run = run
        self._got: dict[int, np.ndarray] = {}
        self._missing = set(range(1, self.n + 1))
        self._acc = np.zeros(self.cells, np.uint64)

    def start(self) -> list[Send]:
        return []

    def waiting_for(self) -> AbstractSet[int]:
        return NOBODY if self.done else self._missing

    def _on_publish(self, src: int, msg: MeshPublish) -> list[Send]:
        if not 1 <= src <= self.n:
            raise PeerError(f"{self.name}: publication from non-party {src}", src)
        try:
            arr = read_residues(msg.value, self.modulus, self.cells, src, "publication")
        except PeerError:
            self.abort(f"{self.name}: malformed publication from party {src}", [src])
            raise
        if src in self._got:
            if np.array_equal(self._got[src], arr):
                raise PeerError(f"{self.name}: duplicate publication from party {src} ignored", src)
            self.abort(f"{self.name}: party {src} published two different values", [src])
            raise PeerError(f"{self.name}: conflicting publication from party {src}", src)
        self._got[src] = arr
        self._missing.discard(src)
        self._acc += arr
        return []

    def _publish_total(self) -> list[Send]:
        total = self._acc % np.uint64(self.modulus)
        ids = tuple(range(1, self.n + 1))
        self.finish(SumResult(total.astype(np.int64), ids, self.n, self.modulus))
        out = MeshTotal(total=WireArray.from_numpy(total.astype(self.dtype)), run=self.run, step=4)
        return broadcast(range(1, self.n + 1), out)

    TRANSITIONS = table({
        (BoardState.COLLECTING, MeshPublish): Transition(_on_publish, BoardState.COLLECTING),
        (BoardState.COLLECTING, AllIn): Transition(_publish_total, BoardState.DONE),
    })


def full_mesh_roles(
    inputs: np.ndarray,
    *,
    publication: Publication = "all-to-all",
    modulus: int | None = None,
    entropy: Callable[[int], Entropy] | None = None,
    run: str = "",
) -> dict[int, Role]:
    """Roles for one full-mesh run over the rows of ``inputs`` (party ``i`` holds row ``i-1``).

    ``entropy(party_id)`` supplies each party's source (default: system CSPRNG).
    Party 0 (the board) is included only for ``publication="board"``.
    """
    x = np.asarray(inputs)
    if x.ndim != 2:
        raise UsageError(f"inputs must be a 2-D (parties, cells) array, got shape {x.shape}")
    _check_publication(publication)
    n, cells = x.shape
    roles: dict[int, Role] = {}
    if publication == "board":
        roles[COORDINATOR] = BulletinBoard(n, cells, modulus=modulus, run=run)
    for i in range(1, n + 1):
        ent = entropy(i) if entropy is not None else None
        roles[i] = FullMeshParty(
            i, n, x[i - 1], modulus=modulus, publication=publication, entropy=ent, run=run
        )
    return roles
