"""Classroom trace of RRBA (Imran & Meo) built on the pure functions its roles use.

This trace does not run RRBA's Aggregator and Client roles (they are in
:mod:`mpc_rr.rrba`, run by ``mpc-rr rrba --transport memory|tcp``): it calls the
pure functions the roles are built on, in the roles' order -- per block, :func:`~mpc_rr.rrba.assign_views`
(aggregator), :func:`~mpc_rr.rrba.client_answer` (each client, with its
own generator), :func:`~mpc_rr.rrba.tally` and
:meth:`~mpc_rr.rrba.BlockAggregator.feed` -- and shows the logical
messages (tables out, answers back), without wire sizes.  The check replays the collection with the centralized engine
:func:`~mpc_rr.rrba.run_rrba` (same data, same seed) and requires
identical tables.
"""

from __future__ import annotations

import math

import numpy as np

from mpc_rr.data import Dataset
from mpc_rr.rrba import (
    BlockAggregator,
    SubsetIndex,
    assign_views,
    client_answer,
    client_seeds,
    cover,
    paper_epsilon,
    run_rrba,
    table_epsilon,
    tally,
)
from scenarios.classroom.pipeline import SURVEY, survey_records
from scenarios.classroom.trace import Item, Trace

__all__ = ["rrba_trace"]

_ATTRS = (1, 2, 3)  # sleep, coffee, smoker: three pair tables, one per view


def _table_text(t: np.ndarray) -> str:
    return "[" + " ".join(f"{v:.2f}" for v in np.asarray(t).reshape(-1)) + "]"


