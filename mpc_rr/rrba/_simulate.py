"""Centralized RRBA engines built only from the pure pieces of this package.

* :func:`run_rrba` runs a whole collection over a :class:`~mpc_rr.data.Dataset`
  block by block, exactly as the distributed roles do: the aggregator's
  :class:`~mpc_rr.rrba.Collection` (shared with the Aggregator
  role) assigns each client of a block a view (balanced: a random
  permutation of the views still being collected, continuing the rotation
  across blocks), every client answers the active subsets of its view with
  :func:`~mpc_rr.rrba.answers_from_uniforms`, the block's answers are
  tallied into per-table counts, and :class:`~mpc_rr.rrba.BlockAggregator`
  turns them into new tables and stopping status.  Clients are the records in
  data order (shuffle beforehand if the order means something).
  :func:`assemble` evaluates the aggregator's outcome (of this engine or of
  a distributed run) against the records.
* :func:`run_tables` runs ``R`` independent single-table collections at once
  (each client's true cell drawn from a given distribution): the convergence
  experiments (Sec. 7.1) and the independence test's simulations (Sec. 7.3).

Randomness: one :class:`numpy.random.SeedSequence` spawns the aggregator's
generator (view assignment) and the clients'.  ``client_rng="per-client"``
(default) gives client ``i`` its own generator from child ``i`` of the client
seed, which draws ``random((2, L))`` for its ``L`` subsets -- what a Client
role holding that generator does, so a distributed run can reproduce this one
exactly.  ``client_rng="shared"`` draws a block's uniforms from one generator
(faster; used by the reproductions).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mpc_rr.core import UsageError
from mpc_rr.data import Dataset
from mpc_rr.rrba._aggregator import BlockAggregator, tally
from mpc_rr.rrba._choices import CLIENT_RNG
from mpc_rr.rrba._client import answers_from_uniforms, cdf_table, check_p
from mpc_rr.rrba._collection import BlockRecord, Collection, RRBAOutcome, dropout_totals
from mpc_rr.rrba._marginals import empirical_tables
from mpc_rr.rrba._privacy import paper_epsilon
from mpc_rr.rrba._tables import Layout, SubsetIndex
from mpc_rr.rrba._views import Cover, cover

__all__ = [
    "CLIENT_RNG",
    "RRBARun",
    "TableRuns",
    "assemble",
    "client_seeds",
    "rrba_simulator",
    "run_rrba",
    "run_tables",
    "seed_parts",
]



def check_block(block: int) -> int:
    if isinstance(block, bool) or not isinstance(block, int | np.integer) or block < 1:
        raise UsageError(f"block (clients per block) must be an int >= 1, got {block!r}")
    return int(block)


@dataclass(frozen=True)
class RRBARun:
    """One RRBA collection, evaluated against the truth.

    Per table ``s`` of ``cover.subsets``: ``estimates[s]`` (the output, shaped
    like the table), ``truth[s]`` (empirical distribution of all clients),
    ``blocks_used``, ``answers``, ``converged``, ``first_held`` (block of the
    first hold, 0 = never).  Per block ``b``: ``tuples[b, s]`` answers
    collected so far, ``error[b, s]`` max |estimate - truth| after it,
    ``held[b, s]``, ``epsilon_block[b]`` the worst client's true epsilon
    (views compose) and ``records[b]`` who was asked, who answered and who
    was left out (:class:`~mpc_rr.rrba.BlockRecord`).  ``clients``
    is how many records were asked; ``late`` how many messages arrived after
    their block closed (distributed runs); ``sent[s]`` how many clients were
    sent table ``s``.
    """

    cover: Cover
    index: SubsetIndex
    estimates: tuple[np.ndarray, ...]
    truth: tuple[np.ndarray, ...]
    blocks_used: np.ndarray
    answers: np.ndarray
    converged: np.ndarray
    first_held: np.ndarray
    tuples: np.ndarray
    error: np.ndarray
    held: np.ndarray
    epsilon_block: np.ndarray
    epsilon_table_max: np.ndarray
    clients: int
    blocks: int
    p: float
    options: dict[str, object]
    records: tuple[BlockRecord, ...] = ()
    late: int = 0
    sent: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @property
    def epsilon_true(self) -> float:
        """Worst client's true epsilon over the run (sum over its view's subsets)."""
        return float(self.epsilon_block.max()) if self.epsilon_block.size else 0.0

    @property
    def epsilon_paper(self) -> float:
        """The paper's ``ln(1 / (1 - p))`` (Theorem 4.1), per answer."""
        return paper_epsilon(self.p)

    def dropouts(self) -> dict[str, int]:
        """Totals over the blocks (:func:`~mpc_rr.rrba.dropout_totals`)."""
        return dropout_totals(self.records)


