"""``mpc-rr privacy``: plan a release -- local epsilon, channel, central (epsilon, delta) -- before running it.

Examples::

    mpc-rr privacy --epsilon0 4 --parties 100000 --delta 1e-6 --channel anonymous
    mpc-rr privacy --mechanism krr --k 4 --p 0.7 --parties 32561 --channel secure-sum --json
    mpc-rr privacy --epsilon0 4 --parties 100000 --channel secure-sum --target-epsilon 0.5
    mpc-rr privacy --mechanism krr --k 4 --p 0.7 --parties 32561 --releases 91   # 4.3 pairs
    mpc-rr privacy --epsilon0 4 --parties 100000 --channel direct     # no amplification
    mpc-rr privacy --epsilon0 2 --parties 300 --channel secure-sum --max-corrupt 0   # nobody colludes
    mpc-rr privacy --epsilon0 2 --parties 300 --channel prio3 --max-corrupt 0.6      # beyond the bound

Colluders (``--max-corrupt F``: floor(F n) clients colluding with the aggregator) know their
own reports, so the shuffle hides a report among the n - floor(F n) - 1 honest others only.
The default is what the channel's protocol assumes: 0.1 for ``secure-sum`` (SecAgg+ sized for
it, as ``mpc-rr run --max-corrupt`` sizes it) and ``prio3`` (the same coalition), 0 for
``anonymous`` (FMT21's ideal shuffler: no protocol of ours runs one).  A coalition beyond what
the channel hides senders against gives no central figure, with the reason.

The accountant is :mod:`mpc_rr.privacy` (Feldman, McMillan & Talwar 2021;
docs/privacy.md); this command parses, prints and plots.
"""

from __future__ import annotations

import argparse
import json
import math

from parties.cli_args import (
    int_at_least,
    open_open,
    open_unit,
    output_file,
    positive_float,
    probability,
)
from scenarios.cli.options import HelpFormatter, add_json

