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
import time
from pathlib import Path
from typing import TYPE_CHECKING

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
    inner_sum_options,
    int_at_least,
    network_runner_of,
    open_open,
    open_unit,
    output_dir,
    output_file,
    positive_float,
)
from scenarios.workloads.data_source import add_data_option

if TYPE_CHECKING:  # the library is imported when the command runs (mpc-rr --help stays fast)
    from mpc_rr.workflows._rrba_results import RRBAResults


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
        "--dp-epsilon", type=positive_float, default=None, metavar="E",
        help="--secure-tally: every client adds Skellam noise inside its block's sum so each tally is "
        "central (E, D)-DP per record for the sum's dropouts and colluders (docs/privacy.md)",
    )  # fmt: skip
    p.add_argument("--dp-delta", type=open_open, default=1e-6, metavar="D",
                   help="with --dp-epsilon: the delta of the noisy tallies (default 1e-6)")  # fmt: skip
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
                            ("--sum-option", args.sum_option or None),
                            ("--dp-epsilon", args.dp_epsilon)) if v is not None]  # fmt: skip
    if given and not args.secure_tally:
        raise UsageError(f"{', '.join(given)} only apply with --secure-tally")
    if args.sum != DEFAULT_SUM and not args.secure_tally:
        raise UsageError("--sum only applies with --secure-tally")


_FLAGS = {"t_floor": "--t-floor", "k": "--k", "block": "--block", "p": "--p", "alpha": "--alpha"}


def _as_flags(message: str) -> str:
    """A refusal of the RRBA library with the parameter it names spelled as this command's flag
    (``t_floor must be ...`` -> ``--t-floor must be ...``)."""
    import re

    message = message.removeprefix("cover: ")
    return re.sub(r"^([a-z_]+)\b", lambda m: _FLAGS.get(m.group(1), m.group(1)), message)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from mpc_rr.core import UsageError
    from mpc_rr.workflows._rrba import collect_rrba, marginal_errors
    from mpc_rr.workflows._rrba_results import RRBASeconds, rrba_results
    from scenarios.cli.jobs import (
        BlockBar,
        MarginalBar,
        refuse_rrba_over_memory,
        save_transcript,
        warn_all,
    )
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
    refuse_rrba_over_memory(data, args.k, args.block)
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
    done = BlockBar(math.ceil(data.n / max(args.block, 1)), args.json or args.transport is None)
    try:
        col = collect_rrba(
            data, p=args.p, block=args.block, seed=proto_ss, k=args.k, estimator=args.estimator,
            repair=args.repair, alpha=args.alpha, t_floor=args.t_floor, stop=args.stop,
            client_rng=args.client_rng, runner=runner, step_timeout=args.step_timeout,  # type: ignore[arg-type]
            secure_tally=args.secure_tally, sum_protocol=args.sum, sum_options=sum_opts,
            dropout=args.dropout, progress=done.update, dp_epsilon=args.dp_epsilon,
            dp_delta=args.dp_delta,
        )  # fmt: skip
    except UsageError as exc:
        raise UsageError(_as_flags(str(exc))) from None
    finally:
        done.close()
    result, execution = col.run, col.execution
    seconds = time.perf_counter() - t0
    mbar = MarginalBar(args.json or args.marginals == 0)
    try:
        marg = marginal_errors(result, data, np.random.default_rng(eval_ss), max_tables=args.marginals,
                               progress=mbar.update)  # fmt: skip
    finally:
        mbar.close()
    report = rrba_results(
        result, data, source, marg, None if execution is None else execution.costs,
        secure_tally=args.secure_tally, sum_protocol=args.sum, sum_options=sum_opts,
        dp_epsilon=args.dp_epsilon, dp_delta=args.dp_delta,
    ).timed(RRBASeconds(seconds, sum(m["seconds"] for m in marg.values())),
            None if priced is None else priced.summary())  # fmt: skip
    warn_all("rrba", report.warnings)
    doc = report.to_json()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(doc, indent=1))
    if execution is not None:
        save_transcript(execution.transcript, args.transcript, protocol="rrba", clients=data.n, seed=args.seed)
    png = args.out / "convergence.png"
    title = (
        f"RRBA convergence on {data.name or args.data}: {result.clients} clients, B={args.block}, p={args.p}, "
        f"estimator={args.estimator}, stop={args.stop}, 1 run (seed {args.seed})"
    )
    plot_convergence(result, png, title, data.schema.names)
    files = {"results": str(args.out / "results.json"), "plot": str(png)}
    ppng = write_privacy_plot(doc, args.out, f"RRBA on {data.name or args.data}")
    if ppng is not None:
        files["privacy_plot"] = str(ppng)
    if args.transcript is not None:
        files["transcript"] = str(args.transcript)
    if args.json:
        print(json.dumps({**doc, "files": files}))
    else:
        _print(report, files, args.seed)
    return 0


