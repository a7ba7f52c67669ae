"""The aggregator's state: feed one block's counts -> new tables and stopping status.

:class:`BlockAggregator` is the pure core of an RRBA Aggregator role
(Imran & Meo, Algorithm 1 ``Aggregator`` with Sec. 4.1.1 blocks and the
Sec. 5 stopping rule).  It never sees an individual answer: a block is
summarized by its per-table counts ``o`` and answer numbers ``n`` -- which is
also all a secure tally (SecAgg+ over one-hot answers) would reveal.

Per block and table ``s`` with ``n_s > 0`` answers:

1. the raw estimate: Eq. 4 (``estimator="paper"``) from this block alone, or
   the pooled estimator over all blocks so far (``"pooled"``, the default),
   both computed with the table ``T_s`` this block's clients sampled from;
2. the repaired estimate (``repair``: ``clip`` | ``project``) -- the table the
   stopping rule and the output look at;
3. the stopping rule (Sec. 5) between this estimate and the previous one,
   evaluated from the ``min_blocks``-th block with answers on (default 2:
   both estimates come from data; the paper would also compare block 1 with
   the uniform initialization);
4. with ``stop="first"`` a table whose rule held is frozen and no longer
   asked (:attr:`active` is False); with ``stop="never"`` (default) it keeps collecting
   to the end.  The *output* is, for ``estimator="paper"``, the mean of the
   last two block estimates (Sec. 5, step 4); for ``"pooled"`` the latest
   estimate, which already averages every block (averaging it with its
   predecessor would count the early blocks twice, and with ``p = 1`` it would
   no longer be the exact table);
5. the next table to send: the repaired estimate mixed with the uniform
   table so that no cell is below ``t_floor``.

Tables with ``n_s = 0`` in a block are left unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.rrba._choices import ESTIMATORS, STOPS
from mpc_rr.rrba._client import check_p
from mpc_rr.rrba._privacy import table_epsilon
from mpc_rr.rrba._stopping import check_alpha, holds
from mpc_rr.rrba._tables import Layout
from mpc_rr.rrba._update import REPAIRS, apply_floor, check_floor, eq4, pooled, repair

__all__ = ["ESTIMATORS", "STOPS", "BlockAggregator", "BlockReport", "tally"]



def tally(
    tables_of: np.ndarray, cells: np.ndarray, layout: Layout
) -> tuple[np.ndarray, np.ndarray]:
    """Per-table counts ``(S, W)`` and answer numbers ``(S,)`` of answers ``cells[j]`` to tables
    ``tables_of[j]`` -- what the aggregator (or a secure sum of one-hot answers) computes."""
    t = np.asarray(tables_of, dtype=np.int64)
    c = np.asarray(cells, dtype=np.int64)
    s, w = layout.n_tables, layout.width
    if t.size and ((c < 0).any() or (c >= np.asarray(layout.cells)[t]).any()):
        j = int(np.flatnonzero((c < 0) | (c >= np.asarray(layout.cells)[t]))[0])
        raise UsageError(
            f"tally: answer {j} names cell {c[j]} of table {t[j]}, which has {layout.cells[t[j]]}"
        )
    counts = np.bincount(t * w + c, minlength=s * w).reshape(s, w)
    return counts, np.bincount(t, minlength=s)


@dataclass(frozen=True)
class BlockReport:
    """What one block changed (all arrays are per table, packed ``(S, W)`` or ``(S,)``).

    ``sent`` are the tables this block's clients sampled from and ``epsilon``
    their true per-answer epsilon; ``estimate`` the repaired estimates after
    the block; ``held`` where the stopping rule held; ``stopped`` the tables
    frozen by this block; ``tables`` what the next block will be sent.
    """

    block: int
    n: np.ndarray
    sent: np.ndarray
    epsilon: np.ndarray
    estimate: np.ndarray
    held: np.ndarray
    stopped: np.ndarray
    tables: np.ndarray


class BlockAggregator:
    """Running RRBA state over the packed tables of ``layout`` (see the module docstring).

    ``initial`` replaces the uniform starting tables (e.g. a public prior).
    """

    def __init__(
        self,
        layout: Layout,
        p: float,
        *,
        estimator: str = "pooled",
        repair: str = "clip",
        alpha: float = 0.05,
        t_floor: float = 0.0,
        stop: str = "never",
        min_blocks: int = 2,
        initial: np.ndarray | None = None,
    ) -> None:
        if estimator not in ESTIMATORS:
            raise UsageError(f"estimator must be one of {ESTIMATORS}, got {estimator!r}")
        if repair not in REPAIRS:
            raise UsageError(f"repair must be one of {REPAIRS}, got {repair!r}")
        if stop not in STOPS:
            raise UsageError(f"stop must be one of {STOPS}, got {stop!r}")
        if isinstance(min_blocks, bool) or not isinstance(min_blocks, int) or min_blocks < 1:
            raise UsageError(f"min_blocks must be an int >= 1, got {min_blocks!r}")
        self.layout = layout
        self.p = check_p(p)
        self.estimator = estimator
        self.repair_method = repair
        self.alpha = check_alpha(alpha)
        self.t_floor = check_floor(t_floor, layout)
        self.stop = stop
        self.min_blocks = min_blocks
        s, w = layout.n_tables, layout.width
        start = (
            layout.uniform() if initial is None else layout.check_distributions(initial, "initial")
        )
        self._estimate = start.copy()  # T^{B_0}: uniform (Sec. 5, step 1) unless given
        self._previous = start.copy()
        self._tables = apply_floor(start, layout, self.t_floor)
        self._output = np.zeros((s, w))
        self._sum_counts = np.zeros((s, w))
        self._sum_nt = np.zeros((s, w))
        self._sum_n = np.zeros(s)
        self._blocks_used = np.zeros(s, dtype=np.int64)
        self._first_held = np.zeros(s, dtype=np.int64)  # 0 = never
        self._active = np.ones(s, dtype=bool)
        self._held_now = np.zeros(s, dtype=bool)  # rule at each table's latest data block
        self._block = 0

    # ------------------------------------------------------------------ state
    @property
    def tables(self) -> np.ndarray:
        """The tables to send to the next block's clients (copy)."""
        return self._tables.copy()

    @property
    def active(self) -> np.ndarray:
        """Tables still being collected (copy)."""
        return self._active.copy()

    @property
    def block(self) -> int:
        """Blocks fed so far."""
        return self._block

    @property
    def blocks_used(self) -> np.ndarray:
        """Per table, blocks that contributed answers."""
        return self._blocks_used.copy()

    @property
    def answers(self) -> np.ndarray:
        """Per table, answers collected."""
        return self._sum_n.astype(np.int64)

    @property
    def first_held(self) -> np.ndarray:
        """Per table, the first block (1-based, global) at which the rule held; 0 if never."""
        return self._first_held.copy()

    @property
    def converged(self) -> np.ndarray:
        """Per table: ``stop="first"``: the rule held (table frozen); ``"never"``: it holds now."""
        if self.stop == "first":
            return ~self._active
        return self._held_now.copy()

    def output(self) -> np.ndarray:
        """The final estimate of each table, packed ``(S, W)`` (see item 4 above)."""
        return np.where(self._active[:, None], self._final(), self._output)

    def _final(self) -> np.ndarray:
        if self.estimator == "paper":
            return np.asarray(0.5 * (self._estimate + self._previous))
        return self._estimate

    # ------------------------------------------------------------------- feed
    def feed(self, counts: np.ndarray, n: np.ndarray) -> BlockReport:
        """One block's per-table answer counts ``(S, W)`` and answer numbers ``(S,)``."""
        counts, n = self._check_block(counts, n)
        lay = self.layout
        sent = self._tables
        seen = n > 0
        self._sum_n += n  # answers collected, whichever estimator
        if self.estimator == "paper":
            raw = eq4(counts, n, sent, self.p)
        else:
            self._sum_counts += counts
            self._sum_nt += n[:, None] * sent
            raw = pooled(self._sum_counts, self._sum_n, self._sum_nt, self.p)
        est = np.where(seen[:, None], repair(raw, lay, self.repair_method), self._estimate)
        self._blocks_used += seen
        check = seen & (self._blocks_used >= self.min_blocks)
        held = check & holds(self._estimate, est, n, lay.mask, self.alpha)
        self._held_now = np.where(seen, held, self._held_now)
        self._block += 1
        self._first_held = np.where(held & (self._first_held == 0), self._block, self._first_held)
        self._previous = np.where(seen[:, None], self._estimate, self._previous)
        self._estimate = est
        stopped = held if self.stop == "first" else np.zeros_like(held)
        if stopped.any():
            self._output[stopped] = self._final()[stopped]
            self._active &= ~stopped
        self._tables = apply_floor(est, lay, self.t_floor)
        return BlockReport(
            block=self._block,
            n=n,
            sent=sent,
            epsilon=table_epsilon(sent, lay, self.p),
            estimate=est,
            held=held,
            stopped=stopped,
            tables=self._tables,
        )

    def _check_block(self, counts: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        lay = self.layout
        c = np.asarray(counts)
        nn = np.asarray(n)
        if c.shape != (lay.n_tables, lay.width):
            raise UsageError(
                f"feed: counts must have shape {(lay.n_tables, lay.width)}, got {c.shape}"
            )
        if nn.shape != (lay.n_tables,):
            raise UsageError(f"feed: n must have shape ({lay.n_tables},), got {nn.shape}")
        if (c < 0).any() or (nn < 0).any():
            raise UsageError("feed: counts and n must be non-negative")
        if (c[~lay.mask] != 0).any():
            raise UsageError("feed: counts in padding cells must be 0")
        sums = c.sum(axis=1)
        bad = np.flatnonzero(sums != nn)
        if bad.size:
            raise UsageError(
                f"feed: table {bad[0]} counts sum to {sums[bad[0]]}, but n = {nn[bad[0]]}"
            )
        idle = np.flatnonzero((nn > 0) & ~self._active)
        if idle.size:
            raise UsageError(
                f"feed: table {idle[0]} has stopped but received {nn[idle[0]]} answers"
            )
        return c.astype(float), nn.astype(np.int64)
