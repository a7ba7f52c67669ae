"""``mpc-rr frontier DATA --epsilon 0.5,1,2,4,8``: count-query error per trust model at equal
central epsilon (local RR, shuffled RR, secure sums with distributed noise, a trusted curator).

Examples::

    mpc-rr frontier adult --parties 2000 --epsilon 0.5,1,2,4,8
    mpc-rr frontier survey_10000 --epsilon 1,4 --repeats 10 --json

On one sample and one set of count queries, every trust model answers the same bivariate
counts at the same central (epsilon, delta) per record: local RR, shuffled RR (the ledger's
amplification), each secure sum that carries distributed noise, and a trusted curator for
reference (docs/privacy.md).  The frontier itself is :mod:`mpc_rr.workflows._frontier`:
this command parses, prints and plots.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from mpc_rr.secure_sum import DEFAULT_MAX_CORRUPT
from scenarios.cli.options import (
    HelpFormatter,
    add_json,
    add_seed,
    int_at_least,
    open_open,
    open_unit,
    output_dir,
    probability,
)
from scenarios.workloads.data_source import add_data_arguments, spec_from_args


def _epsilons(text: str) -> tuple[float, ...]:
    """``0.5,1,2``: finite epsilons > 0."""
    try:
        values = tuple(float(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be comma-separated numbers, got {text!r}") from None
    bad = [v for v in values if not (v > 0 and v < float("inf"))]
    if bad:
        raise argparse.ArgumentTypeError(f"every epsilon must be finite and > 0, got {bad[0]}")
    return values


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "frontier",
        help="count-query error per trust model at equal central epsilon (local, shuffled, secure sums + noise)",
        description=__doc__,
        formatter_class=HelpFormatter,
    )
    add_data_arguments(p)
    p.add_argument("--epsilon", type=_epsilons, default=(0.5, 1.0, 2.0, 4.0, 8.0), metavar="E1,E2,...",
                   help="the central epsilons per record to compare at (default 0.5,1,2,4,8)")  # fmt: skip
    p.add_argument("--parties", type=int_at_least(10), default=2000, help="records drawn from the data")
    p.add_argument("--repeats", type=int_at_least(1), default=5, help="runs of each model per epsilon (the bands)")
    p.add_argument("--queries", type=int_at_least(1), default=200, help="count queries (two attributes each)")
    p.add_argument("--coverage", type=probability, default=0.1,
                   help="share of a query's value combinations (Sec. 6.5's sigma)")  # fmt: skip
    p.add_argument("--delta", type=open_open, default=1e-6, help="the central delta of every model")
    p.add_argument("--max-corrupt", type=open_unit, default=DEFAULT_MAX_CORRUPT,
                   help="colluding fraction of the clients in the shuffled model (the sums: their own)")  # fmt: skip
    p.add_argument("--no-curator", action="store_true", help="leave out the trusted-curator reference")
    add_seed(p, "the sample, the queries and every model's randomness")
    add_json(p, "print the frontier as one JSON object")
    p.add_argument("--out", type=output_dir, default=Path("results/frontier"),
                   help="folder for frontier.json and frontier.png")  # fmt: skip
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mpc_rr.core import UsageError
    from mpc_rr.workflows._frontier import frontier
    from scenarios.figures.frontier import plot_frontier
    from scenarios.workloads.data_source import load_dataset

    spec = spec_from_args(args)
    data = load_dataset(spec)
    if args.parties > data.n:
        raise UsageError(f"--parties {args.parties} is more than the {data.n:,} records of {args.dataset}")
    report = frontier(data, args.epsilon, parties=args.parties, repeats=args.repeats, queries=args.queries,
                      coverage=args.coverage, delta=args.delta, max_corrupt=args.max_corrupt,
                      curator=not args.no_curator, seed=args.seed)  # fmt: skip
    doc = report.to_json()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "frontier.json").write_text(json.dumps(doc, indent=1))
    png = plot_frontier(doc, args.out / "frontier.png",
                        title=f"Trust-model frontier on {data.name or args.dataset}: count-query error at equal central epsilon")  # fmt: skip
    doc["files"] = {"results": str(args.out / "frontier.json"), "plot": str(png)}
    if args.json:
        print(json.dumps(doc))
    else:
        _print(doc)
    return 0


def _print(doc: dict[str, Any]) -> None:
    print(f"trust-model frontier on {doc['dataset']}: {doc['parties']:,} parties, {doc['queries']} count "
          f"queries (coverage {doc['coverage']:g}), {doc['repeats']} repeats, delta {doc['delta']:g}")  # fmt: skip
    print(f"\n  {'epsilon':>7}  {'model':<26}{'error (mean ± 95%)':>20}{'central':>9}{'messages':>12}{'seconds':>9}")
    for e in doc["epsilons"]:
        for pt in (p for p in doc["points"] if p["epsilon"] == e):
            half = (pt["ci95"][1] - pt["ci95"][0]) / 2
            print(f"  {e:>7g}  {pt['model']:<26}{pt['mean']:>12.4f} ± {half:<6.4f}{pt['central_epsilon']:>9.3f}"
                  f"{pt['messages']:>12,}{pt['seconds']:>9.2f}")  # fmt: skip
        print(f"  {'':>7}  best: {doc['best'][str(e)]}")
    print("\n  who must be honest:")
    for model in doc["models"]:
        pt = next(p for p in doc["points"] if p["model"] == model)
        print(f"    {model}: {pt['trust']}")
    print(f"\n  wrote {doc['files']['results']} and {doc['files']['plot']}")
