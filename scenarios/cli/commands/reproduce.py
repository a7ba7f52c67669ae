"""``mpc-rr reproduce``: the paper experiments (Domingo-Ferrer & Soria-Comas, Section 6)."""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path
from typing import Any

from mpc_rr.core import UsageError
from mpc_rr.estimation import ESTIMATORS as METHODS
from scenarios.cli.options import HelpFormatter, add_json, add_seed, int_at_least, output_dir
from scenarios.workloads.data_source import add_reading_flags

RRBA = ("rrba-convergence", "rrba-table4", "rrba-tables56")  # scenarios.reproduce.rrba


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "reproduce", help="reproduce a paper experiment (mdrr-table1, mdrr-fig3, rrba-...)",
        formatter_class=HelpFormatter,
    )
    p.add_argument(
        "experiment", choices=["mdrr-table1", "mdrr-fig3", "dependence-ranking", *RRBA],
        help="the experiment to reproduce",
    )  # fmt: skip
    p.add_argument(
        "--runs",
        type=int_at_least(1),
        default=None,
        help="runs per configuration (default 20; mdrr paper: 1000; rrba-*: the paper's 40/100/100)",
    )
    p.add_argument(
        "--clients", type=int_at_least(2), default=None,
        help="rrba-table4/-tables56: records n (default: the paper's 8000)",
    )  # fmt: skip
    add_seed(p, "every run (run r uses a child of it)")
    m = p.add_argument_group("mdrr-table1, mdrr-fig3, dependence-ranking")
    m.add_argument(
        "--dataset", choices=["adult", "adult6"], default=None,
        help="adult6 = the records x 6 (Table 2; default adult: the records once)",
    )  # fmt: skip
    m.add_argument(
        "--dependence", choices=["rr", "exact"], default=None,
        help="mdrr-table1: dependence source for clustering (default rr: Sec. 4.1, per-attribute RR)",
    )  # fmt: skip
    m.add_argument(
        "--epsilon-formula", choices=["true", "paper"], default=None,
        help="mdrr-*: epsilon behind the cluster matrix (default true)",
    )  # fmt: skip
    m.add_argument("--estimator", choices=METHODS, default=None,
                   help="mdrr-*: repair of Eq. 2 estimates (default clip, the paper's)")  # fmt: skip
    m.add_argument("--queries", type=int_at_least(1), default=None, help="mdrr-*: count queries per run (default 20)")
    m.add_argument(
        "--data", type=Path, default=None, metavar="SOURCE",
        help="adult.data, or the folder holding it (default: the shipped copy, or $MPC_RR_DATA); or "
        "FILE.csv: your own data, read with the flags of 'your own data' (without --schema its "
        "schema is inferred; the paper's figures are then not printed beside ours)",
    )  # fmt: skip
    add_reading_flags(p)
    p.add_argument("--out", type=output_dir, default=Path("results"), help="folder for the CSV and PNG")
    add_json(p, "print JSON instead of a table")
    p.set_defaults(func=run)


_MDRR_FLAGS = {"--dataset": "dataset", "--dependence": "dependence", "--epsilon-formula": "epsilon_formula",
               "--estimator": "estimator", "--queries": "queries", "--data": "data"}  # fmt: skip
_MDRR_DEFAULTS = {"dataset": "adult", "dependence": "rr", "epsilon_formula": "true", "estimator": "clip",
                  "queries": 20}  # fmt: skip


