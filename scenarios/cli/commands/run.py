"""``mpc-rr run adult|FILE.csv``: the distributed RR-Clusters pipeline as the product's main job.

Examples::

    mpc-rr run adult
    mpc-rr run people.csv --schema people.toml
    mpc-rr run people.csv --infer-schema --columns age,sex,region --ordinal age

The data set's name (``adult``, a CSV file's stem, or ``--name``) labels every
output: the run id, ``results.json``, the default output folder and the plot.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpc_rr.estimation import ESTIMATORS
from mpc_rr.mdrr import DEPENDENCE_SOURCES, MECHANISMS
from mpc_rr.secure_sum import DEFAULT_SUM, sum_protocol_names
from parties.runners import LOCAL_TRANSPORTS
from scenarios.cli.options import (
    HelpFormatter,
    add_json,
    add_network,
    add_secagg_bounds,
    add_seed,
    add_shard_flags,
    add_step_timeout,
    add_sum_option,
    inner_sum_options,
    int_at_least,
    network_runner_of,
    open_open,
    output_dir,
    output_file,
    positive_float,
    probability,
    runner_choice,
    unit_interval,
    warn,
    wire_summary,
)
from scenarios.workloads.data_source import add_data_arguments, spec_from_args

if TYPE_CHECKING:  # the library is imported when the command runs (mpc-rr --help stays fast)
    from mpc_rr.workflows._run_results import RunResults


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run the distributed pipeline on a data set (adult, or your own FILE.csv)",
        description="Data parties (one per record) and an untrusted coordinator run the "
        "dependence phase, the signed clustering broadcast, the clustered release, then "
        "estimation + RR-Adjustment; accuracy is measured against the true records.",
        formatter_class=HelpFormatter,
    )
    add_data_arguments(p)
    p.add_argument(
        "--parties", type=int_at_least(2), default=None,
        help="subsample this many parties (default: every record, 32,561 for Adult)",
    )  # fmt: skip
    p.add_argument("--p", type=probability, default=0.7, help="keep probability of per-attribute RR (sets each eps_A)")
    p.add_argument("--tv", type=int_at_least(1), default=100, help="Algorithm 1: max value combinations per cluster")
    p.add_argument("--td", type=unit_interval, default=0.1, help="Algorithm 1: min dependence to merge")
    p.add_argument(
        "--dependence", choices=DEPENDENCE_SOURCES, default="rr",
        help="dependence source: rr (Sec. 4.1), secure-sum (4.2), pairwise-rr (4.3)",
    )  # fmt: skip
    p.add_argument("--mechanism", choices=MECHANISMS, default="cluster", help="release mechanism per cluster")
    p.add_argument(
        "--estimator", choices=ESTIMATORS, default="clip",
        help="repair of Eq. 2 estimates off the simplex (clip-and-rescale, simplex projection, "
        "iterative Bayesian update, none)",
    )  # fmt: skip
    p.add_argument(
        "--transport", choices=LOCAL_TRANSPORTS, default="memory",
        help="memory: Party actors in one process; tcp: TCP + mutual TLS on 127.0.0.1; "
        "harness: synchronous driver, no transport",
    )  # fmt: skip
    add_shard_flags(p)
    add_network(p, "the pipeline")
    p.add_argument("--queries", type=int_at_least(1), default=200, help="count queries per coverage sigma")
    p.add_argument("--adjust-iterations", type=int_at_least(1), default=50,
                   help="RR-Adjustment (Algorithm 2): most passes of its fit")  # fmt: skip
    p.add_argument(
        "--sum", choices=sum_protocol_names(at_coordinator=True), default=DEFAULT_SUM,
        help="secure-sum sources: the sum protocol of the dependence phase (any whose coordinator "
        "learns the sum)",
    )  # fmt: skip
    add_secagg_bounds(p, "secure-sum sources: ")
    add_sum_option(p, "secure-sum sources: ")
    p.add_argument(
        "--secagg-degree", type=int_at_least(1), default=None,
        help="secure-sum sources: SecAgg+ graph degree (default 2*ceil(log2 n), grown until a threshold is both secure and robust; at most n-1)",
    )  # fmt: skip
    p.add_argument(
        "--secagg-failure", type=open_open, default=None,
        help="secure-sum sources: allowed probability that a party loses its Shamir threshold (default 1e-6)",
    )  # fmt: skip
    p.add_argument(
        "--dp-epsilon", type=positive_float, default=None, metavar="E",
        help="--dependence secure-sum: every party adds Skellam noise inside the sum so the counts are "
        "central (E, D)-DP for at most --max-dropout dropouts and --max-corrupt colluders (docs/privacy.md)",
    )  # fmt: skip
    p.add_argument("--dp-delta", type=open_open, default=1e-6, metavar="D",
                   help="with --dp-epsilon: the delta of the noisy counts (default 1e-6)")  # fmt: skip
    add_step_timeout(p)
    add_seed(p, "the simulation: every party's noise derives from it (results say so)")
    p.add_argument("--out", type=output_dir, default=None, help="output folder (default results/run-<name>-<seed>)")
    p.add_argument("--transcript", type=output_file, default=None, help="write what every party sent to this file")
    p.add_argument("--audit", type=int_at_least(100), default=0, metavar="TRIALS",
                   help="after the run, audit each phase's strongest release with TRIALS black-box trials: "
                        "the ledger's empirical lower bound (docs/privacy.md)")  # fmt: skip
    add_json(p, "print results.json instead of the summary")
    p.set_defaults(func=run)


def _check_dependence_flags(args: argparse.Namespace) -> None:
    from mpc_rr.core import UsageError

    given = [f for f, v in (("--max-dropout", args.max_dropout), ("--max-corrupt", args.max_corrupt),
                            ("--secagg-degree", args.secagg_degree),
                            ("--secagg-failure", args.secagg_failure),
                            ("--sum-option", args.sum_option or None)) if v is not None]  # fmt: skip
    if given and args.dependence == "rr":
        raise UsageError(f"{', '.join(given)} only apply to --dependence secure-sum or pairwise-rr")
    if args.dp_epsilon is not None and args.dependence != "secure-sum":
        raise UsageError(f"--dp-epsilon only applies to --dependence secure-sum, got {args.dependence}")


def run(args: argparse.Namespace) -> int:
    from mpc_rr.core import UsageError
    from scenarios.cli.validation import check_network, check_parties, known_records

    # every check that needs no data first, importing nothing heavy (a refusal prints at once)
    _check_dependence_flags(args)
    sum_opts = inner_sum_options(args, args.sum, with_flags=False)  # the SecAgg+ flags: RunOptions' own
    check_network(args.network)
    if args.network is None:
        runner_choice(args)  # refuse sharding flags that do not apply
    elif args.engine != "processes":
        raise UsageError("--network runs the parties in one process: drop --engine ray")
    spec = spec_from_args(args)
    name = args.name or (Path(spec.source).stem if spec.is_file else spec.source)
    check_parties(args.parties, known_records(spec.source), name)
    out = args.out or _fresh(Path("results") / f"run-{name}-{args.seed}")
    try:  # refuse an unwritable default before any work
        output_dir(str(out))
    except argparse.ArgumentTypeError as exc:
        raise UsageError(f"the default output folder: {exc}") from None

    from mpc_rr.workflows._pipeline import RunOptions, run_and_report
    from parties.runners import runner_for
    from scenarios.cli.jobs import (
        PipelineProgress,
        refuse_pipeline_over_memory,
        save_transcript,
        warn_all,
    )
    from scenarios.cli.progress import Phases
    from scenarios.cli.validation import check_columns_vary
    from scenarios.workloads.data_source import load_dataset
    from scenarios.workloads.outputs import write_outputs

    opts = RunOptions(
        parties=args.parties, p=args.p, tv=args.tv, td=args.td, dependence=args.dependence,
        mechanism=args.mechanism, estimator=args.estimator, seed=args.seed, queries=args.queries,
        max_dropout=args.max_dropout, max_corrupt=args.max_corrupt,
        secagg_degree=args.secagg_degree, secagg_failure=args.secagg_failure, sum=args.sum,
        sum_options=sum_opts, audit_trials=args.audit, adjust_iterations=args.adjust_iterations,
        dp_epsilon=args.dp_epsilon, dp_delta=args.dp_delta,
    )  # fmt: skip
    priced = network_runner_of(args, args.transport, step_timeout=args.step_timeout,
                               transcript=args.transcript is not None)  # fmt: skip
    if priced is not None:
        runner: Any = priced
    else:
        transport, shard = runner_choice(args)
        runner = runner_for(transport, step_timeout=args.step_timeout, transcript=args.transcript is not None, **shard)
    replaces = args.out is not None and (out / "results.json").exists()
    said: list[bool] = []

    def say_replaced() -> None:
        """Once the parties run (not before a refusal): the previous run in --out is replaced."""
        if replaces and not said:
            said.append(True)
            warn("run", f"{out} holds a previous run: its results.json, relative_error.csv and "
                        f"relative_error.png are replaced")  # fmt: skip

    phases = Phases()
    with phases:
        phases.start(f"loading {name}")
        data = load_dataset(spec)
        phases.end(f" ({data.n:,} records, {len(data.schema.names)} attributes)")
        check_parties(args.parties, data.n, data.name)
        check_columns_vary(data.schema, spec.source)
        n = args.parties or data.n
        refuse_pipeline_over_memory(opts, data.schema.sizes, n)
        phases.start(f"building {n:,} parties and starting them over {args.transport}")
        results, ev = run_and_report(opts, runner, data, progress=PipelineProgress(phases, say_replaced))
    if priced is not None:
        results = results.with_network(priced.summary())
    warn_all("run", results.warnings)
    say_replaced()
    doc = results.to_json()
    paths = write_outputs(doc, out)
    saved = save_transcript(ev.execution.run.transcript, args.transcript)
    if saved is not None:
        paths.append(saved)
    if args.json:
        import json

        print(json.dumps(doc))
    else:
        _summary(results)
        print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def _fresh(folder: Path) -> Path:
    """``folder``, or ``folder-2``, ``folder-3``, ... if it already holds a run: the default
    output never replaces a previous run (``make demo`` twice keeps both)."""
    k, out = 1, folder
    while (out / "results.json").exists():
        k += 1
        out = folder.with_name(f"{folder.name}-{k}")
    return out


def _summary(r: RunResults) -> None:
    from scenarios.cli.jobs import fmt_epsilon

    o, c = r.options, r.cost
    print(
        f"\nmpc-rr run {r.dataset}: {r.parties} parties, transport {c.transport}, "
        f"dependence {o.dependence}, mechanism {o.mechanism}, p = {o.p}, Tv = {o.tv}, "
        f"Td = {o.td}, seed {r.seed}"
    )
    print(f"noise: {r.noise}")
    print("clusters: " + " | ".join(" + ".join(cl) for cl in r.clusters))
    e = r.epsilon
    print(
        f"epsilon per party: dependence {fmt_epsilon(e.dependence, 'inf (not DP)')}, release "
        f"{fmt_epsilon(e.release, 'inf (not DP)')}, total {fmt_epsilon(e.total, 'inf (not DP)')}"
    )
    for line in r.privacy.lines:
        print(line)
    if r.validity:
        from mpc_rr.workflows._validity import validity_lines

        for line in validity_lines([dict(v) for v in r.validity]):
            print(line)
    co, dp = c.coordinator(), c.data_parties()["mean"]
    print(
        f"cost: {c.messages:,} messages, {c.bytes:,} bytes; coordinator sent "
        f"{co['messages_sent']:,} msgs / {co['bytes_sent']:,} B, received {co['messages_received']:,} "
        f"msgs / {co['bytes_received']:,} B; per party sent {dp['messages_sent']:.1f} msgs / "
        f"{dp['bytes_sent']:.0f} B"
    )
    line = wire_summary(c.to_json())
    if line is not None:
        print(line)
    if r.network is not None:
        from parties.pricing import pricing_line

        print(pricing_line(r.network))
    t = r.timing
    print(f"time: setup {t.setup_s:.2f} s, protocol {t.protocol_s:.2f} s, evaluation {t.evaluation_s:.2f} s")
    src = r.independent_source
    how = ("from the parties' per-attribute RR reports of the dependence phase (Sec. 4.1)"
           if src.startswith("pipeline") else f"{src}: the secure-sum phase releases no per-attribute reports")  # fmt: skip
    print(f"median relative error of count queries; RR-Independent {how}:")
    table = r.relative_error
    print(f"  {'method':<27}" + "".join(f"{'sigma=' + str(s):>12}" for s in table.coverages))
    for m, row in zip(table.methods, table.values, strict=True):
        print(f"  {m:<27}" + "".join(f"{v:>12.4f}" for v in row))
