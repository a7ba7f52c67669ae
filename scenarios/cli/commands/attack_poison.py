"""``mpc-rr attack poison``: malicious clients try to move a released count through a secure sum.

Examples::

    mpc-rr attack poison --protocol secagg --malicious 1 --strategy out-of-range
    mpc-rr attack poison --protocol prio3 --malicious 1 --strategy out-of-range --json
    mpc-rr attack poison --protocol prio3 --malicious 5 --strategy skip-rr --keep 0.5
    mpc-rr attack poison --on pipeline --protocol secagg --parties 200 --malicious 10 \
        --strategy out-of-range --trials 3 --json
    mpc-rr attack poison --on pipeline --data people.csv --infer-schema --parties 40 \
        --malicious 1 --strategy chosen

The same parties run an honest baseline and the attack (real roles on the
harness; secrets from the OS CSPRNG); the report gives the reports rejected
(count and senders), the shift of the target count (``skip-rr``: of its
unbiased k-RR estimate) and the bound for that protocol and strategy
(:mod:`mpc_rr.adversary.active._poison`).  ``--on pipeline``: the same strategies
against the pipeline's secure-sum dependence over Adult records (``skip-rr``:
the pairwise-RR dependence), reporting the target pair's dependence, the
largest change of any dependence and the clustering broadcast, honest vs
attacked, per seeded trial (:mod:`mpc_rr.adversary.active._poison_pipeline`),
over Adult or your own records (``--data FILE.csv`` with ``mpc-rr run``'s schema
flags).  Every report states the sum's input validity: ``none: one client can
set any count`` for SecAgg+, the full mesh and the plaintext sum; what Prio3's
circuit proves otherwise.  Exit 0 when the attack ran.
"""

from __future__ import annotations

import argparse
import json

from mpc_rr.adversary import attacked
from mpc_rr.secure_sum import ValidityProofs, sum_protocol
from scenarios.cli.options import HelpFormatter, add_json, add_seed, int_at_least
from scenarios.workloads.data_source import add_data_option