def rrba_trace(n: int, *, seed: int, p: float = 0.7, block: int = 2) -> Trace:
    """``n`` clients answer the pair views of three survey questions, ``block`` per block."""
    schema = SURVEY.subset(_ATTRS)
    codes = survey_records(n, seed)[:, list(_ATTRS)]
    data = Dataset(schema, codes, name="class survey")
    names, sizes = schema.names, schema.sizes
    cov = cover(len(sizes), 2)
    index = SubsetIndex(sizes, cov.subsets)
    lay = index.layout
    agg = BlockAggregator(lay, p)  # pooled estimator, clip repair, stop never: run_rrba's defaults
    agg_ss, client_ss = np.random.SeedSequence(seed).spawn(2)
    agg_rng = np.random.default_rng(agg_ss)
    view_tables = cov.padded_tables()

    def subset_name(s: int) -> str:
        return "(" + ", ".join(names[a] for a in cov.subsets[s]) + ")"

    def cell_text(s: int, cell: int) -> str:
        sub = cov.subsets[s]
        idx = np.unravel_index(int(cell), index.shape(s))
        return ", ".join(f"{names[a]}={schema.attributes[a].categories[int(i)]}" for a, i in zip(sub, idx, strict=True))

    items: list[Item] = []
    number = 0
    assigned, start, b = 0, 0, 0
    worst_eps = 0.0
    while start < n and agg.active.any():
        rows = np.arange(start, min(start + block, n))
        start = int(rows[-1]) + 1
        b += 1
        assign = assign_views(rows.size, view_tables, agg.active, assigned, agg_rng)
        assigned += rows.size
        items.append(Item("round", f"Block {b}: clients P{rows[0] + 1}..P{rows[-1] + 1} each "
                                   f"answer one view with the current public tables"))  # fmt: skip
        gens = [np.random.default_rng(s) for s in client_seeds(client_ss, rows)]
        tables_now = agg.tables
        eps_now = table_epsilon(tables_now, lay, p)
        t_ids, answers = [], []
        for r, v, g in zip(rows, assign, gens, strict=True):
            pid = int(r) + 1
            subs = [int(s) for s in view_tables[v] if s >= 0]
            view = [cov.subsets[s] for s in subs]
            tabs = [lay.unpack(tables_now)[s] for s in subs]
            number += 1
            items.append(Item(
                "message", number=number, src=0, dst=pid, type="Tables",
                values=tuple((f"T{subset_name(s)}", _table_text(lay.unpack(tables_now)[s])) for s in subs),
            ))  # fmt: skip
            saved = g.bit_generator.state
            u = g.random((2, len(view)))  # the two uniforms client_answer draws: coins, q
            g.bit_generator.state = saved
            ans = client_answer(codes[r], view, tabs, sizes, p, g)
            true = index.cells(codes, np.full(len(subs), r), np.asarray(subs))
            vals: list[tuple[str, str]] = []
            for s, a, t_cell, coin in zip(subs, ans, true, u[0], strict=True):
                vals.append((f"answer {subset_name(s)}", cell_text(s, int(a))))
                how = "Head: the true cell" if coin < p else "Tail: a cell drawn from T"
                vals.append(("coin (private)", f"{coin:.2f} vs p = {p}: {how}"))
                vals.append(("true (private, not sent)", cell_text(s, int(t_cell))))
            number += 1
            items.append(Item("message", number=number, src=pid, dst=0, type="Answer", values=tuple(vals)))
            t_ids += subs
            answers += [int(a) for a in ans]
            worst_eps = max(worst_eps, float(sum(eps_now[s] for s in subs)))
        counts, nn = tally(np.asarray(t_ids, dtype=np.int64), np.asarray(answers, dtype=np.int64), lay)
        rep = agg.feed(counts, nn)
        upd = "; ".join(
            f"T{subset_name(s)} = {_table_text(lay.unpack(rep.tables)[s])}"
            for s in range(lay.n_tables) if nn[s] > 0
        )  # fmt: skip
        held = [subset_name(s) for s in range(lay.n_tables) if rep.held[s]]
        items.append(Item("note", (
            f"The aggregator tallies the block ({int(nn.sum())} answers) and updates the tables that got "
            f"answers with the pooled estimator pi = (sum o / N - (1 - p) mean T_k) / p, repaired onto "
            f"the simplex: {upd}. Stopping rule (Sec. 5) holds for: {', '.join(held) or 'none yet'}."
        ), parties=(0,)))  # fmt: skip

    out = agg.output()
    ref = run_rrba(data, p=p, block=block, k=2, seed=seed)
    same = all(
        np.allclose(a.reshape(-1), ref.estimates[s].reshape(-1), rtol=0, atol=1e-12)
        for s, a in enumerate(lay.unpack(out))
    )
    check = [
        "the centralized engine run_rrba (same data, same seed, per-client generators) gives "
        + ("identical tables: OK" if same else "DIFFERENT tables"),
        "estimated vs true pair tables (noisy with so few clients):",
    ]
    for s, est in enumerate(lay.unpack(out)):
        check.append(f"  {subset_name(s)}: estimate {_table_text(est)}; true {_table_text(ref.truth[s])}")
    check.append(
        f"epsilon of the worst client (its view's pairs compose): {worst_eps:.2f} (true, from the "
        f"tables it was sent); the paper's ln(1/(1-p)) = {paper_epsilon(p):.2f} per answer "
        f"understates it (docs/rrba.md, 'True epsilon')."
        + (
            " It is infinite here: a table sent had an empty cell, and an answer in an empty cell "
            "can only be the truth (mpc-rr rrba --t-floor keeps every cell above a floor)."
            if math.isinf(worst_eps)
            else ""
        )
    )
    setup = [
        f"{n} clients P1..P{n} hold answers to {len(names)} survey questions "
        f"({', '.join(names)}); the aggregator (Agg) estimates every pair table (RRBA, Imran & "
        f"Meo) in blocks of {block} clients.",
        "This trace replays the pure functions RRBA's Aggregator and Client roles are built "
        "on, in the roles' order, and shows the logical messages (no wire sizes, no state "
        "diagrams); `mpc-rr rrba --transport memory` runs the roles themselves.",
        "Views (disjoint pairs, each pair in exactly one view): "
        + "; ".join("{" + ", ".join(subset_name(s) for s in range(len(cov.subsets)) if s in vt) + "}"
                    for vt in (set(int(x) for x in row if x >= 0) for row in view_tables))
        + ".",
        f"A client answers each pair of its view: with probability p = {p} its true cell (Head), "
        f"else a cell drawn from the public table T (Eq. 3). The tables start uniform.",
        "Private answers (printed only because this is a classroom):",
        *[
            f"  P{i}: " + ", ".join(f"{a.name}={a.categories[int(c)]}" for a, c in zip(schema.attributes, row, strict=True))
            for i, row in enumerate(codes, 1)
        ],
    ]
    return Trace(
        protocol="rrba", title=f"RRBA, {n} clients, p = {p}, blocks of {block}", seed=seed,
        participants={0: "Agg", **{i: f"P{i}" for i in range(1, n + 1)}}, setup=tuple(setup),
        items=tuple(items), check=tuple(check), ok=bool(same), diagrams=(),
        initial_states={}, runner="phase-1 functions (no roles yet)",
        extra={"records": codes.tolist(), "p": p, "block": block,
               "epsilon_worst": worst_eps, "epsilon_paper": paper_epsilon(p) if p < 1 else math.inf},
    )  # fmt: skip
