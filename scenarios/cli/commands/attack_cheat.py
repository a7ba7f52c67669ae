"""``mpc-rr attack cheat``: an active server or client cheats; are they caught and named?

Examples::

    mpc-rr attack cheat --protocol secagg --strategy key-substitution
    mpc-rr attack cheat --protocol secagg --strategy equivocate --trials 20 --json
    mpc-rr attack cheat --protocol secagg --strategy bad-shares --broken
    mpc-rr attack cheat --protocol full-mesh-board --strategy key-substitution --json
    mpc-rr attack cheat --protocol full-mesh --strategy forge-shares
    mpc-rr attack cheat --protocol pipeline --strategy isolate
    mpc-rr attack cheat --protocol rrba --strategy inconsistent-shares --trials 2
    mpc-rr attack cheat --protocol prio3 --strategy isolate
    mpc-rr attack cheat --strategy list
    mpc-rr attack cheat --protocol secagg --strategy equivocate --transport tcp --trials 1

``--transport tcp`` plays it over a real deployment instead: one process per
party over TCP + mutual TLS, the cheater a hostile hub or party process
(:func:`scenarios.workloads.hostile_hub.deploy_cheat`), and reports each honest
process's exit code and whom its JSON report named (our roles only: the broken
variants are in-memory).

Each strategy (:func:`mpc_rr.adversary.active.cheat_strategies`) is played over
``--trials`` seeded runs of the real roles, then against the broken variant
(one protection switched off), so the report shows both what the cheat
achieves where the protection is missing and that ours catches it: detected,
by whom, the culprits the honest parties named, the inputs the cheater
recovered against the baseline of a guess, the totals it moved.
``--strategy list`` lists every strategy, its side and the protocols that play it.
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from mpc_rr.secure_sum import DEFAULT_SUM
from scenarios.cli.options import HelpFormatter, add_json, add_seed, int_at_least

if TYPE_CHECKING:
    from mpc_rr.adversary.active import CheatReport


def _cheated() -> dict[str, Any]:
    """The protocols the adversary module plays cheats against, and their :class:`Cheats`."""
    from mpc_rr.adversary import attacked, attacks_for

    return {name: attacks_for(name).cheats for name in attacked("cheats")}


def _strategies() -> tuple[str, ...]:
    plays = sorted(_cheated().values(), key=lambda c: -len(c.strategies))  # the widest list's order first
    return tuple(dict.fromkeys(s for c in plays for s in c.strategies))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "cheat",
        help="an active server or client cheats: detected, named, what it learned or moved",
        description=(
            "Play one cheating strategy against the real roles and against the broken variant "
            "(the protection off), over seeded trials; report detection, culprits named by the "
            "honest parties, inputs recovered against the baseline, and totals moved. "
            "Every strategy, its side and the protocols that play it: --strategy list."
        ),
        formatter_class=HelpFormatter,
    )
    cheated = _cheated()
    p.add_argument("--protocol", choices=tuple(cheated), default=DEFAULT_SUM,
                   help="; ".join(f"{name}: {c.note} ({len(c.strategies)} strategies)" for name, c in cheated.items()))  # fmt: skip
    p.add_argument("--strategy", choices=(*_strategies(), "list"), required=True,
                   help="the cheat; 'list': every strategy, its side and the protocols that play it")
    p.add_argument("--trials", type=int_at_least(1), default=5, help="seeded runs per variant")
    p.add_argument("--broken", action="store_true", help="report only the broken variant")
    p.add_argument("--transport", choices=("memory", "tcp"), default="memory",
                   help="memory: every role in this process (default); tcp: a real deployment, one process per "
                        "party over TCP + TLS, the cheater a hostile hub or party process (secagg, pipeline, rrba; full-mesh and full-mesh-board: a hostile hub or board)")  # fmt: skip
    add_seed(p, "the inputs, the identities and the parties' randomness")
    add_json(p, "print JSON instead of text")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    if args.strategy == "list":
        return _list(args)
    if args.transport == "tcp":
        return _deployed(args)
    play = _cheated()[args.protocol]
    broken = play(args.protocol, args.strategy, broken=True, seed=args.seed, trials=args.trials)
    ours = broken if args.broken else play(args.protocol, args.strategy, broken=False, seed=args.seed,
                                           trials=args.trials)  # fmt: skip
    return _print(args, broken, ours)


def _print(args: argparse.Namespace, broken: CheatReport, ours: CheatReport) -> int:
    from mpc_rr.core._errors import blame_json

    if args.json:
        out = ours.as_json()
        out["broken_variant"] = broken.as_json()
        print(json.dumps(out, indent=2))
        return 0
    for rep in (broken,) if args.broken else (broken, ours):
        what = "the broken variant (protection off)" if rep.variant == "broken" else "our roles"
        print(f"{rep.strategy} ({rep.protocol}: the {rep.side} cheats) against {what}, {rep.trials} trials, "
              f"n = {rep.n}:")
        print(f"  detected in {rep.detections}/{rep.trials} trials; culprits named: {list(rep.culprits) or 'none'}"
              f"; honest parties blamed: {list(rep.honest_blamed) or 'none'}")  # fmt: skip
        if rep.suspects:  # groups of which at least one member cheated (unproven which)
            groups = "; ".join("{" + ", ".join(map(str, blame_json(g))) + "}" for g in rep.suspects)
            print(f"  suspects (at least one of each group cheated): {groups}")
        if rep.side == "server":
            print(f"  inputs recovered: {rep.inputs_recovered} of {rep.inputs_total} "
                  f"(baseline, a guess: {rep.baseline:.3g})")  # fmt: skip
        print(f"  honest parties that accepted a wrong total: {rep.wrong_totals}; "
              f"runs completed exactly: {rep.completed}/{rep.trials}")  # fmt: skip
        for note in rep.notes:
            print(f"  note: {note}")
    return 0


def _deployed(args: argparse.Namespace) -> int:
    """``--transport tcp``: one deployment per trial (seeds ``seed``, ``seed + 1``, ...)."""
    from mpc_rr.core import UsageError
    from scenarios.workloads.hostile_hub import DEPLOYED_PROTOCOLS, deploy_cheat

    if args.broken:
        raise UsageError("--transport tcp plays our roles only; the broken variants (--broken) run in memory")
    if args.protocol not in DEPLOYED_PROTOCOLS:
        raise UsageError(f"--transport tcp plays {', '.join(DEPLOYED_PROTOCOLS)}, not {args.protocol}")
    runs = [deploy_cheat(args.protocol, args.strategy, seed=args.seed + t).as_json() for t in range(args.trials)]
    named = sorted({c for r in runs for c in r["culprits"]})
    out = {
        "protocol": args.protocol, "strategy": args.strategy, "side": runs[0]["side"], "transport": "tcp+tls",
        "trials": args.trials, "detected": all(r["detected"] for r in runs),
        "detections": sum(r["detected"] for r in runs), "culprits": named,
        "honest_blamed": sorted({c for r in runs for c in r["honest_blamed"]}),
        "inputs_recovered": sum(r["inputs_recovered"] for r in runs), "runs": runs,
    }  # fmt: skip
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"{args.strategy} ({args.protocol}: the {out['side']} cheats) over TCP + TLS, one process per party, "
          f"{args.trials} deployments:")  # fmt: skip
    print(f"  detected in {out['detections']}/{args.trials}; culprits named: {named or 'none'}; honest parties "
          f"blamed: {out['honest_blamed'] or 'none'}; inputs recovered: {out['inputs_recovered']}")  # fmt: skip
    for r in runs:
        print(f"  exit codes {r['exit_codes']}; named by {r['named_by'] or 'nobody inside the run'}"
              + (f"; {r['signed_totals']} totals signed by the hub" if r["signed_totals"] > 1 else "")
              + f"; {r['wall_s']} s")  # fmt: skip
    return 0


def _list(args: argparse.Namespace) -> int:
    """Every strategy, its side, and the protocols that play it."""
    from mpc_rr.adversary.active import cheat_strategies

    cheated = _cheated()
    rows = [
        {"strategy": s, "side": side, "protocols": [p for p, c in cheated.items() if s in c.strategies]}
        for s, side in cheat_strategies().items()
    ]  # fmt: skip
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'strategy':<21} {'side':<7} protocols that play it")
    for r in rows:
        print(f"{r['strategy']:<21} {r['side']:<7} {', '.join(r['protocols'])}")
    return 0