STRATEGIES = ("out-of-range", "chosen", "skip-rr")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "poison",
        help="how far can M malicious clients move a count through SecAgg+ or prio3?",
        description=(
            "M malicious clients submit out-of-range vectors, valid but chosen one-hot vectors, or "
            "skip their k-RR randomization; report how far the target count moves next to the bound."
        ),
        formatter_class=HelpFormatter,
    )
    names = attacked("poison")
    checked = [n for n in names if isinstance(sum_protocol(n), ValidityProofs)]
    p.add_argument("--protocol", choices=names, default=checked[0] if checked else names[0],
                   help="the secure sum attacked (" + ", ".join(n for n in names if n not in checked)
                   + ": no validity check)")  # fmt: skip
    p.add_argument("--on", choices=("count", "pipeline"), default="count",
                   help="count: one one-hot count; pipeline: the pipeline's dependences and clusters (--data)")  # fmt: skip
    p.add_argument("--trials", type=int_at_least(1), default=1, help="pipeline: seeded trials (seed, seed+1, ...)")
    p.add_argument("--parties", type=int_at_least(3), default=50, help="parties n")
    p.add_argument("--cells", type=int_at_least(2), default=16, help="categories D (one-hot cells)")
    p.add_argument(
        "--malicious", type=int_at_least(1), required=True, help="malicious clients M (the last M)"
    )
    p.add_argument("--strategy", choices=STRATEGIES, required=True,
                   help="out-of-range: boost the target cell; chosen: a valid one-hot on the target; "
                   "skip-rr: report the target without k-RR (Cheu-Smith-Ullman; Cao-Jia-Gong MGA)")  # fmt: skip
    p.add_argument("--target", type=int_at_least(0), default=0, help="the cell the clients push")
    p.add_argument(
        "--keep", type=float, default=0.5, help="skip-rr: the honest k-RR keep probability"
    )
    p.add_argument(
        "--boost", type=int_at_least(1), default=None,
        help="out-of-range: value submitted (count: default 10^6; pipeline: default n / cells / M)",
    )  # fmt: skip
    add_data_option(p, default="adult", sources="adult|FILE.csv",
                    what="--on pipeline: the records the parties hold")  # fmt: skip
    add_seed(p, "the parties' values and their randomization")
    add_json(p, "print JSON instead of text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.on == "pipeline":
        return _pipeline(args)
    from mpc_rr.adversary.active import poison_attack
    from mpc_rr.core import UsageError
    from scenarios.workloads.data_source import reading_flags_given

    given = reading_flags_given(args) + (["--data"] if args.data != "adult" else [])
    if given:
        raise UsageError(f"{', '.join(given)}: only with --on pipeline (--on count sums one-hot "
                         "counts over --cells categories, no records)")  # fmt: skip

    res = poison_attack(
        args.protocol, parties=args.parties, cells=args.cells, malicious=args.malicious,
        strategy=args.strategy, target=args.target, keep=args.keep,
        boost=args.boost if args.boost is not None else 1_000_000, seed=args.seed,
    )  # fmt: skip
    out = res.to_json()
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    bound = out["bound_text"] or f"{out['bound']:.4g}"
    print(f"{args.protocol}, {args.strategy}: {args.malicious} malicious of {args.parties} parties, target cell "
          f"{args.target}")  # fmt: skip
    print(f"  input validity: {_validity(out['validity'])}")
    print(f"  rejected reports: {out['rejected']['count']} {out['rejected']['ids']}")
    print(f"  target count: honest run {res.count_honest} -> attacked run {res.count_released}")
    if res.estimate_honest is not None:
        print(
            f"  k-RR estimate of the target count: {res.estimate_honest:.2f} -> {res.estimate_released:.2f}"
        )
    print(f"  target shift {res.target_shift:.4g} (bound {bound})")
    return 0


def _pipeline(args: argparse.Namespace) -> int:
    import statistics

    from mpc_rr.adversary import attacks_for
    from mpc_rr.adversary.active import poison_dependence
    from mpc_rr.core import UsageError
    from scenarios.workloads.data_source import load_dataset, spec_from_args

    through = [n for n in attacked("poison") if "pipeline" in attacks_for(n).poison]
    if args.protocol not in through:
        raise UsageError(f"attack poison --on pipeline: --protocol {' or '.join(through)}, not {args.protocol}")
    data = load_dataset(spec_from_args(args, option=True))
    if len(data.schema) < 2:
        raise UsageError(f"--data {args.data}: the pipeline's dependence needs at least 2 attributes, "
                         f"got {len(data.schema)}")  # fmt: skip
    runs = [poison_dependence(args.protocol, data, parties=args.parties, malicious=args.malicious,
                              strategy=args.strategy, seed=args.seed + t, boost=args.boost, p=args.keep)
            for t in range(args.trials)]  # fmt: skip
    docs = [r.to_json() for r in runs]
    summary = {
        "median_target_shift": statistics.median(d["target_shift"] for d in docs),
        "median_max_dependence_change": statistics.median(d["max_dependence_change"] for d in docs),
        "clusters_changed": sum(d["clusters_changed"] for d in docs),
        "rejected": sum(d["rejected"]["count"] for d in docs),
        "trials": len(docs),
        "data": data.name,
        "validity": docs[0]["validity"],
    }
    if args.json:
        print(json.dumps({"trials": docs, "summary": summary}, indent=2))
        return 0
    print(f"pipeline dependence over {args.protocol}, {args.strategy}: {args.malicious} malicious of "
          f"{args.parties} parties ({data.name}), {args.trials} trials")  # fmt: skip
    print(f"  input validity of the dependence sum: {_validity(summary['validity'])}")
    for d in docs:
        print(f"  seed {d['seed']}: target {'/'.join(d['target_pair'])}: dependence {d['dependence_honest']:.4f} -> "
              f"{d['dependence_attacked']:.4f}; largest change {d['max_dependence_change']:.4f}; rejected "
              f"{d['rejected']['count']} {d['rejected']['ids']}; clusters "
              f"{'CHANGED' if d['clusters_changed'] else 'unchanged'}")  # fmt: skip
    print(f"  bound: {docs[0]['bound']}")
    return 0


def _validity(text: str) -> str:
    """The sum's input validity as printed: a sum without a proof says so in words."""
    return f"{text} (the sum has no validity check)" if text.startswith("none") else text
