"""``mpc-rr mechanism``: privacy figures of the multi-attribute mechanism families.

Examples::

    mpc-rr mechanism lambda --sizes 5,5,5 --lambdas 0.6,0.7,0.4
    mpc-rr mechanism optimized --sizes 5,5,5 --eps 2,3,4 --method auto --json
"""

from __future__ import annotations

import argparse
import json
import math
import time

from mpc_rr.core import UsageError
from parties.cli_args import for_command_line
from scenarios.cli.options import HelpFormatter, add_json


def _int_list(text: str) -> list[int]:
    try:
        return [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        msg = f"expected comma-separated integers, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None


def _float_list(text: str) -> list[float]:
    try:
        return [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        msg = f"expected comma-separated numbers, got {text!r}"
        raise argparse.ArgumentTypeError(msg) from None


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "mechanism",
        help="privacy figures of λ-randomization and privacy-optimized RR",
        description="Per-attribute and overall privacy figures of a multi-attribute mechanism.",
        formatter_class=HelpFormatter,
    )
    fam = parser.add_subparsers(dest="family", required=True, metavar="FAMILY")

    lam = fam.add_parser(
        "lambda", help="λ-randomization (Ruiz): Kronecker of λI + (1−λ)J/n", formatter_class=HelpFormatter
    )
    lam.add_argument("--sizes", type=_int_list, required=True, help="categories, e.g. 5,5,5")
    lam.add_argument("--lambdas", type=_float_list, required=True, help="e.g. 0.6,0.7,0.4")
    add_json(lam, "print JSON instead of a table")
    lam.set_defaults(func=_run_lambda)

    opt = fam.add_parser(
        "optimized", help="privacy-optimized RR (Yamamoto & Shibuya)", formatter_class=HelpFormatter
    )
    opt.add_argument("--sizes", type=_int_list, required=True, help="categories, e.g. 5,5,5")
    opt.add_argument("--eps", type=_float_list, required=True, help="per-attribute epsilons")
    opt.add_argument(
        "--method", choices=("lp", "heuristic", "auto"), default="auto",
        help="lp: exact optimum (small k); heuristic: Algorithm 3; auto: lp up to 12 attributes",
    )  # fmt: skip
    opt.add_argument(
        "--on-mismatch",
        choices=("raise", "reorder"),
        default="raise",
        help="heuristic: refuse, or search attribute orders, when it cannot meet --eps",
    )
    add_json(opt, "print JSON instead of a table")
    opt.set_defaults(func=_run_optimized)


def _fmt(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.4f}"


def _run_lambda(args: argparse.Namespace) -> int:
    from mpc_rr.mechanisms import LambdaRandomization

    mech = LambdaRandomization(args.sizes, args.lambdas)
    out = {
        "sizes": list(mech.sizes),
        "lambdas": list(mech.lambdas),
        "epsilons": list(mech.epsilons),
        "overall_epsilon": mech.epsilon,
        "entropy_bits": list(mech.entropies),
        "overall_entropy_bits": mech.entropy,
        "entropy_share": list(mech.entropy_shares),
        "overall_entropy_share": mech.entropy_share,
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print("λ-randomization (Ruiz): P(λ) = λI + (1−λ)J/n per attribute, Kronecker product")
    print(f"{'attribute':>9} {'n':>4} {'λ':>6} {'epsilon':>9} {'H (bits)':>9} {'H/log2 n':>9}")
    rows = zip(
        mech.sizes, mech.lambdas, mech.epsilons, mech.entropies, mech.entropy_shares, strict=True
    )
    for i, (n, lam, eps, h, share) in enumerate(rows):
        print(f"{i:>9} {n:>4} {lam:>6.3f} {_fmt(eps):>9} {h:>9.4f} {100 * share:>8.1f}%")
    n_total = math.prod(mech.sizes)
    print(
        f"{'joint':>9} {n_total:>4} {'':>6} {_fmt(mech.epsilon):>9} {mech.entropy:>9.4f} "
        f"{100 * mech.entropy_share:>8.1f}%"
    )
    return 0


def _run_optimized(args: argparse.Namespace) -> int:
    from mpc_rr.mechanisms.optimized import optimize, solve_heuristic, solve_lp

    start = time.perf_counter()
    result = optimize(args.sizes, args.eps, method=args.method, on_mismatch=args.on_mismatch)
    seconds = time.perf_counter() - start
    k = len(result.sizes)
    comparison: dict[str, object] = {"kronecker": result.kronecker_epsilon}
    if result.method == "lp":
        comparison["lp"] = result.overall_epsilon
    elif k <= 12:
        comparison["lp"] = solve_lp(args.sizes, args.eps).overall_epsilon
    else:
        comparison["lp"] = None
    if result.method == "heuristic":
        comparison["heuristic"] = result.overall_epsilon
    else:
        try:
            comparison["heuristic"] = solve_heuristic(
                args.sizes, args.eps, on_mismatch=args.on_mismatch
            ).overall_epsilon
        except UsageError as exc:
            comparison["heuristic"] = None
            comparison["heuristic_refused"] = for_command_line(str(exc))
    out = result.report() | {"seconds": seconds, "comparison": comparison}
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"privacy-optimized RR (Yamamoto & Shibuya), method: {result.method}")
    print(f"{'attribute':>9} {'n':>4} {'requested':>10} {'achieved':>10}")
    rows = zip(result.sizes, result.requested_epsilons, result.achieved_epsilons, strict=True)
    for i, (n, req, ach) in enumerate(rows):
        print(f"{i:>9} {n:>4} {req:>10.4f} {ach:>10.4f}")
    if result.method == "heuristic":
        print(f"induction order: {list(result.order)}")
    lp, heur = comparison["lp"], comparison["heuristic"]
    print(f"overall epsilon ({result.method}): {_fmt(result.overall_epsilon)}")
    print(f"  LP optimum:        {'n/a (k > 12)' if lp is None else _fmt(float(lp))}")
    print(f"  heuristic:         {'refused' if heur is None else _fmt(float(heur))}")
    print(f"  Kronecker (sum):   {_fmt(result.kronecker_epsilon)}")
    if heur is None and "heuristic_refused" in comparison:
        print(f"  (heuristic: {comparison['heuristic_refused']})")
    print(f"seconds: {seconds:.4f}")
    return 0
