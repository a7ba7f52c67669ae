"""``mpc-rr attack``: run an adversary against a simulated collection and report what it learns.

Example::

    mpc-rr attack linkability --data adult --parties 1000 --p 0.9 --channel anonymous
    mpc-rr attack linkability --data adult --parties 32561 --p 0.5 --channel anonymous --json
    mpc-rr attack eavesdrop --protocol secagg --transport tcp --parties 100
    mpc-rr attack coalition --protocol secagg --parties 20 --size 13
    mpc-rr attack cheat --protocol secagg --strategy equivocate --json

Each attack is a sub-command registered in :data:`ATTACKS` (name -> register
function): ``linkability`` (here), ``eavesdrop``
(:mod:`scenarios.cli.commands.attack_eavesdrop`: a run's taps, or offline with
``--transcript FILE``) and ``coalition``
(:mod:`scenarios.cli.commands.attack_coalition`: SecAgg+ / full mesh).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mpc_rr.adversary import LINK_CHANNELS as CHANNELS
from mpc_rr.core import UsageError
from scenarios.cli.commands.mechanism import _int_list
from scenarios.cli.options import (
    HelpFormatter,
    add_json,
    add_seed,
    args_digest,
    int_at_least,
    open_open,
    output_dir,
    probability,
)
from scenarios.workloads.data_source import add_data_option

if TYPE_CHECKING:  # the library is imported when the command runs, not at start-up
    import numpy as np

    from mpc_rr.adversary import LinkabilityResult
    from mpc_rr.data import Schema
    from mpc_rr.pipeline import PipelineConfig


def _register_linkability(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "linkability",
        help="can the aggregator regroup a party's pairwise-RR submissions (Sec. 4.3)?",
        description=(
            "Release every party's pairwise-RR reports (the pipeline's pair mechanisms), deliver "
            "them over one channel, let the curious aggregator regroup them, and report linkage "
            "against the random baseline, anonymity, attribute inference, the epsilon consequence "
            "and re-identification against an auxiliary table (Adult: the parties' records + "
            "adult.test; your own file: all its records)."
        ),
        formatter_class=HelpFormatter,
    )
    add_data_option(p, default="adult", sources="adult|FILE.csv", what="the records the parties hold")
    p.add_argument("--parties", type=int, default=1000, help="parties drawn from the records")
    p.add_argument("--p", type=probability, default=0.5, help="keep probability of the pair mechanisms")
    p.add_argument(
        "--channel", choices=CHANNELS, default="anonymous",
        help="how submissions reach the aggregator: direct (sender visible), anonymous, secure-sum",
    )  # fmt: skip
    p.add_argument("--sweeps", type=int_at_least(0), default=0, help="re-assignment passes after the first")
    p.add_argument("--confidence", type=open_open, default=0.95, help="level of the confidence intervals")
    add_seed(p, "the sample, the noise and the attack")
    p.add_argument("--reid-targets", type=int_at_least(1), default=1000, help="parties re-identified (sample)")
    p.add_argument(
        "--curve", type=_int_list, default=None,
        help="party counts of the accuracy-vs-n plot (default 10,30,100,300,1000,3000 up to --parties)",
    )
    p.add_argument("--no-plot", action="store_true", help="skip the accuracy-vs-n curve and its PNG")
    p.add_argument("--out", type=output_dir, default=Path("results"), help="folder for the PNG")
    add_json(p, "print JSON instead of text")
    p.set_defaults(func=_run_linkability)


def _register_eavesdrop(sub: argparse._SubParsersAction) -> None:
    from scenarios.cli.commands import attack_eavesdrop

    attack_eavesdrop.register(sub)


def _register_coalition(sub: argparse._SubParsersAction) -> None:
    from scenarios.cli.commands import attack_coalition

    attack_coalition.register(sub)


def _register_poison(sub: argparse._SubParsersAction) -> None:
    from scenarios.cli.commands import attack_poison

    attack_poison.register(sub)
def _register_cheat(sub: argparse._SubParsersAction) -> None:
    from scenarios.cli.commands import attack_cheat

    attack_cheat.register(sub)


#: name -> register(subparsers).
ATTACKS: dict[str, Callable[[argparse._SubParsersAction], None]] = {
    "linkability": _register_linkability,
    "eavesdrop": _register_eavesdrop,
    "coalition": _register_coalition,
    "poison": _register_poison,
    "cheat": _register_cheat,
}


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "attack", help="run an adversary and report what it learns against guessing",
        description="Adversaries of the adversary module, each printing success next to baseline.",
        formatter_class=HelpFormatter,
    )
    sub = p.add_subparsers(dest="attack", required=True, metavar="ATTACK")
    for reg in ATTACKS.values():
        reg(sub)


def _config(schema: Schema, parties: int, p: float) -> PipelineConfig:
    from mpc_rr.pipeline import PipelineConfig

    # the pipeline's own accounting and pair mechanisms (the key is irrelevant here)
    return PipelineConfig(schema, n=parties, p=p, dependence="pairwise-rr", coordinator_key=bytes(32))


def _one(
    schema: Schema, codes_all: np.ndarray, n: int, p: float, channel: str, seed: int, sweeps: int,
    confidence: float,
) -> LinkabilityResult:
    import numpy as np

    from mpc_rr.adversary import attack, release_pairs

    rng = np.random.default_rng(seed)
    codes = codes_all[np.sort(rng.choice(codes_all.shape[0], size=n, replace=False))]
    cfg = _config(schema, n, p)
    rel = release_pairs(codes, cfg.sizes, cfg.pair_mechanisms(), rng)
    return attack(rel, channel, rng, sweeps=sweeps, confidence=confidence).result


def _run_linkability(args: argparse.Namespace) -> int:
    import numpy as np

    from mpc_rr.adversary import (
        attack,
        attribute_inference,
        epsilon_consequence,
        reidentification,
        release_pairs,
    )
    from scenarios.cli.validation import check_parties
    from scenarios.workloads.data_source import open_source, spec_from_args

    spec = spec_from_args(args, option=True)
    source = open_source(spec)
    assert source.table is not None  # adult or a CSV file: no networks here
    data = source.table
    if args.reid_targets < 1:
        raise UsageError(f"--reid-targets must be an integer >= 1, got {args.reid_targets}")
    if data.n < 2:
        raise UsageError(f"{spec.source}: {data.n} record(s); linking needs at least 2 parties (one "
                         "per record) whose submissions the attacker tells apart")  # fmt: skip
    if args.parties < 2:
        raise UsageError(f"--parties must be at least 2, got {args.parties}")
    check_parties(args.parties, data.n, data.name)
    if len(data.schema) < 2:
        raise UsageError(f"{spec.source}: pairwise RR needs at least 2 attributes, got {len(data.schema)}")
    start = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    idx = np.sort(rng.choice(data.n, size=args.parties, replace=False))
    codes = data.codes[idx]
    cfg = _config(data.schema, args.parties, args.p)
    rel = release_pairs(codes, cfg.sizes, cfg.pair_mechanisms(), rng)
    run = attack(rel, args.channel, rng, sweeps=args.sweeps, confidence=args.confidence)
    res = run.result
    names = data.schema.names
    inf = attribute_inference(rel, codes, run.owners, run.grouping, names=names, confidence=args.confidence)
    eps = epsilon_consequence(rel, run.owners, run.grouping, names=names)
    accounting = cfg.dependence_epsilons_per_attribute()
    aux, aux_what = _auxiliary(spec.source, codes, data.codes)
    reid = reidentification(
        rel, run.owners, run.grouping, aux, np.arange(args.parties), rng,
        max_targets=args.reid_targets, confidence=args.confidence,
    )
    out: dict[str, object] = res.to_dict() | {
        "p": args.p,
        "data": data.name,
        "auxiliary_table": aux_what,
        "inference": inf.to_dict(),
        "epsilon": eps.to_dict() | {"pipeline_accounting": accounting},
        "reidentification": reid.to_dict(),
    }
    png = None
    if not args.no_plot:
        # the curve reaches this run's n (it is one of its points), whatever the grid's steps
        grid = [*(args.curve or [v for v in (10, 30, 100, 300, 1000, 3000) if v < args.parties]), args.parties]
        curve = []
        for n in sorted(set(grid)):
            row: dict[str, object] = {"parties": n}
            for ch in CHANNELS:
                r = res if (n == args.parties and ch == args.channel) else _one(
                    data.schema, data.codes, n, args.p, ch, args.seed + n, args.sweeps, args.confidence
                )
                row[ch] = {"success": r.success, "ci": list(r.ci), "baseline": r.baseline}
            curve.append(row)
        main = (args.parties, args.channel, res)  # marked on its curve
        from scenarios.figures import attacks as figures

        png = figures.plot_linkability(curve, args.p, args.out, main, seed=args.seed, data=data.name, pairs=res.pairs,
                    name=f"linkability-{args_digest(args)}.png")
        out["curve"] = curve
        out["plot"] = str(png)
    out["seconds_total"] = time.perf_counter() - start
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    _print(args, res, inf, eps, reid, png, data.name, aux_what)
    return 0


def _auxiliary(source: str, codes: np.ndarray, population: np.ndarray) -> tuple[np.ndarray, str]:
    """The attacker's auxiliary table: Adult's parties + adult.test (a census-like register of
    other people), or for your own file every record of it (the population the parties were
    drawn from)."""
    import numpy as np

    if source == "adult":
        from mpc_rr.data import load_adult_test

        return np.concatenate([codes, load_adult_test().codes]), "the parties' records + adult.test"
    return np.asarray(population), "every record of the file (the population the parties were drawn from)"


def _print(args: argparse.Namespace, res, inf, eps, reid, png, data: str, aux: str) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    lvl = f"{100 * args.confidence:g}%"
    print(
        f"linkability of pairwise-RR submissions: {data}, {res.parties:,} parties, p = {args.p:g}, "
        f"channel {res.channel}, {res.pairs} pairs each"
    )
    print(
        f"  pairs correctly grouped   {res.success:.4f}  [{res.ci[0]:.4f}, {res.ci[1]:.4f}] ({lvl})"
        f"   baseline {res.baseline:.4f}"
    )
    print(
        f"  parties fully re-linked   {res.fully_relinked:.4f}  [{res.fully_relinked_ci[0]:.4f}, "
        f"{res.fully_relinked_ci[1]:.4f}]   baseline {res.fully_relinked_baseline:.2e}"
    )
    print(
        f"  degree of anonymity d = H/log2 N  {res.degree_of_anonymity:.3f}   (1 = none linked)"
        f"   effective anonymity set 2^H = {res.anonymity_set:,.1f} of {res.parties:,}"
    )
    print(f"  attacker: {res.seconds:.1f} s")
    if res.channel != "direct":
        print(
            "  (the secure sum's totals are the multiset a perfect mix delivers: the anonymous and "
            "secure-sum views carry the same information)"
        )
    print("  attribute inference (accuracy of MAP guesses of each party's value):")
    print(f"    {'attribute':<15} {'prior':>7} {'1 pair':>7} {'linked':>7} {'own (direct)':>13}")
    rows = zip(inf.attributes, inf.prior, inf.single, inf.linked, inf.own, strict=True)
    for a, pr, si, li, ow in rows:
        print(f"    {a:<15} {pr:>7.3f} {si:>7.3f} {li:>7.3f} {ow:>13.3f}")
    print(
        f"    {'mean':<15} {inf.baseline:>7.3f} {inf.single_mean:>7.3f} {inf.success:>7.3f}"
        f" {float(np.mean(inf.own)):>13.3f}   (linked CI [{inf.ci[0]:.3f}, {inf.ci[1]:.3f}])"
    )
    below = [a for a, pr, li in zip(inf.attributes, inf.prior, inf.linked, strict=True) if li < pr]
    if below:  # a guess from the linked group that loses to the majority value
        print(f"    linked below the prior for {', '.join(below)}: guessing from the linked group "
              "is worse than guessing the most common value (the attacker learns nothing there; "
              "the mis-linked pairs mislead it)")  # fmt: skip
    print("  epsilon per attribute: Sec. 4.3 claims parallel; linking implies (mean over parties):")
    print(f"    {'attribute':<15} {'parallel':>9} {'implied':>9} {'sequential':>10} {'all linked':>10}")
    for row in zip(eps.attributes, eps.parallel, eps.implied, eps.sequential, eps.sequential_share, strict=True):
        a, par, imp, seq, share = row
        print(f"    {a:<15} {par:>9.3f} {imp:>9.3f} {seq:>10.3f} {share:>10.3f}")
    print(
        f"  re-identification against {aux} ({reid.aux_rows:,} rows), "
        f"{reid.targets:,} targets:"
    )
    print(
        f"    linked group -> its record  {reid.success:.4f}  [{reid.ci[0]:.4f}, {reid.ci[1]:.4f}]"
        f"   baseline {reid.baseline:.1e}   (points at one record: {reid.points_at_one:.4f})"
    )
    print(
        f"    one pair alone {reid.single_success:.4f};  all the party's own pairs {reid.true_group_success:.4f}"
        f";  records unique in the table {reid.unique_records:.4f}"
    )
    if png is not None:
        print(f"  plot: {png}")


def _fmt(x: float) -> str:
    return "inf" if math.isinf(x) else f"{x:.4f}"
