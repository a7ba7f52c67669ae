"""SecAgg+'s keys step and the draw of its graph and committee, both sides
(:mod:`mpc_rr.secure_sum._public_randomness`).

Mixins of :class:`~mpc_rr.secure_sum.secagg.SecAggClient` and
:class:`~mpc_rr.secure_sum.secagg.SecAggServer` (kept apart so each role's
module stays readable): in the keys step every party commits to 32 random
bytes inside its signed keys; the aggregator fixes the commitment set and
sends its digest ``D`` (:class:`DrawCommitted`); each party signs ``D`` and
reveals (:class:`DrawReveal`); :class:`NeighborKeys` carries the revealers'
reveals, from which each party derives the seed of the graph and the
committee.  A missing or wrong reveal of a revealer aborts the run, naming
it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from mpc_rr.core import COORDINATOR, PeerError, Send
from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum._public_randomness import (
    DRAW_BYTES,
    check_reveals,
    commitment,
    commitments_digest,
    joint_seed,
    revealer_count,
    revealers,
)
from mpc_rr.secure_sum.secagg._messages import (
    PROTOCOL,
    AdvertiseKeys,
    DrawCommitted,
    DrawReveal,
    NeighborKeys,
    bitmap,
    read_bitmap,
)
from mpc_rr.secure_sum.secagg._params import SecAggConfig, drawn_graph, parties_in

__all__ = ["ClientDraw", "ServerDraw"]


class ClientDraw:
    """The data party's side of the draw (needs the client's state; module docstring)."""

    cfg: SecAggConfig
    run: str
    party_id: int
    pinned_graph: Graph | None
    seed: bytes | None
    graph: Graph
    committee: np.ndarray
    _r: bytes
    _digest: bytes
    identity: Any

    if TYPE_CHECKING:  # ClientChecks's (a broken variant overrides it)

        @property
        def _draw_label(self) -> str: ...

    if TYPE_CHECKING:  # the role's own (mixed in after this class)

        def _signed(self, round_: str, sender: int, *parts: bytes) -> bytes: ...

        def _from_aggregator(self, src: int) -> None: ...

        def _leave(self, what: str, why: str) -> PeerError: ...

        def _unproven_reveal(self, ids: list[int], reveals: bytes, keys: bytes, signatures: list[bytes]) -> int | None: ...

    def draw(self, seed: bytes) -> tuple[Graph, np.ndarray]:
        """The graph and the committee of the run whose joint seed is ``seed`` (a pinned
        graph: it and the label's committee, whatever the seed)."""
        if self.pinned_graph is not None:
            return self.pinned_graph, self.cfg.committee_for(None)
        return drawn_graph(self.cfg, seed), self.cfg.committee_for(seed)

    def _on_draw_committed(self, src: int, msg: DrawCommitted) -> list[Send]:
        """The commitment set is fixed: sign its digest and reveal my contribution."""
        self._from_aggregator(src)
        if len(msg.digest) != DRAW_BYTES:
            raise self._leave("DrawCommitted", f"a digest of {len(msg.digest)} bytes, not {DRAW_BYTES}")
        self._digest = msg.digest
        sig = self.identity.sign(self._signed("draw", self.party_id, msg.digest))
        return [Send(COORDINATOR, DrawReveal(run=self.run, step=0, reveal=self._r, signature=sig))]

    def _take_draw(self, msg: NeighborKeys) -> np.ndarray | None:
        """Check the revealers' reveals and derive the seed, the graph and the committee.

        Every contributor reveals (up to a few hundred parties): the reveals must hash to the
        digest I signed, mine among them; returns every contributor's draw commitment,
        ``(n + 1, 32)``.  Else the revealers (:func:`revealers` of that digest) each prove
        their reveal with their signed keys; returns None.
        """
        n, u = self.cfg.n, self.party_id
        members = read_bitmap(msg.contributors, n)
        if members is None or members[COORDINATOR] or not members[u]:
            raise self._leave("NeighborKeys", "the draw's contributors are not a bitmap over the parties with me in it")
        total = int(members.sum())
        ids = revealers(self._digest, members, revealer_count(total, parties_in(self.cfg.max_corrupt, n)))
        if len(msg.reveals) != DRAW_BYTES * ids.size:
            raise self._leave("NeighborKeys", f"{len(msg.reveals)} bytes of reveals for {ids.size} revealers")
        table = None
        if ids.size == total:
            got = check_reveals(PROTOCOL, self.run, members, msg.reveals, self._digest, commit_run=self._draw_label)
            if isinstance(got, str):
                raise self._leave("NeighborKeys", f"{got} (the draw was altered by the relay)")
            commits, seed = got
            table = np.zeros((n + 1, DRAW_BYTES), np.uint8)
            table[ids] = np.frombuffer(commits, np.uint8).reshape(ids.size, DRAW_BYTES)
            mine = int(np.searchsorted(ids, u))
            if msg.reveals[DRAW_BYTES * mine : DRAW_BYTES * (mine + 1)] != self._r:
                raise self._leave("NeighborKeys", "my own reveal is not the one I sent (the draw was altered by the relay)")
        else:
            bad = self._unproven_reveal(ids.tolist(), msg.reveals, msg.revealer_keys, msg.revealer_signatures)
            if bad is not None:
                raise self._leave(
                    "NeighborKeys", f"the reveal of party {bad} does not open its signed commitment (altered by the relay)"
                )
            seed = joint_seed(self._digest, msg.reveals)
        self.seed = seed
        self.graph, self.committee = self.draw(seed)
        return table



class ServerDraw:
    """The aggregator's side of the draw (needs the server's state; module docstring)."""

    cfg: SecAggConfig
    run: str
    name: str
    pinned_graph: Graph | None
    seed: bytes | None
    graph: Graph
    committee: np.ndarray
    alive: np.ndarray
    _contributors: np.ndarray
    _digest: bytes
    _draw_commit: np.ndarray
    _draw_reveals: dict[int, DrawReveal]
    _c_pk: np.ndarray
    _s_pk: np.ndarray
    _commit: np.ndarray
    _key_sigs: list[bytes]
    _keys: dict[int, AdvertiseKeys]

    if TYPE_CHECKING:  # the role's own (mixed in after this class)

        def _bound(self) -> None: ...

        def _drop_silent(self) -> None: ...

        def _collect(self, src: int, store: Any, read: Any, same: Any, what: str) -> list[Send]: ...

        def _guarded(self, step: Any, among: np.ndarray | None = None) -> list[Send]: ...

        def _check_draw(self, src: int, msg: DrawReveal, digest: bytes) -> None: ...

        def _check_keys(self, src: int, msg: AdvertiseKeys) -> None: ...

        def _send_neighbor_keys(self) -> list[Send]: ...

    def draw(self, seed: bytes) -> tuple[Graph, np.ndarray]:
        """The graph and the committee of the run whose joint seed is ``seed`` (a pinned
        graph: it and the label's committee)."""
        if self.pinned_graph is not None:
            return self.pinned_graph, self.cfg.committee_for(None)
        return drawn_graph(self.cfg, seed), self.cfg.committee_for(seed)

    def _on_keys(self, src: int, msg: AdvertiseKeys) -> list[Send]:
        def read() -> AdvertiseKeys:
            for name in ("c_pk", "s_pk", "b_commit", "draw_commit"):
                if len(getattr(msg, name)) != 32:
                    raise PeerError(f"{self.name}: {name} from party {src} is not 32 bytes", src)
            self._check_keys(src, msg)
            return msg

        return self._collect(src, self._keys, read, lambda a, b: a == b, "AdvertiseKeys")

    def _close_keys(self) -> list[Send]:
        self._drop_silent()
        got = [(u, msg) for u, msg in self._keys.items() if self.alive[u]]
        if got:  # every field was checked to be 32 bytes on receipt
            ids = [u for u, _ in got]
            tables = ((self._c_pk, "c_pk"), (self._s_pk, "s_pk"), (self._commit, "b_commit"),
                      (self._draw_commit, "draw_commit"))  # fmt: skip
            for table, field in tables:
                raw = b"".join([getattr(msg, field) for _, msg in got])
                table[ids] = np.frombuffer(raw, np.uint8).reshape(len(ids), 32)
            for u, msg in got:
                self._key_sigs[u] = msg.signature
        self._keys = {}
        return self._guarded(self._commit_draw)

    def _commit_draw(self) -> list[Send]:
        """Fix the contributors (every party whose keys arrived) and send the digest ``D``."""
        self._bound()
        self._contributors = self.alive.copy()
        ids = np.flatnonzero(self._contributors)
        self._digest = commitments_digest(PROTOCOL, self.run, self._contributors, self._draw_commit[ids].tobytes())
        msg = DrawCommitted(run=self.run, step=0, digest=self._digest)
        return [Send(int(u), msg) for u in ids.tolist()]

    def _on_reveal(self, src: int, msg: DrawReveal) -> list[Send]:
        def read() -> DrawReveal:
            if not self._contributors[src]:
                raise PeerError(f"{self.name}: party {src} revealed a draw it did not commit to", src)
            if len(msg.reveal) != DRAW_BYTES or not self._draw_opens(src, msg.reveal):
                raise PeerError(f"{self.name}: the reveal of party {src} does not open its commitment", src)
            self._check_draw(src, msg, self._digest)
            return msg

        return self._collect(src, self._draw_reveals, read, lambda a, b: a == b, "DrawReveal")

    def _draw_opens(self, src: int, reveal: bytes) -> bool:
        return bool(commitment(PROTOCOL, self.run, src, reveal) == self._draw_commit[src].tobytes())

    def _close_draw(self) -> list[Send]:
        """Every contributor revealed: the seed.  Else abort, naming who did not: the seed
        uses exactly the committed contributions, so excluding one after seeing the others
        would let the relay choose among seeds."""
        self._drop_silent()
        return self._guarded(self._send_neighbor_keys)

    def _seed_draw(self) -> tuple[bytes, bytes, bytes, list[bytes], list[bytes]]:
        """The seed from the revealers' reveals (a missing one aborts, naming it), the graph and
        the committee; returns what NeighborKeys carries of the draw: the contributors' bitmap,
        the reveals, the revealers' keys and signatures (when not everyone reveals) and every
        party's signature on the digest."""
        from mpc_rr.secure_sum.secagg._unmasking import Abort, ids_text  # it imports the client

        count = revealer_count(int(self._contributors.sum()), parties_in(self.cfg.max_corrupt, self.cfg.n))
        ids = revealers(self._digest, self._contributors, count).tolist()
        missing = [u for u in ids if u not in self._draw_reveals]
        if missing:
            raise Abort(
                f"{self.name}: the draw's reveals of {ids_text(missing)} are missing or do not open "
                "their commitments; the run's public randomness needs every committed one",
                missing,
            )
        reveals = b"".join(self._draw_reveals[u].reveal for u in ids)
        self.seed = joint_seed(self._digest, reveals)
        self.graph, self.committee = self.draw(self.seed)
        contributors = bitmap(self._contributors)
        rev_keys, rev_sigs = b"", []
        if count < int(self._contributors.sum()):  # the parties cannot recompute D: the revealers' signed keys
            rev_keys = np.concatenate([self._c_pk[ids], self._s_pk[ids], self._commit[ids]], axis=1).tobytes()
            rev_sigs = [self._key_sigs[u] for u in ids]
        draw_sigs: list[bytes] = [b""] * (self.cfg.n + 1)
        for u, m in self._draw_reveals.items():
            draw_sigs[u] = m.signature
        self._draw_reveals = {}
        return contributors, reveals, rev_keys, rev_sigs, draw_sigs

