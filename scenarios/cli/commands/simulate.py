"""``mpc-rr simulate``: a sum protocol under seeded fault schedules, every violation replayable.

Each seed draws one schedule (delivery order, drops, duplicates, crashes of any party at any
point of its sends, late joins, ``--byzantine`` parties whose messages are rewritten or who
play a cheating role) and runs the protocol's roles through it, checking after every step
that an honest party's total is the exact sum of the inputs it counts (or that it aborts
naming only faulty parties), that party 0 recovers no honest input, that every party ends
within the step bound and that the messages stay within the protocol's cost model
(:mod:`mpc_rr.simulation`).  Each violation is printed with its seed, the schedule shrunk
to the fewest faults that still violate, and the command that replays it:
``--seed S --schedules 1`` runs seed ``S`` alone and prints the same output every time.
``--broken NAME`` runs a planted broken variant of the protocol instead (the simulator must
find it).  Many schedules run over the cores.  Exit status 1 when some schedule violates.

Examples::

    mpc-rr simulate --protocol secagg --schedules 1000 --byzantine 1
    mpc-rr simulate --protocol secagg --seed 76 --schedules 1 --parties 5 --byzantine 1  # replay one
    mpc-rr simulate --protocol full-mesh-board --broken unsigned-keys --schedules 300 --json
"""

from __future__ import annotations

import argparse
import json

from mpc_rr.secure_sum import sum_protocol_names
from scenarios.cli.options import HelpFormatter, add_json, int_at_least


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "simulate",
        help="run a sum protocol under seeded fault schedules; replay a violation from its seed",
        description=__doc__,
        formatter_class=HelpFormatter,
    )
    p.add_argument("--protocol", choices=sum_protocol_names(), required=True, help="the sum protocol")
    p.add_argument("--schedules", type=int_at_least(1), default=200, help="how many seeds to run")
    p.add_argument("--seed", type=int_at_least(0), default=0, help="the first seed")
    p.add_argument("--byzantine", type=int_at_least(0), default=1, help="Byzantine parties per schedule")
    p.add_argument("--parties", type=int_at_least(2, 64), default=5, help="data parties per run")
    p.add_argument("--broken", default=None, metavar="NAME",
                   help="run this planted broken variant of the protocol (the simulator must find it)")  # fmt: skip
    p.add_argument("--workers", type=int_at_least(1), default=None,
                   help="worker processes for many schedules (default: one per core)")  # fmt: skip
    add_json(p, "print one JSON object")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from mpc_rr.core import UsageError
    from mpc_rr.simulation import broken_variants, render
    from scenarios.simulation import simulate_over_cores

    if args.broken is not None and args.broken not in (known := broken_variants(args.protocol)):
        raise UsageError(f"--broken: {args.protocol} has no broken variant {args.broken!r} "
                         f"(its variants: {', '.join(known) or 'none'})")  # fmt: skip
    campaign = simulate_over_cores(args.protocol, args.schedules, seed=args.seed, workers=args.workers,
                                   parties=args.parties, byzantine=args.byzantine, broken=args.broken)  # fmt: skip
    print(json.dumps(campaign.to_json(), sort_keys=True) if args.json else render(campaign))
    return 0 if campaign.ok else 1
