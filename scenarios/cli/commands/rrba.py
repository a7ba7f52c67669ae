"""``mpc-rr rrba``: one RRBA collection (Imran & Meo) with its accuracy, privacy and cost.

Without ``--transport`` the collection runs in the centralized engine
(:func:`mpc_rr.rrba.run_rrba`); with ``--transport harness|memory|tcp`` the
Aggregator and Client roles run it as a distributed protocol (one message
round per block), optionally with SecAgg+ block tallies (``--secure-tally``),
and the same seed gives the same estimates.  :func:`collect` is the one
place that dispatches.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpc_rr.rrba import CLIENT_RNG as RRBA_CLIENT_RNG
from mpc_rr.rrba import ESTIMATORS as RRBA_ESTIMATORS
from mpc_rr.rrba import REPAIRS as RRBA_REPAIRS
from mpc_rr.rrba import STOPS as RRBA_STOPS
from mpc_rr.secure_sum import DEFAULT_SUM, sum_protocol_names
from parties.runners import TRANSPORTS
from scenarios.cli.options import (
    HelpFormatter,
    add_json,
    add_network,
    add_secagg_bounds,
    add_seed,
    add_step_timeout,
    add_sum_option,
    available_memory,
    human_bytes,
    inner_sum_options,
    int_at_least,
    network_runner_of,
    open_unit,
    output_dir,
    output_file,
    warn,
)
from scenarios.workloads.data_source import add_data_option

if TYPE_CHECKING:  # the library is imported when the command runs (mpc-rr --help stays fast)

    pass


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "rrba",
        help="randomized response block aggregation (Imran & Meo): estimates, convergence, epsilon",
        description="One RRBA collection (Imran & Meo) with its accuracy, privacy and cost.\n\n"
        "Without --transport the collection runs in the centralized engine (no messages);\n"
        "with --transport harness|memory|tcp the Aggregator and Client roles run it as a\n"
        "distributed protocol (one message round per block), optionally with secure block\n"
        "tallies (--secure-tally), and the same seed gives the same estimates.",
        formatter_class=HelpFormatter,
    )
    add_data_option(p, default="survey", sources="survey|alarm|child|adult|FILE.csv",
                    what="the clients' records")  # fmt: skip
    p.add_argument(
        "--clients",
        type=int,
        default=None,
        help="clients (records); default 8000 for networks, all rows otherwise",
    )
    p.add_argument("--block", type=int, default=250, help="clients per block B (default 250)")
    p.add_argument(
        "--p",
        type=float,
        default=0.5,
        help="probability of a truthful answer, in (0, 1] (default 0.5)",
    )
    p.add_argument("--k", type=int, default=2, help="attributes per subset (default 2: pairs)")
    p.add_argument("--estimator", choices=RRBA_ESTIMATORS, default="pooled",
                   help="pooled (convergent, default) or paper (Eq. 4 as written)")  # fmt: skip
    p.add_argument(
        "--repair", choices=RRBA_REPAIRS, default="clip", help="repair of off-simplex estimates"
    )
    p.add_argument(
        "--alpha", type=float, default=0.05, help="stopping-rule confidence level (default 0.05)"
    )
    p.add_argument("--stop", choices=RRBA_STOPS, default="never",
                   help="first: freeze a subset when the Sec. 5 rule holds; never: use all clients (default)")  # fmt: skip
    p.add_argument("--t-floor", type=float, default=0.0,
                   help="floor on every cell of the tables sent (caps epsilon; default 0 = paper)")  # fmt: skip
    p.add_argument(
        "--marginals",
        type=int,
        default=20,
        help="2-/3-/4-way marginals evaluated per order (default 20; 0 skips them); a set whose "
        "consistency QP would have over 1,000 marginal rows is skipped (cubic cost) and counted",
    )
    p.add_argument("--client-rng", choices=RRBA_CLIENT_RNG, default="per-client",
                   help="per-client generators (as distributed clients) or one shared, faster")  # fmt: skip
    p.add_argument(
        "--transport", choices=TRANSPORTS, default=None,
        help="run the Aggregator and Client roles: harness (synchronous, no transport), memory "
        "(Party actors, virtual time) or tcp (TCP + mutual TLS on 127.0.0.1); default: the "
        "centralized engine (no messages)",
    )  # fmt: skip
    p.add_argument(
        "--secure-tally", action="store_true",
        help="sum each block's one-hot answers with a secure sum (--sum): the aggregator never sees an answer",
    )  # fmt: skip
    p.add_argument(
        "--sum", choices=sum_protocol_names(at_coordinator=True), default=DEFAULT_SUM,
        help="--secure-tally: the sum protocol of each block's tally (any whose aggregator learns the sum)",
    )  # fmt: skip
    add_secagg_bounds(p, "--secure-tally: ", "a block's clients")
    add_sum_option(p, "--secure-tally: ")
    p.add_argument(
        "--secagg-degree", type=int_at_least(1), default=None,
        help="--secure-tally: SecAgg+ graph degree (default: 2*ceil(log2 B), grown until a threshold is both secure and robust; at most B-1)",
    )  # fmt: skip
    p.add_argument(
        "--dropout", type=open_unit, default=0.0,
        help="fraction of clients (chosen with the seed) that never answer: left out and counted",
    )  # fmt: skip
    add_network(p, "the collection (over the memory transport; implies --transport memory)")
    add_step_timeout(p)
    p.add_argument(
        "--transcript", type=output_file, default=None,
        help="write what every party sent to this file (needs --transport)",
    )  # fmt: skip
    add_seed(p, "the sample, the views and every answer")
    add_json(p, "print the results as one JSON object")
    p.add_argument(
        "--out",
        type=output_dir,
        default=Path("results/rrba"),
        help="folder for results.json and the plot",
    )
    p.set_defaults(func=run)


def _check_flags(args: argparse.Namespace) -> None:
    from mpc_rr.core import UsageError

    if args.transport is None:
        given = [f for f, v in (("--secure-tally", args.secure_tally), ("--dropout", args.dropout),
                                ("--transcript", args.transcript)) if v]  # fmt: skip
        if given:
            raise UsageError(
                f"{', '.join(given)} need a distributed run: add --transport harness|memory|tcp"
            )
    elif args.client_rng != "per-client":
        raise UsageError("--client-rng shared is for the centralized engine only: distributed "
                         "clients each hold their own generator")  # fmt: skip
    given = [f for f, v in (("--max-dropout", args.max_dropout), ("--max-corrupt", args.max_corrupt),
                            ("--secagg-degree", args.secagg_degree),
                            ("--sum-option", args.sum_option or None)) if v is not None]  # fmt: skip
    if given and not args.secure_tally:
        raise UsageError(f"{', '.join(given)} only apply with --secure-tally")
    if args.sum != DEFAULT_SUM and not args.secure_tally:
        raise UsageError("--sum only applies with --secure-tally")


def _check_memory(data: Any, args: argparse.Namespace) -> None:
    """Refuse (exit 2) a collection whose padded tables cannot fit, with the figure and the rule."""
    from mpc_rr.core import UsageError
    from mpc_rr.rrba import WORKING_TABLES, collection_bytes, cover

    sizes, names = data.schema.sizes, data.schema.names
    subsets = cover(len(sizes), args.k).subsets
    need = collection_bytes(sizes, subsets, data.n, args.block)
    have = available_memory()
    if need <= 0.8 * have:
        return
    widest = max(subsets, key=lambda s: math.prod(sizes[a] for a in s))
    width = math.prod(sizes[a] for a in widest)
    blocks = math.ceil(data.n / max(args.block, 1))
    big = sorted(range(len(sizes)), key=lambda a: -sizes[a])[:3]
    raise UsageError(
        f"RRBA on {len(sizes)} attributes at --k {args.k} needs about {human_bytes(need)}, "
        f"{human_bytes(have)} are available (refused above 80 %): {len(subsets):,} tables padded to "
        f"the widest one's {width:,} cells ({' x '.join(f'{names[a]} {sizes[a]}' for a in widest)}), "
        f"8 bytes each, for {blocks:,} blocks of history + {WORKING_TABLES} working copies. Drop or "
        f"coarsen the attributes with the most categories "
        f"({', '.join(f'{names[a]}: {sizes[a]:,}' for a in big)}), or use a larger --block"
    )


class _BlockBar:
    """A progress bar over blocks on stderr (silent with --json or when not a terminal)."""

    def __init__(self, total: int, quiet: bool) -> None:
        from scenarios.cli.progress import progress_bar

        self.bar = progress_bar(total=total, desc="RRBA blocks", unit="block", file=sys.stderr,
                        disable=True if quiet else None, mininterval=0.5)  # fmt: skip

    def update(self, done: int, total: int) -> None:
        self.bar.n = done
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()


class _MarginalBar:
    """A progress bar over the marginals of each order on stderr (as :class:`_BlockBar`)."""

    def __init__(self, quiet: bool) -> None:
        from scenarios.cli.progress import progress_bar

        self.bar = progress_bar(total=1, desc="marginals", unit="table", file=sys.stderr,
                                disable=True if quiet else None, mininterval=0.5)  # fmt: skip

    def update(self, order: int, done: int, total: int) -> None:
        self.bar.set_description(f"{order}-way marginals", refresh=False)
        self.bar.total, self.bar.n = total, done
        self.bar.refresh()

    def close(self) -> None:
        self.bar.close()


_FLAGS = {"t_floor": "--t-floor", "k": "--k", "block": "--block", "p": "--p", "alpha": "--alpha"}


def _as_flags(message: str) -> str:
    """A refusal of the RRBA library with the parameter it names spelled as this command's flag
    (``t_floor must be ...`` -> ``--t-floor must be ...``)."""
    import re

    message = message.removeprefix("cover: ")
    return re.sub(r"^([a-z_]+)\b", lambda m: _FLAGS.get(m.group(1), m.group(1)), message)


def _fmt_eps(x: float | None) -> str:
    return "inf" if x is None else f"{x:.3f}"


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from mpc_rr.core import UsageError
    from mpc_rr.workflows import collect_rrba, marginal_errors, summarize
    from scenarios.figures.privacy import write_privacy_plot
    from scenarios.figures.rrba import plot_convergence
    from scenarios.workloads.data_source import draw_records, spec_from_args

    if args.marginals < 0:
        raise UsageError(f"--marginals must be >= 0 (0 skips the marginal errors), got {args.marginals}")
    priced = network_runner_of(args, args.transport, transcript=args.transcript is not None)
    if priced is not None:
        args.transport = "memory"
    _check_flags(args)
    sum_opts = inner_sum_options(args, args.sum) if args.secure_tally else {}
    spec = spec_from_args(args, option=True, networks=True)
    data_ss, proto_ss, eval_ss = np.random.SeedSequence(args.seed).spawn(3)
    data, source = draw_records(spec, args.clients, np.random.default_rng(data_ss))
    _check_memory(data, args)
    t0 = time.perf_counter()
    runner = None
    if priced is not None:

        def runner(timeouts: object) -> object:
            priced.options["step_timeout"] = timeouts
            return priced

    elif args.transport is not None:
        from parties.runners import runner_for

        def runner(timeouts: object) -> object:
            return runner_for(args.transport, step_timeout=timeouts, transcript=args.transcript is not None)

    # the library refuses a block < 1 with the rule; the bar must not divide by it first
    done = _BlockBar(math.ceil(data.n / max(args.block, 1)), args.json or args.transport is None)
    try:
        col = collect_rrba(
            data, p=args.p, block=args.block, seed=proto_ss, k=args.k, estimator=args.estimator,
            repair=args.repair, alpha=args.alpha, t_floor=args.t_floor, stop=args.stop,
            client_rng=args.client_rng, runner=runner, step_timeout=args.step_timeout,  # type: ignore[arg-type]
            secure_tally=args.secure_tally, sum_protocol=args.sum, sum_options=sum_opts,
            dropout=args.dropout, progress=done.update,
        )  # fmt: skip
    except UsageError as exc:
        raise UsageError(_as_flags(str(exc))) from None
    finally:
        done.close()
    result, execution = col.run, col.execution
    seconds = time.perf_counter() - t0
    mbar = _MarginalBar(args.json or args.marginals == 0)
    try:
        marg = marginal_errors(result, data, np.random.default_rng(eval_ss), max_tables=args.marginals,
                               progress=mbar.update)  # fmt: skip
    finally:
        mbar.close()
    doc = summarize(result, data, source, marg, None if execution is None else execution.costs,
                    secure_tally=args.secure_tally, sum_protocol=args.sum, sum_options=sum_opts)  # fmt: skip
    doc["seconds"] = {"collection": seconds, "marginals": sum(m["seconds"] for m in marg.values())}
    if priced is not None:
        doc["network"] = priced.summary()
    doc["warnings"] = _warnings(doc)
    for w in doc["warnings"]:
        warn("rrba", w)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(doc, indent=1))
    if args.transcript is not None and execution is not None and execution.transcript is not None:
        execution.transcript.meta.update(protocol="rrba", clients=data.n, seed=args.seed)
        execution.transcript.save(args.transcript)
    png = args.out / "convergence.png"
    title = (
        f"RRBA convergence on {data.name or args.data}: {result.clients} clients, B={args.block}, p={args.p}, "
        f"estimator={args.estimator}, stop={args.stop}, 1 run (seed {args.seed})"
    )
    plot_convergence(result, png, title, data.schema.names)
    doc["files"] = {"results": str(args.out / "results.json"), "plot": str(png)}
    ppng = write_privacy_plot(doc, args.out, f"RRBA on {data.name or args.data}")
    if ppng is not None:
        doc["files"]["privacy_plot"] = str(ppng)
    if args.transcript is not None:
        doc["files"]["transcript"] = str(args.transcript)
    if args.json:
        print(json.dumps(doc))
    else:
        _print(doc, args)
    return 0


def _print(doc: dict[str, Any], args: argparse.Namespace) -> None:
    o = doc["options"]
    print(f"RRBA on {doc['data']}")
    print(
        f"  d={len(doc['attributes'])} attributes, k={o['k']}: {doc['subsets_total']} subsets in "
        f"{doc['views']} views; B={o['block']}, p={o['p']}, estimator={o['estimator']} "
        f"(repair {o['repair']}), alpha={o['alpha']}, t-floor={o['t_floor']}, stop={o['stop']}, seed={args.seed}"
    )
    print(
        f"  clients asked {doc['clients']}, blocks {doc['blocks']}, answers {doc['cost']['answers']}"
    )
    subs = doc["subsets"]
    show = subs if len(subs) <= 40 else subs[:40]
    print(
        f"\n  {'subset':<28}{'cells':>6}{'answers':>8}{'blocks':>7}{'first held':>11}{'converged':>10}{'max|err|':>9}  estimate/truth (first cells)"
    )
    for r in show:
        cells = " ".join(
            f"{e:.3f}/{t:.3f}" for e, t in list(zip(r["estimate"], r["truth"], strict=True))[:4]
        )
        held = r["first_held_block"] or "-"
        print(
            f"  {','.join(r['attributes'])[:27]:<28}{r['cells']:>6}{r['answers']:>8}{r['blocks']:>7}"
            f"{held!s:>11}{'yes' if r['converged'] else 'no':>10}{r['max_abs_error']:>9.4f}  {cells}"
        )
    if len(subs) > len(show):
        print(f"  ... {len(subs) - len(show)} more subsets in results.json")
    print(f"\n  stopping rule: {doc['converged_subsets']}/{len(subs)} subsets "
          f"{'stopped' if o['stop'] == 'first' else 'hold at the last block'}")  # fmt: skip
    cap = doc["epsilon_cap_per_subset"]
    print(
        f"  epsilon: true (worst client, its view's subsets composed) {_fmt_eps(doc['epsilon_true'])}; "
        f"paper ln(1/(1-p)) = {_fmt_eps(doc['epsilon_paper'])} per answer "
        f"({_fmt_eps(doc['epsilon_paper_view'])} per view); t-floor cap per subset {_fmt_eps(cap)}"
    )
    if doc["epsilon_true_is_infinite"]:
        print(
            "  note: a table sent had a zero cell, so the true epsilon is infinite; use --t-floor"
        )
    for line in doc["privacy"]["lines"]:
        print("  " + line)
    from mpc_rr.workflows import validity_lines

    for line in validity_lines(doc["validity"]):
        print("  " + line)
    if not doc["marginals"]:
        print("\n  marginals vs truth: not evaluated (--marginals 0)")
    else:
        print("\n  marginals vs truth (l2 on counts, Jensen-Shannon in bits; mean over tables)")
    for m, v in doc["marginals"].items():
        skip = f"; {v['skipped']} sets skipped (QP over {v['max_rows']:,} rows)" if v.get("skipped") else ""
        print(
            f"  {m}-way: {v['tables']:>3} tables ({v['method']}): l2 {v['l2_mean']:.2f} "
            f"(max {v['l2_max']:.2f}), JS {v['js_mean']:.4f} (max {v['js_max']:.4f})"
            f"{skip}"
        )
    c = doc["cost"]
    print(
        f"\n  cost: {c['answers']} answers, {c['tables_sent']} tables ({c['table_cells_sent']} cells) sent"
    )
    if c["messages"] is None:
        print(f"  messages/bytes per role: none ({c['note']})")
    else:
        a, cl = c["aggregator"], c["clients"]
        tally = "secure tally (SecAgg+ per block)" if o.get("secure_tally") else "plain tally"
        print(
            f"  over {c['transport']}, {tally}: {c['messages']:,} messages, {c['bytes']:,} bytes, "
            f"{c['rounds']} rounds, {c['wall_s']:.2f} s"
        )
        print(
            f"    aggregator: sent {a['messages_sent']:,} messages / {a['bytes_sent']:,} bytes, "
            f"received {a['messages_received']:,} / {a['bytes_received']:,}"
        )
        m = cl["mean"]
        print(
            f"    clients ({cl['count']:,}): sent {cl['total']['messages_sent']:,.0f} messages / "
            f"{cl['total']['bytes_sent']:,.0f} bytes in total; per client {m['messages_sent']:.2f} "
            f"sent ({m['bytes_sent']:.0f} bytes), {m['messages_received']:.2f} received "
            f"({m['bytes_received']:.0f} bytes)"
        )
    dr = c["dropouts"]
    print(
        f"  dropouts: {dr['asked']:,} clients asked, {dr['answered']:,} answers in the tallies, "
        f"{dr['left_out']:,} left out ({dr['silent']:,} silent at the deadline, {dr['rejected']:,} "
        f"rejected), {dr['lost_blocks']} blocks lost, {c['late']} late messages ignored"
    )
    s = doc["seconds"]
    print(f"  time: collection {s['collection']:.2f} s, marginals {s['marginals']:.2f} s")
    if doc.get("network") is not None:
        from parties.pricing import pricing_line

        print("  " + pricing_line(doc["network"]))
    print(f"  wrote {doc['files']['results']} and {doc['files']['plot']}")


def _warnings(doc: dict[str, Any]) -> list[str]:
    """What a reader of the numbers must know (printed whatever the format, kept in results.json)."""
    import math

    out = []
    if doc["epsilon_true_is_infinite"]:
        out.append("a table sent had a zero cell, so the true epsilon is infinite (an answer in that "
                   "cell can only be the truth); --t-floor keeps every cell above a floor")  # fmt: skip
    thin = [r for r in doc["subsets"] if r["answers"] < 5 * r["cells"]]
    if thin:
        worst = min(thin, key=lambda r: r["answers"] / r["cells"])
        out.append(f"tiny sample: {len(thin)} of {len(doc['subsets'])} subsets got fewer than 5 answers "
                   f"per cell (worst: {','.join(worst['attributes'])}, {worst['answers']} answers for "
                   f"{worst['cells']} cells); their estimates are mostly noise")  # fmt: skip
    bad = [f"{m}-way" for m, v in doc["marginals"].items()
           if any(isinstance(v.get(k), float) and math.isnan(v[k]) for k in ("l2_mean", "js_mean"))]  # fmt: skip
    if bad:
        out.append(f"marginal errors are nan for {', '.join(bad)}")
    return out