def assemble(outcome: RRBAOutcome, codes: np.ndarray, **options: object) -> RRBARun:
    """The aggregator's ``outcome`` evaluated against the clients' records ``codes``.

    The truth is the empirical table of *all* ``codes`` (the evaluation's
    knowledge, never the aggregator's); ``options`` are added to the
    outcome's (e.g. ``client_rng``, ``transport``).
    """
    index, lay = outcome.index, outcome.index.layout
    c = index.check_codes(codes, "data")
    truth = lay.pack(empirical_tables(c, index.sizes, outcome.cover.subsets))
    error = np.zeros((outcome.estimates.shape[0], lay.n_tables))
    for b, est in enumerate(outcome.estimates):  # a block at a time: no (blocks, S, W) temporaries
        error[b] = np.abs(np.where(lay.mask, est - truth, 0.0)).max(axis=1)
    return RRBARun(
        cover=outcome.cover,
        index=index,
        estimates=tuple(
            t.reshape(index.shape(s)) for s, t in enumerate(lay.unpack(outcome.output))
        ),
        truth=tuple(t.reshape(index.shape(s)) for s, t in enumerate(lay.unpack(truth))),
        blocks_used=outcome.blocks_used,
        answers=outcome.answers,
        converged=outcome.converged,
        first_held=outcome.first_held,
        tuples=outcome.tuples,
        error=error,
        held=outcome.held,
        epsilon_block=outcome.epsilon_block,
        epsilon_table_max=outcome.epsilon_table_max,
        clients=outcome.clients,
        blocks=outcome.blocks,
        p=outcome.p,
        options={**outcome.options, **options},
        records=outcome.records,
        late=outcome.late,
        sent=outcome.sent,
    )