def check_flags(args: argparse.Namespace) -> None:
    """Refuse a flag the experiment does not use (it would be ignored), then fill the defaults."""
    from scenarios.workloads.data_source import reading_flags_given

    exp = args.experiment
    if exp in RRBA:
        given = [f for f, k in _MDRR_FLAGS.items() if getattr(args, k) is not None]
        given += reading_flags_given(args)
        if given:
            raise UsageError(
                f"{', '.join(given)}: {exp} runs the paper's RRBA experiment on its Bayesian networks "
                "(for your own data: mpc-rr rrba --data FILE.csv)"
            )
        if exp == "rrba-convergence" and args.clients is not None:
            raise UsageError("--clients: only for rrba-table4 and rrba-tables56 (rrba-convergence runs "
                             "the paper's grid of sizes)")  # fmt: skip
        if args.clients is None:
            args.clients = 8000
        return
    if args.clients is not None:
        raise UsageError(f"--clients: only for rrba-table4 and rrba-tables56 ({exp} uses every record)")
    if exp != "mdrr-table1" and args.dependence is not None:
        raise UsageError(f"--dependence: only for mdrr-table1 ({exp} compares the sources itself or uses rr)")
    if exp == "dependence-ranking":
        given = [f for f in ("--epsilon-formula", "--estimator", "--queries")
                 if getattr(args, _MDRR_FLAGS[f]) is not None]  # fmt: skip
        if given:
            raise UsageError(f"{', '.join(given)}: only for mdrr-table1 and mdrr-fig3")
    for k, v in _MDRR_DEFAULTS.items():
        if getattr(args, k) is None:
            setattr(args, k, v)


def _choices(args: argparse.Namespace, data_n: int) -> str:
    name = getattr(args, "data_name", "adult")
    data = f"data={name}, dataset={args.dataset} (n={data_n})" if name == "adult" else (
        f"data={name} (your records, n={data_n}; not Adult)" + (" x 6" if args.dataset == "adult6" else ""))  # fmt: skip
    return (
        f"{data}, runs={args.runs}, seed={args.seed}, queries/run={args.queries}, "
        f"dependence={args.dependence}, epsilon-formula={args.epsilon_formula}, estimator={args.estimator}"
    )


def run(args: argparse.Namespace) -> int:
    check_flags(args)
    if args.experiment in RRBA:
        from scenarios.reproduce.rrba_report import run as run_rrba

        return run_rrba(args)
    if args.runs is None:
        args.runs = 20
    from scenarios.cli.progress import progress_bar
    from scenarios.reproduce import mdrr

    data = _records(args)
    args.data_name = data.name
    if args.dataset == "adult6":
        data = data.repeat(6)
    args.out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    total = args.runs * len(mdrr.P_VALUES)
    with progress_bar(total=total, desc=args.experiment, unit="run", file=sys.stderr, disable=None) as bar:
        if args.experiment == "mdrr-table1":
            rows = mdrr.table1(
                data,
                args.runs,
                args.seed,
                queries_per_run=args.queries,
                dependence=args.dependence,
                epsilon_formula=args.epsilon_formula,
                method=args.estimator,
                progress=bar.update,
            )
        elif args.experiment == "dependence-ranking":
            from scenarios.reproduce.dependence_ranking import dependence_ranking

            ranking = dependence_ranking(data, args.runs, args.seed, progress=bar.update)
        else:
            fig = mdrr.fig3(
                data,
                args.runs,
                args.seed,
                queries_per_run=args.queries,
                epsilon_formula=args.epsilon_formula,
                method=args.estimator,
                progress=bar.update,
            )
    seconds = time.perf_counter() - t0
    if args.experiment == "mdrr-table1":
        return _report_table1(args, data.n, rows, seconds)
    if args.experiment == "dependence-ranking":
        return _report_ranking(args, data.n, ranking, seconds)
    return _report_fig3(args, data.n, fig, seconds)


def _records(args: argparse.Namespace) -> Any:
    """Adult (adult.data, or the folder holding it, as the paper) or your own CSV file."""
    from mpc_rr.data import load_adult
    from scenarios.workloads.data_source import open_source, reading_flags_given, spec_from_args

    own = args.data is not None and (args.data.suffix.lower() in (".csv", ".tsv") or reading_flags_given(args))
    if not own:
        if reading_flags_given(args):
            raise UsageError(f"{', '.join(reading_flags_given(args))}: read a CSV file given with --data FILE.csv")
        path = args.data / "adult.data" if args.data is not None and args.data.is_dir() else args.data
        return load_adult(path)
    args.data = str(args.data)
    table = open_source(spec_from_args(args, option=True)).table
    args.data = Path(args.data)
    return table


