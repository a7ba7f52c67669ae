"""SecAgg+'s keys step and the draw of its graph and committee, both sides
(:mod:`mpc_rr.secure_sum._public_randomness`).

A mixin of :class:`~mpc_rr.secure_sum.secagg.SecAggClient` and a pure function
of the aggregator's ledger for :class:`~mpc_rr.secure_sum.secagg.SecAggServer`
(kept apart so each role's module stays readable): in the keys step every party commits to 32 random
bytes inside its signed keys; the aggregator fixes the commitment set and
sends its digest ``D`` (:class:`DrawCommitted`); each party signs ``D`` and
reveals (:class:`DrawReveal`); :class:`NeighborKeys` carries the revealers'
reveals, from which each party derives the seed of the graph and the
committee.  A missing or wrong reveal of a revealer restarts the run without
it (a fresh draw; after the retries, an abort naming it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from mpc_rr.core import COORDINATOR, PeerError, Send
from mpc_rr.secure_sum._graph import Graph
from mpc_rr.secure_sum._public_randomness import (
    DRAW_BYTES,
    check_reveals,
    joint_seed,
    revealer_count,
    revealers,
)
from mpc_rr.secure_sum.secagg._ledger import ServerLedger
from mpc_rr.secure_sum.secagg._messages import (
    PROTOCOL,
    DrawCommitted,
    DrawReveal,
    NeighborKeys,
    bitmap,
    read_bitmap,
)
from mpc_rr.secure_sum.secagg._params import SecAggConfig, drawn_graph, parties_in

__all__ = ["ClientDraw", "ServerDraw", "server_draw"]


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


class ServerDraw(NamedTuple):
    """What the aggregator's NeighborKeys carry of the draw (:func:`server_draw`)."""

    #: the contributors' bitmap
    contributors: bytes
    #: the revealers' reveals, in id order
    reveals: bytes
    #: the revealers' signed keys (``c_pk || s_pk || b_commit`` each) and key signatures, when
    #: not every contributor reveals (the parties cannot recompute ``D`` then); else empty
    revealer_keys: bytes
    revealer_signatures: list[bytes]
    #: every party's signature on ``D`` (``b""`` for the silent), indexed by party id
    draw_signatures: list[bytes]


def server_draw(ledger: ServerLedger, cfg: SecAggConfig, name: str) -> tuple[bytes, ServerDraw]:
    """The aggregator's side: the joint seed from the revealers' reveals in ``ledger``, and
    what NeighborKeys carries of the draw.  A missing reveal is a :class:`Retry` naming the
    revealer: the seed uses exactly the committed contributions (excluding one after seeing
    the others would let the relay choose among seeds), so the run starts again, with a
    fresh draw, without it."""
    from mpc_rr.secure_sum.secagg._unmasking import Retry, ids_text  # it imports the client

    contributors = ledger.contributors
    count = revealer_count(int(contributors.sum()), parties_in(cfg.max_corrupt, cfg.n))
    ids = revealers(ledger.digest, contributors, count).tolist()
    missing = [u for u in ids if u not in ledger.draw_reveals]
    if missing:
        raise Retry(
            f"{name}: the draw's reveals of {ids_text(missing)} are missing or do not open "
            "their commitments; the run's public randomness needs every committed one",
            missing, missing, proven=False,
        )  # fmt: skip
    reveals = b"".join(ledger.draw_reveals[u].reveal for u in ids)
    seed = joint_seed(ledger.digest, reveals)
    rev_keys, rev_sigs = b"", []
    if count < int(contributors.sum()):  # the parties cannot recompute D: the revealers' signed keys
        rev_keys = np.concatenate([ledger.c_pk[ids], ledger.s_pk[ids], ledger.commit[ids]], axis=1).tobytes()
        rev_sigs = [ledger.key_sigs[u] for u in ids]
    draw_sigs: list[bytes] = [b""] * (cfg.n + 1)
    for u, m in ledger.draw_reveals.items():
        draw_sigs[u] = m.signature
    return seed, ServerDraw(bitmap(contributors), reveals, rev_keys, rev_sigs, draw_sigs)
