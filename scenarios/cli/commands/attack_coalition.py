"""``mpc-rr attack coalition``: colluding parties (plus the SecAgg+ server) against one honest input.

Examples::

    mpc-rr attack coalition --protocol secagg --parties 20 --size 13
    mpc-rr attack coalition --protocol secagg --parties 100 --size 3 --degree 14 --threshold 6
    mpc-rr attack coalition --protocol full-mesh --parties 12 --size 11
    mpc-rr attack coalition --protocol secagg --parties 300 --size 30 --variant fixed-draw

One run of the protocol (real roles over the memory transport, a tap on the
network, secrets from the OS CSPRNG); the coalition then pools its members'
views and role states (:func:`mpc_rr.adversary.member_state`) and
tries to recover each honest party's input.  The run is attacked at every
coalition size for the plot; ``--size`` is the headline.  SecAgg+ promises
nothing leaks below the threshold ``t`` the run declared; the full mesh
below ``n - 1``.  The coalition is chosen before the run, knowing the
roster, the run label, its nonce and the parameters (SecAgg+: each target's
neighbours in the graph the label determines); ``--variant`` runs a broken
variant instead (``fixed-draw``: SecAgg+ drawing its graph from the label).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from mpc_rr.adversary import attacked
from mpc_rr.core import get_protocol
from mpc_rr.secure_sum import DEFAULT_SUM
from scenarios.cli.options import (
    HelpFormatter,
    add_json,
    add_protocol_options,
    add_seed,
    args_digest,
    given_options,
    int_at_least,
    open_open,
    output_dir,
)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "coalition",
        help="can C colluding parties (plus the SecAgg+ server) recover an honest party's input?",
        description=(
            "Run SecAgg+ or the Sec. 4.2 full mesh once, let coalitions of every size pool their "
            "views and role states, and report the share of honest inputs recovered against what "
            "the sum alone allows, with the collusion threshold the run declared."
        ),
        formatter_class=HelpFormatter,
    )
    names = attacked("coalition")
    p.add_argument("--protocol", choices=names, default=DEFAULT_SUM if DEFAULT_SUM in names else names[0],
                   help="; ".join(f"{n}: {get_protocol(n).summary}" for n in names))  # fmt: skip
    p.add_argument("--parties", type=int_at_least(3), default=20, help="data parties n")
    p.add_argument("--size", type=int_at_least(0), required=True, help="colluding data parties C")
    p.add_argument("--cells", type=int_at_least(2), default=16, help="cells of the one-hot inputs")
    group = p.add_argument_group("protocol options (each protocol's own; default: the protocol's)")
    flags = add_protocol_options(group, [get_protocol(n) for n in names])
    p.add_argument("--variant", choices=["fixed-draw"], default=None,
                   help="attack a broken variant instead (fixed-draw: SecAgg+'s graph and committee "
                   "from the run label, known before the run)")  # fmt: skip
    p.add_argument("--confidence", type=open_open, default=0.95, help="1 - alpha of every interval")
    add_seed(p, "the inputs (secrets: OS CSPRNG)")
    p.add_argument("--repeats", type=int_at_least(1), default=1,
                   help="independent runs pooled (seeds seed, seed+1, ...): more targets, tighter CIs")  # fmt: skip
    p.add_argument("--out", type=output_dir, default=Path("results"), help="folder for the PNG")
    p.add_argument("--no-plot", action="store_true", help="attack --size only; no sweep, no PNG")
    add_json(p, "print JSON instead of text")
    p.set_defaults(func=run, option_flags=flags)


def run(args: argparse.Namespace) -> int:
    from mpc_rr.workflows._attack_reports import coalition_report
    from scenarios.workloads.networks import network_for

    rep = coalition_report(
        args.protocol, parties=args.parties, size=args.size, cells=args.cells, seed=args.seed,
        repeats=args.repeats, options=given_options(args, args.option_flags),
        confidence=args.confidence, curve=not args.no_plot, network=network_for("memory"),
        variant=args.variant,
    )  # fmt: skip
    head, n, threshold, rule = rep.head, args.parties, rep.threshold, rep.threshold_rule
    out = rep.to_json()
    if rep.curve is not None:
        from scenarios.figures.attacks import plot_coalition

        out["plot"] = str(plot_coalition(args.protocol, n, out["curve"], threshold, rule, args.size, args.out,
                                         f"coalition-{args_digest(args)}.png", server=rep.server_colludes))  # fmt: skip
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    lvl = f"{100 * args.confidence:g}%"
    who = f"{args.size} colluding " + ("clients + the server" if rep.server_colludes else "parties")
    runs = f", {args.repeats} runs pooled" if args.repeats > 1 else ""
    print(f"coalition attack on {args.protocol}: {n} parties, one-hot inputs over {args.cells} cells{runs}")
    print(f"  declared collusion bound: {rule}")
    adv = rep.adversary
    if adv is not None:
        print(f"  variant: {adv['variant']}; draw: {adv['draw']}")
        if adv.get("exposure_note"):
            print(f"  {adv['exposure_note']}")
    print(f"  {who} ({rep.coalition_choice}), {head.targets} honest targets:")
    print(f"    inputs determined by the pooled view  {head.recovered} of {head.targets}  "
          f"(rate {head.recovery_rate:.3f} {_ci(head.recovery_ci)})")  # fmt: skip
    print(f"    success {head.success:.3f} {_ci(head.ci)} ({lvl})   baseline {head.baseline:.3f} "
          f"(what the sum minus the coalition's inputs allows)")  # fmt: skip
    verdict = "LEAKS beyond the sum" if head.leaks else "nothing beyond the sum"
    bound = "at or above" if args.size >= threshold else "below"
    print(f"    -> {verdict} ({bound} the declared bound {threshold})")
    if rep.curve is not None:
        jump = [c.size for c in rep.curve if c.recovery_rate > 0]
        print(f"  first size that recovers an input: {jump[0] if jump else 'none'} (declared: {threshold})")
        print(f"  plot: {out['plot']}")
    return 0


def _ci(ci: tuple[float, float]) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