def _print(r: RRBAResults, files: dict[str, str], seed: int) -> None:
    from mpc_rr.workflows._validity import validity_lines
    from scenarios.cli.jobs import fmt_epsilon

    o = r.options
    print(f"RRBA on {r.data}")
    print(
        f"  d={len(r.attributes)} attributes, k={o['k']}: {r.subsets_total} subsets in "
        f"{r.views} views; B={o['block']}, p={o['p']}, estimator={o['estimator']} "
        f"(repair {o['repair']}), alpha={o['alpha']}, t-floor={o['t_floor']}, stop={o['stop']}, seed={seed}"
    )
    c = r.cost
    print(f"  clients asked {r.clients}, blocks {r.blocks}, answers {c.answers}")
    subs = r.subsets
    show = subs if len(subs) <= 40 else subs[:40]
    print(
        f"\n  {'subset':<28}{'cells':>6}{'answers':>8}{'blocks':>7}{'first held':>11}{'converged':>10}{'max|err|':>9}  estimate/truth (first cells)"
    )
    for s in show:
        cells = " ".join(f"{e:.3f}/{t:.3f}" for e, t in list(zip(s.estimate, s.truth, strict=True))[:4])
        held = s.first_held_block or "-"
        print(
            f"  {','.join(s.attributes)[:27]:<28}{s.cells:>6}{s.answers:>8}{s.blocks:>7}"
            f"{held!s:>11}{'yes' if s.converged else 'no':>10}{s.max_abs_error:>9.4f}  {cells}"
        )
    if len(subs) > len(show):
        print(f"  ... {len(subs) - len(show)} more subsets in results.json")
    print(f"\n  stopping rule: {r.converged_subsets}/{len(subs)} subsets "
          f"{'stopped' if o['stop'] == 'first' else 'hold at the last block'}")  # fmt: skip
    print(
        f"  epsilon: true (worst client, its view's subsets composed) {fmt_epsilon(r.epsilon_true)}; "
        f"paper ln(1/(1-p)) = {fmt_epsilon(r.epsilon_paper)} per answer "
        f"({fmt_epsilon(r.epsilon_paper_view)} per view); t-floor cap per subset {fmt_epsilon(r.epsilon_cap_per_subset)}"
    )
    if r.epsilon_true_is_infinite:
        print("  note: a table sent had a zero cell, so the true epsilon is infinite; use --t-floor")
    for line in r.privacy.lines:
        print("  " + line)
    for line in validity_lines([dict(v) for v in r.validity]):
        print("  " + line)
    if not r.marginals:
        print("\n  marginals vs truth: not evaluated (--marginals 0)")
    else:
        print("\n  marginals vs truth (l2 on counts, Jensen-Shannon in bits; mean over tables)")
    for m, v in r.marginals.items():
        skip = f"; {v.skipped} sets skipped (QP over {v.max_rows:,} rows)" if v.skipped else ""
        print(
            f"  {m}-way: {v.tables:>3} tables ({v.method}): l2 {v.l2_mean:.2f} "
            f"(max {v.l2_max:.2f}), JS {v.js_mean:.4f} (max {v.js_max:.4f}){skip}"
        )
    print(f"\n  cost: {c.answers} answers, {c.tables_sent} tables ({c.table_cells_sent} cells) sent")
    costs = c.costs
    if costs is None:
        print(f"  messages/bytes per role: none ({c.to_json()['note']})")
    else:
        a, cl = costs.coordinator(), costs.data_parties()
        tally = "secure tally (SecAgg+ per block)" if o.get("secure_tally") else "plain tally"
        print(
            f"  over {costs.transport}, {tally}: {costs.messages:,} messages, {costs.bytes:,} bytes, "
            f"{costs.rounds} rounds, {costs.wall_s:.2f} s"
        )
        print(
            f"    aggregator: sent {a['messages_sent']:,} messages / {a['bytes_sent']:,} bytes, "
            f"received {a['messages_received']:,} / {a['bytes_received']:,}"
        )
        m = cl["mean"]
        print(
            f"    clients ({len(costs.parties) - 1:,}): sent {cl['total']['messages_sent']:,.0f} messages / "
            f"{cl['total']['bytes_sent']:,.0f} bytes in total; per client {m['messages_sent']:.2f} "
            f"sent ({m['bytes_sent']:.0f} bytes), {m['messages_received']:.2f} received "
            f"({m['bytes_received']:.0f} bytes)"
        )
    dr = c.dropouts
    print(
        f"  dropouts: {dr['asked']:,} clients asked, {dr['answered']:,} answers in the tallies, "
        f"{dr['left_out']:,} left out ({dr['silent']:,} silent at the deadline, {dr['rejected']:,} "
        f"rejected), {dr['lost_blocks']} blocks lost, {c.late} late messages ignored"
    )
    if r.seconds is not None:
        print(f"  time: collection {r.seconds.collection:.2f} s, marginals {r.seconds.marginals:.2f} s")
    if r.network is not None:
        from parties.pricing import pricing_line

        print("  " + pricing_line(r.network))
    print(f"  wrote {files['results']} and {files['plot']}")
