"""One RRBA collection as the aggregator keeps it, block by block (pure: no messages).

:class:`Collection` is the one piece the centralized engine
(:func:`~mpc_rr.rrba.run_rrba`) and the distributed Aggregator role
(:class:`~mpc_rr.rrba.RRBAAggregator`) share, so both make
the same draws in the same order and keep the same record:

1. :meth:`Collection.next_block` plans the next block (Sec. 4.1.1): its
   clients are the next ``block`` client indices (data order), each is
   assigned a view with :func:`~mpc_rr.rrba.assign_views` (the
   aggregator's generator), and is asked the *active* subsets of its view,
   in view order, with the current tables;
2. whoever collects the answers (a vectorized loop, the messages of the
   clients, or a secure sum of their one-hot answers) turns them into
   per-table counts;
3. :meth:`Collection.close_block` feeds them to the
   :class:`~mpc_rr.rrba.BlockAggregator` with a
   :class:`BlockRecord` of who was asked, who answered and who was left out,
   and records the block's history (answers so far, estimates, stopping rule,
   the worst asked client's true epsilon).

A block whose clients all dropped (or whose secure tally failed) is fed as
an empty block: it counts as a block, changes no table.  :meth:`outcome`
returns everything the aggregator knows -- never the truth, which only the
evaluation holds (:func:`~mpc_rr.rrba.assemble`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.rrba._aggregator import BlockAggregator, BlockReport
from mpc_rr.rrba._tables import SubsetIndex
from mpc_rr.rrba._views import Cover, assign_views

__all__ = ["BlockPlan", "BlockRecord", "Collection", "RRBAOutcome", "dropout_totals"]


@dataclass(frozen=True)
class BlockPlan:
    """What block ``block`` (1-based) asks.

    ``clients`` are 0-based client indices (client ``i`` is party ``i + 1``);
    ``views[j]`` is client ``j``'s view; ``tables_of[j]`` its view's table
    ids (padded with -1) and ``asked[j]`` which of them it is asked (the
    active ones); ``tables`` the packed tables every client of the block is
    sent.
    """

    block: int
    clients: np.ndarray
    views: np.ndarray
    tables_of: np.ndarray
    asked: np.ndarray
    tables: np.ndarray

    @property
    def size(self) -> int:
        return int(self.clients.size)

    def asked_tables(self, j: int) -> np.ndarray:
        """Table ids client ``j`` of the block is asked, in view order."""
        row: np.ndarray = self.tables_of[j][self.asked[j]]
        return row


@dataclass(frozen=True)
class BlockRecord:
    """Who took part in one block (party ids: client index + 1).

    ``answered`` counts the clients whose answers are in the block's tally;
    ``silent`` had not answered by the block's deadline; ``rejected`` sent a
    malformed answer, an answer to another view, or two different answers;
    ``lost`` is non-empty when the whole block was left out (its secure
    tally failed or was inconsistent), and says why.
    """

    block: int
    asked: int
    answered: int
    silent: tuple[int, ...] = ()
    rejected: tuple[int, ...] = ()
    lost: str = ""

    @property
    def left_out(self) -> int:
        """Clients asked whose answers are not in the tally."""
        return self.asked - self.answered

    def to_json(self) -> dict[str, object]:
        return {
            "block": self.block,
            "asked": self.asked,
            "answered": self.answered,
            "left_out": self.left_out,
            "silent": list(self.silent),
            "rejected": list(self.rejected),
            "lost": self.lost or None,
        }


@dataclass(frozen=True)
class RRBAOutcome:
    """Everything the aggregator knows at the end of a collection (no truth).

    Per table ``s`` of ``cover.subsets``: ``output[s]`` (packed final
    estimate), ``blocks_used``, ``answers``, ``converged``, ``first_held``.
    Per block ``b``: ``tuples[b, s]`` answers collected so far,
    ``estimates[b]`` the repaired estimates after it, ``held[b, s]``,
    ``epsilon_block[b]`` the worst asked client's true epsilon (its view's
    subsets composed), and ``records[b]``.  ``clients`` counts the clients
    asked (the collection may stop before the data runs out); ``late`` the
    messages that arrived after their block closed (distributed runs);
    ``sent[s]`` how many clients were sent table ``s`` (answered or not).
    """

    cover: Cover
    index: SubsetIndex
    output: np.ndarray
    blocks_used: np.ndarray
    answers: np.ndarray
    converged: np.ndarray
    first_held: np.ndarray
    tuples: np.ndarray
    estimates: np.ndarray
    held: np.ndarray
    epsilon_block: np.ndarray
    epsilon_table_max: np.ndarray
    clients: int
    blocks: int
    p: float
    options: dict[str, object] = field(default_factory=dict)
    records: tuple[BlockRecord, ...] = ()
    late: int = 0
    sent: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def dropouts(self) -> dict[str, int]:
        """Totals over the blocks (:func:`dropout_totals`)."""
        return dropout_totals(self.records)


def dropout_totals(records: tuple[BlockRecord, ...]) -> dict[str, int]:
    """Totals over ``records``: asked, answered, left out, silent, rejected, lost blocks."""
    return {
        "asked": sum(b.asked for b in records),
        "answered": sum(b.answered for b in records),
        "left_out": sum(b.left_out for b in records),
        "silent": sum(len(b.silent) for b in records),
        "rejected": sum(len(b.rejected) for b in records),
        "lost_blocks": sum(1 for b in records if b.lost),
    }


class Collection:
    """The aggregator's side of one RRBA run over ``n_clients`` clients (see module docstring).

    Options are :class:`~mpc_rr.rrba.BlockAggregator`'s; ``rng``
    is the aggregator's generator (view assignment only).
    """

    def __init__(
        self,
        index: SubsetIndex,
        cover: Cover,
        n_clients: int,
        block: int,
        p: float,
        *,
        rng: np.random.Generator,
        estimator: str = "pooled",
        repair: str = "clip",
        alpha: float = 0.05,
        t_floor: float = 0.0,
        stop: str = "never",
        min_blocks: int = 2,
    ) -> None:
        if tuple(cover.subsets) != tuple(index.subsets):
            raise UsageError("Collection: index and cover list different subsets")
        if n_clients < 1 or block < 1:
            raise UsageError(f"Collection: n_clients and block must be >= 1, got {n_clients}, {block}")
        self.index = index
        self.cover = cover
        self.layout = index.layout
        self.n_clients = int(n_clients)
        self.block = int(block)
        self.rng = rng
        self.agg = BlockAggregator(
            self.layout, p, estimator=estimator, repair=repair, alpha=alpha, t_floor=t_floor,
            stop=stop, min_blocks=min_blocks,
        )  # fmt: skip
        self.options: dict[str, object] = {
            "k": cover.k, "block": self.block, "estimator": estimator, "repair": repair,
            "alpha": alpha, "t_floor": t_floor, "stop": stop, "min_blocks": min_blocks,
        }  # fmt: skip
        self._view_tables = cover.padded_tables()
        self._next = 0  # first client index of the next block
        self._tuples: list[np.ndarray] = []
        # every block's estimates, written in place (zero pages cost nothing until a block
        # fills them): no list of arrays copied into one at the end, so the history is held once
        self._estimates = np.zeros((-(-self.n_clients // self.block), *self.layout.mask.shape))
        self._held: list[np.ndarray] = []
        self._eps_block: list[float] = []
        self._eps_table_max = np.zeros(self.layout.n_tables)
        self._sent = np.zeros(self.layout.n_tables, np.int64)
        self._records: list[BlockRecord] = []
        self._open: BlockPlan | None = None

    @property
    def finished(self) -> bool:
        """No block left: the clients ran out, or every table stopped (``stop="first"``)."""
        return self._open is None and (
            self._next >= self.n_clients or not self.agg.active.any()
        )

    @property
    def clients_asked(self) -> int:
        return self._next

    @property
    def records(self) -> tuple[BlockRecord, ...]:
        """The records of the blocks closed so far."""
        return tuple(self._records)

    def next_block(self) -> BlockPlan | None:
        """Plan the next block (``None`` when :attr:`finished`)."""
        if self._open is not None:
            raise UsageError(f"Collection: block {self._open.block} is still open")
        if self.finished:
            return None
        rows = np.arange(self._next, min(self._next + self.block, self.n_clients))
        active = self.agg.active
        views = assign_views(rows.size, self._view_tables, active, self._next, self.rng)
        tabs = self._view_tables[views]
        asked = (tabs >= 0) & active[np.maximum(tabs, 0)]
        self._next = int(rows[-1]) + 1
        self._open = BlockPlan(self.agg.block + 1, rows, views, tabs, asked, self.agg.tables)
        return self._open

    def close_block(
        self, plan: BlockPlan, counts: np.ndarray, n: np.ndarray, record: BlockRecord
    ) -> BlockReport:
        """Feed block ``plan``'s counts ``(S, W)`` and answer numbers ``(S,)``; record it."""
        if plan is not self._open:
            raise UsageError(f"Collection: block {plan.block} is not the open block")
        if record.block != plan.block or record.asked != plan.size:
            raise UsageError(
                f"Collection: record of block {record.block} ({record.asked} asked) does not "
                f"match block {plan.block} ({plan.size} asked)"
            )
        rep = self.agg.feed(counts, n)
        self._open = None
        # every asked client's epsilon, answered or not (its answer may have been lost)
        ci, li = np.nonzero(plan.asked)
        t_ids = plan.tables_of[ci, li]
        per_client = np.bincount(ci, weights=rep.epsilon[t_ids], minlength=plan.size)
        self._sent += np.bincount(t_ids, minlength=self.layout.n_tables)
        self._eps_block.append(float(per_client.max()) if ci.size else 0.0)
        nn = np.asarray(n)
        self._eps_table_max = np.maximum(self._eps_table_max, np.where(nn > 0, rep.epsilon, 0.0))
        self._tuples.append(self.agg.answers)
        self._estimates[len(self._tuples) - 1] = rep.estimate
        self._held.append(rep.held)
        self._records.append(record)
        return rep

    def outcome(self) -> RRBAOutcome:
        """The aggregator's record of the whole collection."""
        if self._open is not None:
            raise UsageError(f"Collection: block {self._open.block} is still open")
        agg, lay = self.agg, self.layout
        k = len(self._tuples)
        return RRBAOutcome(
            cover=self.cover,
            index=self.index,
            output=agg.output(),
            blocks_used=agg.blocks_used,
            answers=agg.answers,
            converged=agg.converged,
            first_held=agg.first_held,
            tuples=np.array(self._tuples).reshape(k, lay.n_tables),
            estimates=self._estimates[:k],
            held=np.array(self._held).reshape(k, lay.n_tables),
            epsilon_block=np.array(self._eps_block),
            epsilon_table_max=self._eps_table_max.copy(),
            clients=self._next,
            blocks=agg.block,
            p=agg.p,
            options=dict(self.options),
            records=tuple(self._records),
            sent=self._sent.copy(),
        )