def _report_table1(args: argparse.Namespace, n: int, rows: list, seconds: float) -> int:
    name = "mdrr_table2.csv" if args.dataset == "adult6" else "mdrr_table1.csv"
    path = args.out / name
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["p", "td", "tv", "ours", "paper"])
        for r in rows:
            w.writerow([r.p, r.td, r.tv, f"{r.ours:.4f}", "" if r.paper is None else r.paper])
    if args.json:
        print(
            json.dumps(
                {
                    "choices": _choices(args, n),
                    "seconds": seconds,
                    "csv": str(path),
                    "rows": [r.__dict__ for r in rows],
                },
                indent=1,
            )
        )
        return 0
    number = "Table 2" if args.dataset == "adult6" else "Table 1"
    if args.data_name == "adult":
        table, paper = f"{number} ({'Adult6' if args.dataset == 'adult6' else 'Adult'})", "paper"
    else:  # the paper's column is Adult's figures: a reference, not the same data
        table, paper = f"{number}'s grid on {args.data_name} (your data, not the paper's Adult)", "Adult"
    print(f"{table}: median relative error of RR-Clusters, sigma = 0.1")
    print(f"choices: {_choices(args, n)}")
    print(f"{'p':>4} {'Td':>4} {'Tv':>4} {'ours':>7} {paper:>7}  most frequent clustering")
    for r in rows:
        pv = "" if r.paper is None else f"{r.paper:.3f}"
        print(f"{r.p:>4} {r.td:>4} {r.tv:>4} {r.ours:>7.3f} {pv:>7}  {r.clusters}")
    print(f"wrote {path} ({seconds:.1f} s)")
    return 0


def _report_fig3(args: argparse.Namespace, n: int, fig: dict, seconds: float) -> int:
    path = args.out / "mdrr_fig3.csv"
    with path.open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["p", "method", "sigma", "relative_error"])
        for p, methods in fig.items():
            for m, by_sigma in methods.items():
                for s, v in by_sigma.items():
                    w.writerow([p, m, s, f"{v:.5f}"])
    png = args.out / "mdrr_fig3.png"
    what = args.data_name + (" x 6" if args.dataset == "adult6" else "")
    from scenarios.figures.reproduce import plot_fig3

    plot_fig3(fig, png, f"{what} (n = {n:,}), {args.runs} runs per point, seed {args.seed}")
    if args.json:
        print(
            json.dumps(
                {
                    "choices": _choices(args, n),
                    "seconds": seconds,
                    "csv": str(path),
                    "png": str(png),
                    "relative_error": {str(p): v for p, v in fig.items()},
                },
                indent=1,
            )
        )
        return 0
    from scenarios.reproduce.mdrr import BEST_CONFIG

    print("Figure 3: median relative error of count queries")
    print(f"choices: {_choices(args, n)}; Tv/Td per p = {BEST_CONFIG}")
    for p, methods in fig.items():
        sigmas = list(next(iter(methods.values())))
        print(f"\np = {p}")
        print(f"{'method':<27}" + "".join(f"{s:>7}" for s in sigmas))
        for m, by_sigma in methods.items():
            print(f"{m:<27}" + "".join(f"{by_sigma[s]:>7.3f}" for s in sigmas))
    print(f"\nwrote {path} and {png} ({seconds:.1f} s)")
    return 0


def _report_ranking(args: argparse.Namespace, n: int, rows: list, seconds: float) -> int:
    path = args.out / "dependence_ranking.csv"
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    if args.json:
        print(json.dumps({"rows": rows, "seconds": seconds, "csv": str(path)}, indent=1))
        return 0
    print(
        f"Dependence sources vs exact dependences ({args.data_name}, n={n}, runs={args.runs}, Tv=100, Td=0.1)"
    )
    print(f"{'p':>4} {'source':<12} {'spearman mean':>14} {'min':>7} {'same clusters':>14}")
    for r in rows:
        print(
            f"{r['p']:>4} {r['source']:<12} {r['spearman_mean']:>14.3f} {r['spearman_min']:>7.3f} {r['same_clusters']:>14.0%}"
        )
    print(f"wrote {path} ({seconds:.1f} s)")
    return 0


