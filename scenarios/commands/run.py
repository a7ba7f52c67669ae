"""``mpc-rr run adult``: the distributed RR-Clusters pipeline as the product's main job."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from mpc_rr.estimation import METHODS
from mpc_rr.pipeline import MECHANISMS
from scenarios.executors import get_executor
from scenarios.pipeline_run import RunOptions, run_pipeline, write_outputs

DEPENDENCE_FLAGS = {"rr": "rr", "secure-sum": "secure-sum", "pairwise-rr": "pairwise-rr"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("run", help="run the distributed pipeline on a data set (adult)")
    p.add_argument("dataset", choices=["adult"])
    p.add_argument(
        "--parties",
        type=int,
        default=None,
        help="subsample this many parties (default: all 32,561)",
    )
    p.add_argument(
        "--p",
        type=float,
        default=0.7,
        help="keep probability of per-attribute RR (sets each eps_A)",
    )
    p.add_argument(
        "--tv", type=int, default=100, help="Algorithm 1: max value combinations per cluster"
    )
    p.add_argument("--td", type=float, default=0.1, help="Algorithm 1: min dependence to merge")
    p.add_argument(
        "--dependence",
        choices=list(DEPENDENCE_FLAGS),
        default="rr",
        help="dependence source: rr (4.1), secure-sum (4.2), pairwise-rr (4.3)",
    )
    p.add_argument(
        "--mechanism", choices=MECHANISMS, default="cluster", help="release mechanism per cluster"
    )
    p.add_argument("--estimator", choices=METHODS, default="clip")
    p.add_argument("--transport", default="memory", help="memory | tcp | harness")
    p.add_argument("--queries", type=int, default=200, help="count queries per sigma")
    p.add_argument(
        "--max-dropout",
        type=float,
        default=1 / 3,
        help="secure-sum sources: tolerated dropout fraction (SecAgg+)",
    )
    p.add_argument(
        "--secagg-degree",
        type=int,
        default=None,
        help="secure-sum sources: SecAgg+ graph degree (default 2*ceil(log2 n))",
    )
    p.add_argument(
        "--secagg-failure",
        type=float,
        default=1e-6,
        help="secure-sum sources: allowed probability that a party loses its threshold",
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--out", type=Path, default=None, help="output folder (default results/run-adult-<seed>)"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    opts = RunOptions(
        parties=args.parties, p=args.p, tv=args.tv, td=args.td, dependence=args.dependence,
        mechanism=args.mechanism, estimator=args.estimator, transport=args.transport,
        seed=args.seed, queries=args.queries,
    )  # fmt: skip
    executor = get_executor(args.transport)
    bars: dict[str, tqdm] = {}

    def progress(phase: str, done: int, total: int) -> None:
        """One bar per phase; ``total == 0`` means not known in advance (secure-sum messages)."""
        bar = bars.get(phase)
        if bar is None:
            label = {
                "DEPENDENCE": "dependence phase",
                "SECURE SUM": "dependence phase (secure sum)",
                "RELEASE": "release phase",
            }.get(phase, phase)
            unit = "msg" if phase == "SECURE SUM" else "party"
            bar = bars[phase] = tqdm(
                total=total or None,
                desc=label,
                unit=unit,
                file=sys.stderr,
                disable=None,
                mininterval=0.5,
            )
        bar.total = total or None
        bar.n = done
        if done % 256 == 0 or done == total:
            bar.refresh()

    sub_factory = None
    if args.dependence != "rr":
        from scenarios.secure_sum_factory import sub_factory_for

        sub_factory = sub_factory_for(
            args.dependence,
            max_dropout=args.max_dropout,
            degree=args.secagg_degree,
            failure=args.secagg_failure,
        )
    result, _ = run_pipeline(opts, executor, sub_factory=sub_factory, progress=progress)
    for bar in bars.values():
        bar.close()
    out = args.out or Path("results") / f"run-adult-{args.seed}"
    paths = write_outputs(result, out)
    _summary(result)
    print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def _fmt_eps(v: float | None) -> str:
    return "inf (not DP)" if v is None else f"{v:.3f}"


def _summary(r: dict) -> None:
    o = r["options"]
    print(
        f"\nmpc-rr run adult: {r['parties']} parties, transport {r['cost']['transport']}, dependence {o['dependence']}, "
        f"mechanism {o['mechanism']}, p = {o['p']}, Tv = {o['tv']}, Td = {o['td']}, seed {r['seed']}"
    )
    print("clusters: " + " | ".join(" + ".join(c) for c in r["clusters"]))
    e = r["epsilon"]
    print(
        f"epsilon per party: dependence {_fmt_eps(e['dependence'])}, release {_fmt_eps(e['release'])}, total {_fmt_eps(e['total'])}"
    )
    c = r["cost"]
    print(
        f"cost: {c['messages']:,} messages, {c['bytes']:,} bytes; coordinator sent {c['coordinator']['messages_sent']:,} msgs / "
        f"{c['coordinator']['bytes_sent']:,} B, received {c['coordinator']['messages_received']:,} msgs / {c['coordinator']['bytes_received']:,} B; "
        f"per party sent {c['per_party']['messages_sent']:.1f} msgs / {c['per_party']['bytes_sent']:.0f} B"
    )
    t = r["timing"]
    print(
        f"time: setup {t['setup_s']:.2f} s, protocol {t['protocol_s']:.2f} s, evaluation {t['evaluation_s']:.2f} s"
    )
    print(f"median relative error of count queries (RR-Independent: {r['independent_source']}):")
    sig = list(next(iter(r["relative_error"].values())))
    print(f"  {'method':<27}" + "".join(f"{'sigma=' + s:>12}" for s in sig))
    for m in (
        "RR-Independent",
        "RR-Clusters",
        "RR-Independent+Adjustment",
        "RR-Clusters+Adjustment",
    ):
        if m in r["relative_error"]:
            print(f"  {m:<27}" + "".join(f"{r['relative_error'][m][s]:>12.4f}" for s in sig))