def _client_uniforms(
    gens: list[np.random.Generator], per_client: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    draws = [g.random((2, int(k))) for g, k in zip(gens, per_client, strict=True) if k]
    if not draws:
        return np.zeros(0), np.zeros(0)
    both = np.concatenate(draws, axis=1)
    return both[0], both[1]


def run_rrba(
    data: Dataset,
    *,
    p: float,
    block: int,
    k: int = 2,
    views: Cover | None = None,
    estimator: str = "pooled",
    repair: str = "clip",
    alpha: float = 0.05,
    t_floor: float = 0.0,
    stop: str = "never",
    min_blocks: int = 2,
    client_rng: str = "per-client",
    seed: int | np.random.SeedSequence = 0,
) -> RRBARun:
    """Run RRBA over ``data`` (see the module docstring); returns an :class:`RRBARun`."""
    p = check_p(p)
    block = check_block(block)
    if client_rng not in CLIENT_RNG:
        raise UsageError(f"client_rng must be one of {CLIENT_RNG}, got {client_rng!r}")
    sizes = data.schema.sizes
    cov = views if views is not None else cover(len(sizes), k)
    if cov.d != len(sizes):
        raise UsageError(f"views: cover is over {cov.d} attributes, data has {len(sizes)}")
    index = SubsetIndex(sizes, cov.subsets)
    codes = index.check_codes(data.codes, "data")
    lay = index.layout
    agg_ss, client_ss = seed_parts(seed)
    col = Collection(
        index, cov, codes.shape[0], block, p, rng=np.random.default_rng(agg_ss),
        estimator=estimator, repair=repair, alpha=alpha, t_floor=t_floor, stop=stop,
        min_blocks=min_blocks,
    )  # fmt: skip
    shared = np.random.default_rng(client_ss) if client_rng == "shared" else None
    while (plan := col.next_block()) is not None:
        ci, li = np.nonzero(plan.asked)  # client-major, view order: each client's draw order
        t_ids = plan.tables_of[ci, li]
        truth_cells = index.cells(codes, plan.clients[ci], t_ids)
        if shared is not None:
            u = shared.random((2, t_ids.size))
            u_keep, q = u[0], u[1]
        else:
            gens = [np.random.default_rng(s) for s in client_seeds(client_ss, plan.clients)]
            u_keep, q = _client_uniforms(gens, plan.asked.sum(axis=1))
        cdf = cdf_table(plan.tables, lay)
        ans = answers_from_uniforms(truth_cells, t_ids, u_keep, q, cdf, p)
        counts, n = tally(t_ids, ans, lay)
        col.close_block(plan, counts, n, BlockRecord(plan.block, plan.size, plan.size))
    return assemble(col.outcome(), codes, client_rng=client_rng)


def seed_parts(
    seed: int | np.random.SeedSequence,
) -> tuple[np.random.SeedSequence, np.random.SeedSequence]:
    """``(aggregator, clients)`` children of ``SeedSequence(seed)``: the aggregator's
    generator draws the view assignment, client ``i`` gets child ``i`` of the second."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    agg_ss, client_ss = ss.spawn(2)
    return agg_ss, client_ss


def client_seeds(root: np.random.SeedSequence, rows: np.ndarray) -> list[np.random.SeedSequence]:
    """Child ``i`` of ``root`` for each global client index ``i`` (what ``root.spawn`` would give)."""
    return [
        np.random.SeedSequence(
            root.entropy, spawn_key=(*root.spawn_key, int(i)), pool_size=root.pool_size
        )
        for i in rows
    ]


@dataclass(frozen=True)
class TableRuns:
    """``R`` independent single-table runs: per block ``b`` and run ``r``."""

    estimates: np.ndarray  # (K, R, C) repaired estimate after each block
    held: np.ndarray  # (K, R) stopping rule held at the block
    output: np.ndarray  # (R, C) the aggregator's output at the end
    epsilon: np.ndarray  # (K, R) true epsilon of the table each block was sent


def run_tables(
    pi: np.ndarray,
    *,
    clients: int,
    block: int,
    p: float,
    estimator: str = "pooled",
    repair: str = "clip",
    alpha: float = 0.05,
    t_floor: float = 0.0,
    min_blocks: int = 2,
    rng: np.random.Generator,
) -> TableRuns:
    """``R = pi.shape[0]`` collections over one table each, clients' cells drawn from ``pi[r]``.

    Each run has ``clients`` clients in blocks of ``block`` (the last one
    possibly shorter) and never stops (callers apply the rule to the recorded
    ``held``).  Every block draws the clients' true cells, then their two
    uniforms, from ``rng``.
    """
    p = check_p(p)
    block = check_block(block)
    if isinstance(clients, bool) or not isinstance(clients, int | np.integer) or clients < 1:
        raise UsageError(f"clients must be an int >= 1, got {clients!r}")
    pi = np.asarray(pi, dtype=float)
    if pi.ndim != 2 or pi.shape[1] < 1 or pi.shape[0] < 1:
        raise UsageError(f"pi must be (runs, cells), got shape {pi.shape}")
    r, c = pi.shape
    lay = Layout((c,) * r)
    lay.check_distributions(pi, "pi")
    agg = BlockAggregator(
        lay, p, estimator=estimator, repair=repair, alpha=alpha, t_floor=t_floor,
        stop="never", min_blocks=min_blocks,
    )  # fmt: skip
    pi_cdf = cdf_table(pi, lay)
    est, held, eps = [], [], []
    for start in range(0, int(clients), block):
        m = min(block, int(clients) - start)
        t_ids = np.repeat(np.arange(r), m)
        truth = (rng.random(t_ids.size)[:, None] >= pi_cdf[t_ids]).sum(axis=1)
        u = rng.random((2, t_ids.size))
        ans = answers_from_uniforms(truth, t_ids, u[0], u[1], cdf_table(agg.tables, lay), p)
        counts, n = tally(t_ids, ans, lay)
        rep = agg.feed(counts, n)
        est.append(rep.estimate)
        held.append(rep.held)
        eps.append(rep.epsilon)
    return TableRuns(np.array(est), np.array(held), agg.output(), np.array(eps))


def rrba_simulator(
    n: int, *, block: int, p: float, estimator: str = "pooled", **options: Any
) -> Callable[[np.ndarray, int, np.random.Generator], np.ndarray]:
    """Noise model for :func:`~mpc_rr.rrba.independence_test`.

    Returns ``simulate(pi, l, rng)``: ``l`` RRBA collections of ``n`` clients
    drawn from ``pi`` (blocks of ``block``), their outputs as counts ``(l, cells)``.
    """

    def simulate(pi: np.ndarray, l: int, rng: np.random.Generator) -> np.ndarray:
        flat = np.asarray(pi, dtype=float).reshape(1, -1)
        runs = run_tables(
            np.repeat(flat, l, axis=0), clients=n, block=block, p=p, estimator=estimator,
            rng=rng, **options,
        )  # fmt: skip
        return n * runs.output

    return simulate
