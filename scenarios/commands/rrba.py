"""``mpc-rr rrba``: one RRBA collection (Imran & Meo) with its accuracy, privacy and cost.

Phase 1 runs the protocol with the centralized engine
(:func:`mpc_rr.rrba.run_rrba`: the same pure functions the Aggregator and
Client roles will call).  ``--transport`` and ``--secure-tally`` arrive with
the distributed roles; :func:`collect` is the one place that will dispatch
to them.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpc_rr.choices import RRBA_CLIENT_RNG as CLIENT_RNG
from mpc_rr.choices import RRBA_ESTIMATORS as ESTIMATORS
from mpc_rr.choices import RRBA_REPAIRS as REPAIRS
from mpc_rr.choices import RRBA_STOPS as STOPS
from scenarios.commands import HelpFormatter, warn

if TYPE_CHECKING:  # the library is imported when the command runs, not at CLI start-up
    import numpy as np

    from mpc_rr.rrba import RRBARun
    from mpc_rr.schema import Dataset


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "rrba",
        help="randomized response block aggregation (Imran & Meo): estimates, convergence, epsilon",
        description=__doc__,
        formatter_class=HelpFormatter,
    )
    p.add_argument(
        "--data", default="survey", help="survey|alarm|child|adult|FILE.csv (default survey)"
    )
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
    p.add_argument("--estimator", choices=ESTIMATORS, default="pooled",
                   help="pooled (convergent, default) or paper (Eq. 4 as written)")  # fmt: skip
    p.add_argument(
        "--repair", choices=REPAIRS, default="clip", help="repair of off-simplex estimates"
    )
    p.add_argument(
        "--alpha", type=float, default=0.05, help="stopping-rule confidence level (default 0.05)"
    )
    p.add_argument("--stop", choices=STOPS, default="never",
                   help="first: freeze a subset when the Sec. 5 rule holds; never: use all clients (default)")  # fmt: skip
    p.add_argument("--t-floor", type=float, default=0.0,
                   help="floor on every cell of the tables sent (caps epsilon; default 0 = paper)")  # fmt: skip
    p.add_argument(
        "--marginals",
        type=int,
        default=20,
        help="3-/4-way marginals evaluated per order (default 20)",
    )
    p.add_argument("--client-rng", choices=CLIENT_RNG, default="per-client",
                   help="per-client generators (as distributed clients) or one shared, faster")  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="seed of the sample, the views and every answer")
    p.add_argument("--json", action="store_true", help="print the results as one JSON object")
    p.add_argument(
        "--out",
        type=Path,
        default=Path("results/rrba"),
        help="folder for results.json and the plot",
    )
    p.set_defaults(func=run)


def collect(data: Dataset, args: argparse.Namespace, seed: np.random.SeedSequence) -> RRBARun:
    """Run the collection.  Phase-2 seam: ``--transport``/``--secure-tally`` dispatch here."""
    from mpc_rr.rrba import run_rrba

    return run_rrba(
        data, p=args.p, block=args.block, k=args.k, estimator=args.estimator, repair=args.repair,
        alpha=args.alpha, t_floor=args.t_floor, stop=args.stop, client_rng=args.client_rng, seed=seed,
    )  # fmt: skip


def _fmt_eps(x: float | None) -> str:
    return "inf" if x is None else f"{x:.3f}"


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from mpc_rr.errors import UsageError
    from scenarios.rrba_data import load_data
    from scenarios.rrba_summary import marginal_errors, plot_convergence, summarize

    if args.marginals < 1:
        raise UsageError(f"--marginals must be >= 1, got {args.marginals}")
    data_ss, proto_ss, eval_ss = np.random.SeedSequence(args.seed).spawn(3)
    data, source = load_data(args.data, args.clients, np.random.default_rng(data_ss))
    t0 = time.perf_counter()
    result = collect(data, args, proto_ss)
    seconds = time.perf_counter() - t0
    marg = marginal_errors(result, data, np.random.default_rng(eval_ss), max_tables=args.marginals)
    doc = summarize(result, data, source, marg)
    doc["seconds"] = {"collection": seconds, "marginals": sum(m["seconds"] for m in marg.values())}
    doc["warnings"] = _warnings(doc)
    for w in doc["warnings"]:
        warn("rrba", w)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(json.dumps(doc, indent=1))
    png = args.out / "convergence.png"
    title = (
        f"RRBA convergence on {args.data}: {result.clients} clients, B={args.block}, p={args.p}, "
        f"estimator={args.estimator}, stop={args.stop}, 1 run (seed {args.seed})"
    )
    plot_convergence(result, png, title, data.schema.names)
    doc["files"] = {"results": str(args.out / "results.json"), "plot": str(png)}
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
    print("\n  marginals vs truth (l2 on counts, Jensen-Shannon in bits; mean over tables)")
    for m, v in doc["marginals"].items():
        print(
            f"  {m}-way: {v['tables']:>3} tables ({v['method']}): l2 {v['l2_mean']:.2f} "
            f"(max {v['l2_max']:.2f}), JS {v['js_mean']:.4f} (max {v['js_max']:.4f})"
        )
    c = doc["cost"]
    print(
        f"\n  cost: {c['answers']} answers, {c['tables_sent']} tables ({c['table_cells_sent']} cells) sent; "
        f"messages/bytes per role: not measured ({c['note']})"
    )
    s = doc["seconds"]
    print(f"  time: collection {s['collection']:.2f} s, marginals {s['marginals']:.2f} s")
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