CHANNELS = ("direct", "anonymous", "secure-sum", "prio3")
"""mpc_rr.privacy.CHANNELS, without importing the library at start-up (a test checks they agree)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "privacy",
        help="plan a release: local epsilon, the channel, the central (epsilon, delta) it licenses",
        description=(
            "Given a local randomizer (eps0, or keep-or-uniform's p over k values), the number of "
            "parties, delta and the channel, print the central (epsilon, delta) the channel "
            "licenses (FMT21 shuffle amplification; a direct channel amplifies nothing), and with "
            "--target-epsilon the smallest n and the largest eps0 / p that meet the target."
        ),
        formatter_class=HelpFormatter,
    )
    p.add_argument("--epsilon0", type=positive_float, default=None, help="local epsilon of one report")
    p.add_argument("--mechanism", choices=("generic", "krr"), default="generic",
                   help="generic eps0-LDP, or k-RR / keep-or-uniform (tighter, needs --k)")  # fmt: skip
    p.add_argument("--k", type=int_at_least(2), default=None, help="krr: domain size")
    p.add_argument("--p", type=probability, default=None, help="krr: keep probability (instead of --epsilon0)")
    p.add_argument("--parties", type=int_at_least(1), required=True, help="n: reports shuffled together")
    p.add_argument("--delta", type=open_open, default=1e-6, help="delta of the central guarantee")
    p.add_argument("--channel", choices=CHANNELS, default="secure-sum", help="how reports travel")
    p.add_argument("--max-corrupt", type=open_unit, default=None,
                   help="fraction of the parties colluding with the aggregator (their reports known); "
                   "default: secure-sum and prio3 0.1 (what the protocols assume), anonymous 0")  # fmt: skip
    p.add_argument("--bound", choices=("numerical", "closed-form"), default="numerical",
                   help="FMT21 numerical (clone reduction, App. E) or Thm 3.1 closed form")  # fmt: skip
    p.add_argument("--releases", type=int_at_least(1), default=1,
                   help="identical releases per party, composed with the PLD accountant")  # fmt: skip
    p.add_argument("--target-epsilon", type=positive_float, default=None,
                   help="inverse: smallest n and largest eps0 / p meeting this central epsilon")  # fmt: skip
    p.add_argument("--plot", type=output_file, default=None, help="write the central-vs-n curve PNG here")
    add_json(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from mpc_rr.core import UsageError
    from mpc_rr.privacy import check_epsilon0, check_numerical_parties

    if args.channel != "direct":  # the accountant's range, refused before it is imported
        if args.epsilon0 is not None:
            check_epsilon0(args.epsilon0)
        if args.bound == "numerical":
            check_numerical_parties(args.parties)
    from mpc_rr.workflows import plan_privacy
    from mpc_rr.workflows._privacy import central_curve

    if args.mechanism == "krr" and args.k is None:
        raise UsageError("--mechanism krr needs --k")
    if args.mechanism == "generic" and args.p is not None:
        raise UsageError("--p is keep-or-uniform's: use --mechanism krr --k K")
    k = args.k if args.mechanism == "krr" else None
    plan = plan_privacy(
        epsilon0=args.epsilon0, p=args.p, k=k, parties=args.parties, delta=args.delta,
        channel=args.channel, bound=args.bound, releases=args.releases, target=args.target_epsilon,
        max_corrupt=args.max_corrupt,
    )  # fmt: skip
    doc = plan.to_json()
    plot = None
    if args.plot is not None:
        from scenarios.figures.privacy import plot_central_curve

        curve = central_curve(plan.epsilon0, args.delta, args.channel, k=k, releases=args.releases,
                              max_corrupt=plan.max_corrupt if plan.amplified else 0.0)  # fmt: skip
        plot = plot_central_curve(
            curve, args.plot, epsilon0=plan.local_epsilon, channel=args.channel,
            mark=(args.parties, plan.central_epsilon if plan.central_epsilon is not None else plan.local_epsilon),
            mark_label="this plan",
            title=f"{plan.mechanism}, eps0 = {plan.epsilon0:.3g} x {args.releases}, delta = {args.delta:g}",
        )  # fmt: skip
        doc["plot"] = str(plot)
    if args.json:
        print(json.dumps(doc, indent=2))
        return 0
    print(f"privacy plan: {plan.mechanism}, {args.parties:,} parties, channel {args.channel}")
    p_txt = "" if plan.p is None else f" (keep probability p = {plan.p:.4g})"
    print(f"  local epsilon:   {plan.local_epsilon:.4g}{p_txt}, {args.releases} release(s)")
    if plan.reason is not None:
        print(f"  central:         none -- {plan.reason}")
    elif plan.amplified:
        print(f"  central:         ({plan.central_epsilon:.4g}, {plan.delta:.2g})  [{plan.bound}]")
    else:
        print(f"  central:         {plan.central_epsilon:.4g} = local  [{plan.bound}]")
    if args.channel != "direct":
        print(f"  colluders:       {plan.colluders:,} (max_corrupt {plan.max_corrupt:g}); a report "
              f"hides among {plan.honest_parties:,} (itself and the honest others)")  # fmt: skip
        print(f"  assumes:         {plan.assumption['channel']}")
    print(f"  computed in {1000 * plan.seconds:.1f} ms")
    solve = doc.get("solve")  # (its JSON: the keys the solver answered, the note alone when it did not)
    if solve:
        print(f"  target central epsilon {args.target_epsilon:g}:")
        for key in ("smallest_parties", "largest_epsilon0", "largest_p", "note"):
            v = solve.get(key)
            if v is not None:
                shown = f"{v:.4g}" if isinstance(v, float) and math.isfinite(v) else v
                print(f"    {key.replace('_', ' ')}: {shown}")
    if plot is not None:
        print(f"  plot: {plot}")
    return 0
