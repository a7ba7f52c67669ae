"""``mpc-rr audit``: empirical epsilon of a mechanism, black box, next to its true and claimed epsilon.

Examples::

    mpc-rr audit --mechanism krr --k 2 --epsilon 1 --trials 1000000
    mpc-rr audit --mechanism keep-uniform --size 2 --p 0.5 --trials 100000   # paper's formula refuted
    mpc-rr audit --mechanism optimized --sizes 5,5,5 --eps 2,3,4 --method heuristic --json
    mpc-rr audit --mechanism krr --epsilon 2 --claimed-epsilon 1 --black-box       # planted bug
    mpc-rr audit --mechanism rrba --p 0.5 --data survey --clients 2500 --block 250  # the table sent
    mpc-rr audit --mechanism rrba --p 0.3 --table 0.6,0.3,0.09,0.01
    mpc-rr audit --mechanism pipeline --sizes 2,2,2 --p 0.3 --parties 5000
    mpc-rr audit --mechanism shuffle --epsilon 4 --parties 1000 --trials 200000  # the multiset
    mpc-rr audit --mechanism shuffle --epsilon 4 --parties 10000 --channel leaky  # planted leak

The audit itself is :func:`mpc_rr.workflows.audit_mechanism` (and
:func:`~mpc_rr.workflows.audit_pipeline` for ``--mechanism pipeline``): this
command parses, prints and plots.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scenarios.cli.commands.mechanism import _float_list, _int_list
from scenarios.cli.options import (
    HelpFormatter,
    add_json,
    add_seed,
    int_at_least,
    non_negative,
    open_open,
    output_dir,
    positive_float,
    probability,
)
from scenarios.workloads.data_source import add_data_option

if TYPE_CHECKING:  # the library is imported when the command runs, not at start-up
    pass

CHOICES = ("krr", "keep-uniform", "cluster", "lambda", "optimized", "rrba", "pipeline", "shuffle")
"""mpc_rr.workflows.AUDIT_MECHANISMS, here without importing the library at start-up (a test
checks the two agree)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "audit",
        help="empirical epsilon of a mechanism (black box, Clopper-Pearson lower bound)",
        description=(
            "Run a mechanism on chosen inputs, count how often an attacker tells them apart, and "
            "give a one-sided lower bound on its epsilon; print it next to the true and the "
            "claimed epsilon, and plot the bound against the number of trials."
        ),
        formatter_class=HelpFormatter,
    )
    p.add_argument("--mechanism", choices=CHOICES, required=True, help="the mechanism to audit")
    p.add_argument("--trials", type=int_at_least(1), default=1_000_000, help="mechanism runs (default 10^6)")
    p.add_argument("--confidence", type=open_open, default=0.95, help="1 - alpha (default 0.95)")
    add_seed(p, "the trials")
    add_json(p, "print JSON instead of text")
    p.add_argument("--out", type=output_dir, default=Path("results"), help="folder for the PNG")
    p.add_argument("--no-plot", action="store_true", help="skip the curve and its PNG")
    p.add_argument("--black-box", action="store_true", help="search inputs/outputs from a pilot run")
    p.add_argument("--one-run", action="store_true", help="also run the one-run audit (Steinke et al.)")
    p.add_argument("--claimed-epsilon", type=non_negative, default=None, help="check this figure instead")
    g = p.add_argument_group("mechanism options")
    g.add_argument("--k", type=int_at_least(2), default=2, help="krr, shuffle: domain size of k-RR")
    g.add_argument("--epsilon", type=positive_float, default=1.0, help="krr: epsilon")
    g.add_argument("--size", type=int_at_least(2), default=2, help="keep-uniform: |A|")
    g.add_argument("--p", type=probability, default=None,
                   help="keep probability: keep-uniform, cluster, rrba (default 0.5), pipeline (0.3)")  # fmt: skip
    g.add_argument("--sizes", type=_int_list, default=None, help="cluster/lambda/optimized sizes")
    g.add_argument("--lambdas", type=_float_list, default=[0.6, 0.7, 0.4], help="lambda: λ's")
    g.add_argument("--eps", type=_float_list, default=[2.0, 3.0, 4.0], help="optimized: epsilons")
    g.add_argument("--method", choices=("lp", "heuristic"), default="lp", help="optimized: solver")
    g.add_argument("--table", type=_float_list, default=None, help="rrba: the table T (else --data)")
    g.add_argument("--clients", type=int_at_least(1), default=2500, help="rrba: clients answered before T is sent")
    g.add_argument("--block", type=int_at_least(1), default=250, help="rrba: clients per block")
    g.add_argument("--subset", type=int_at_least(0), default=None, help="rrba: which table (default: smallest cell)")
    g.add_argument("--parties", type=int_at_least(2), default=5000, help="pipeline: canary parties of the one run")
    g.add_argument("--release", choices=("cluster", "lambda", "optimized"), default="cluster",
                   help="pipeline: release mechanism")  # fmt: skip
    g.add_argument("--channel", choices=("shuffle", "leaky"), default="shuffle",
                   help="shuffle: what the analyst sees (leaky: also the sender; planted failure)")  # fmt: skip
    g.add_argument("--actual-epsilon", type=float, default=None,
                   help="shuffle: the randomizer's real eps0 (planted failure: above --epsilon)")  # fmt: skip
    g.add_argument("--delta", type=float, default=1e-6, help="shuffle: delta of the claim")
    add_data_option(p, default=None, sources="rrba: the records whose collection sends T "
                    "(survey|alarm|child|adult|FILE.csv, default survey); pipeline: adult|FILE.csv, "
                    "whose schema gives the attribute domains audited (instead of --sizes)",
                    what="records")  # fmt: skip
    p.set_defaults(func=_run)


def _fmt(x: float | None) -> str:
    if x is None:
        return "n/a"
    return "inf" if math.isinf(x) else f"{x:.4f}"


def _params(args: argparse.Namespace) -> object:
    from mpc_rr.workflows import MechanismParams

    return MechanismParams(
        k=args.k, epsilon=args.epsilon, size=args.size, p=args.p,
        sizes=None if args.sizes is None else tuple(args.sizes), lambdas=tuple(args.lambdas),
        eps=tuple(args.eps), method=args.method,
        table=None if args.table is None else tuple(args.table), data=_records(args),
        clients=args.clients, block=args.block, subset=args.subset, seed=args.seed,
        parties=args.parties, release=args.release,
    )  # fmt: skip


def _records(args: argparse.Namespace) -> Any:
    """``--data`` for ``--mechanism rrba``: a name (the library draws it) or your CSV file's records."""
    from scenarios.workloads.data_source import open_source, spec_from_args

    if args.data is None:
        return "survey"
    spec = spec_from_args(args, option=True, networks=True)
    return open_source(spec).table if spec.is_file else spec.source


def check_data(args: argparse.Namespace) -> None:
    """Refuse ``--data`` (and the CSV reading flags) where the audit uses no records, and with
    ``--table`` (the table is then given, not collected)."""
    from mpc_rr.core import UsageError
    from scenarios.workloads.data_source import reading_flags_given

    flags = reading_flags_given(args)
    if args.data is None:
        if flags:
            raise UsageError(f"{', '.join(flags)}: read a CSV file given with --data FILE.csv")
        return
    if args.mechanism not in ("rrba", "pipeline"):
        raise UsageError(
            f"--data: --mechanism {args.mechanism} is audited on chosen inputs, not records; --data "
            "applies to --mechanism rrba (the records whose collection sends the table) and pipeline "
            "(the attribute domains of your file's schema)"
        )
    if args.mechanism == "rrba" and args.table is not None:
        raise UsageError("give either --table (the table T itself) or --data (records that send it), not both")
    if args.mechanism == "pipeline" and args.sizes is not None:
        raise UsageError("give either --sizes or --data FILE.csv (whose schema gives the sizes), not both")


def check_black_box(args: argparse.Namespace) -> None:
    """Refuse ``--black-box`` on a joint domain too large to search, saying what to change."""
    from mpc_rr.adversary import SEARCH_MAX_CELLS
    from mpc_rr.core import UsageError

    if not args.black_box:
        return
    if args.mechanism in ("pipeline", "shuffle"):
        raise UsageError(f"--black-box: --mechanism {args.mechanism} is audited in one run of its "
                         "parties, with no input search")  # fmt: skip
    default = {"cluster": [9, 16], "optimized": [5, 5, 5], "lambda": [5, 5, 5]}
    cells = {"krr": args.k, "keep-uniform": args.size}.get(args.mechanism)
    if args.mechanism in default:
        cells = math.prod(args.sizes if args.sizes is not None else default[args.mechanism])
    if args.mechanism == "rrba" and args.table is not None:
        cells = len(args.table)
    if cells is not None and cells > SEARCH_MAX_CELLS:
        what = "--sizes" if args.mechanism in default else {"krr": "--k", "keep-uniform": "--size",
                                                            "rrba": "--table"}[args.mechanism]  # fmt: skip
        raise UsageError(
            f"--black-box searches every pair of inputs over the joint domain, at most "
            f"{SEARCH_MAX_CELLS} cells; {what} gives {cells:,}: drop --black-box (the default test "
            f"is built from the mechanism's structure and needs no search) or make {what} smaller "
            f"(at most {SEARCH_MAX_CELLS} cells, e.g. --sizes 4,4,4)"
        )


SECONDS_PER_TRIAL = 4.5e-6
"""Measured wall time per trial of a whole audit (curve, naive design and plot included): 3.4 us
for k-RR, 4.4 us for a 3-attribute cluster mechanism, 4 x 10^6 trials on 2 loaded cores."""

BYTES_PER_TRIAL_CURVE = 100
"""Peak memory per trial with the curve (LDP-Auditor's design holds all its runs at once):
measured 46 (k-RR) to 92 bytes (3 attributes) at 4 x 10^6 trials."""

SECONDS_PER_PARTY, BYTES_PER_PARTY = 2.6e-3, 20_000
"""``--mechanism pipeline`` (real roles, one run): 12.8 s and 150 MB for 5,000 parties."""

MAX_SECONDS = 6 * 3600
"""An audit estimated to take longer is refused (the bound grows only with log(trials))."""


def check_size(args: argparse.Namespace) -> str:
    """Refuse an audit this machine cannot finish, with the estimate and what to change; else
    the progress line announcing it."""
    from mpc_rr.core import UsageError
    from scenarios.cli.options import available_memory, human_bytes, human_seconds

    pipeline = args.mechanism == "pipeline"
    runs = args.parties if pipeline else args.trials
    flag = "--parties" if pipeline else "--trials"
    per_run = SECONDS_PER_PARTY if pipeline else SECONDS_PER_TRIAL
    secs = runs * per_run + 3.0  # + start-up (libraries, the mechanism, the tests)
    if secs > MAX_SECONDS:
        fit = int(MAX_SECONDS / (secs / runs))
        raise UsageError(
            f"{flag} {runs:,} would take about {human_seconds(secs)} (about "
            f"{per_run * 1e6:,.1f} us per run here); the limit is {human_seconds(MAX_SECONDS)}, "
            f"about {fit:,} runs."
            + ("" if pipeline else " The lower bound grows only with log(trials): 10^6 to 10^8 "
               "trials are the useful range")
        )  # fmt: skip
    need, have = runs * (BYTES_PER_PARTY if pipeline else BYTES_PER_TRIAL_CURVE), available_memory()
    if (pipeline or not args.no_plot) and need > 0.8 * have:
        raise UsageError(
            f"{flag} {runs:,} needs about {human_bytes(need)} of memory "
            f"({human_bytes(have)} available): use fewer {flag[2:]}"
            + ("" if pipeline else ", or pass --no-plot (the audit itself is chunked)")
        )
    return f"auditing {args.mechanism}: {runs:,} runs{' and the curve' if not args.no_plot else ''}, about {human_seconds(secs)}"


def _run(args: argparse.Namespace) -> int:
    from mpc_rr.workflows import audit_mechanism
    from scenarios.cli.progress import Phases

    check_data(args)
    check_black_box(args)
    with Phases() as phases:
        phases.start(check_size(args))
        if args.mechanism == "pipeline":
            return _run_pipeline(args)
        if args.mechanism == "shuffle":
            return _run_shuffle(args)
        rep = audit_mechanism(
            args.mechanism, trials=args.trials, confidence=args.confidence, seed=args.seed,
            claimed=args.claimed_epsilon, black_box=args.black_box, one_run=args.one_run,
            curve=not args.no_plot, params=_params(args),  # type: ignore[arg-type]
        )  # fmt: skip
    out = dict(rep.document)
    res, claimed, source, curve, naive = rep.result, rep.claimed, rep.claim_source, list(rep.curve), rep.naive
    png = None
    if curve:
        from scenarios.figures.audit import plot_audit

        png = plot_audit(rep.label, curve, res, claimed, source, args.out, plot_stem(args))
        out["plot"] = str(png)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    lvl = f"{100 * args.confidence:g}%"
    print(f"audit of {rep.label}")
    for k, v in rep.facts:
        print(f"  {k}: {v}")
    print(f"  test: {res.test}")
    print(f"  trials {res.trials:,}: {res.guesses:,} guesses, {res.correct:,} correct")
    print(
        f"  success {res.success:.4f}  [{res.ci[0]:.4f}, {res.ci[1]:.4f}] ({lvl})   "
        f"baseline {res.baseline:.4f} (guessing among {res.candidates})"
    )
    print(f"  epsilon lower bound ({lvl}): {_fmt(res.epsilon_lower)}")
    print(f"  epsilon true (matrix):     {_fmt(res.epsilon_true)}")
    print(f"  epsilon claimed:           {_fmt(claimed)}  ({source})")
    verdict = "REFUTED: the mechanism leaks more than claimed" if res.violation else "not refuted"
    print(f"  claim: {verdict}   ({res.seconds:.3f} s)")
    if naive is not None:
        print(
            f"  a naive design ({naive.test}) gets only "
            f"{_fmt(naive.epsilon_lower)} from the same number of trials"
        )
    if curve:
        print(
            f"  LDP-Auditor's formula, same {curve[-1]['trials']:,} runs and confidence: "
            f"{_fmt(curve[-1]['ldp_auditor'])}"
        )
    if args.one_run:
        o = out["one_run"]
        assert isinstance(o, dict)
        print(
            f"  one-run audit ({args.trials:,} canary parties): epsilon >= {_fmt(float(o['epsilon_lower']))}"
            f", success {float(o['success']):.4f} vs baseline 0.5"
        )
    if png is not None:
        print(f"  plot: {png}")
    return 0


def plot_stem(args: argparse.Namespace) -> str:
    """``audit-<mechanism>-<digest>``: one file per audit asked for, so a new audit does not
    overwrite the last one's plot (the same command line rewrites the same picture)."""
    from scenarios.cli.options import args_digest

    return f"audit-{args.mechanism}-{args_digest(args)}"


def _run_pipeline(args: argparse.Namespace) -> int:
    """``--mechanism pipeline``: one-run audit of the real pipeline roles (dependence rr + release)."""
    from mpc_rr.workflows import audit_pipeline

    sizes, domain = (tuple(args.sizes) if args.sizes is not None else (2, 2, 2)), None
    if args.data is not None:
        from scenarios.workloads.data_source import open_source, spec_from_args

        src = open_source(spec_from_args(args, option=True))
        sizes = tuple(src.schema.sizes)
        domain = f"the domains of {src.description}: {', '.join(src.schema.names)}"
    rep = audit_pipeline(
        sizes=sizes, parties=args.parties,
        p=0.3 if args.p is None else args.p, release=args.release, confidence=args.confidence,
        seed=args.seed, claimed=args.claimed_epsilon, curve=not args.no_plot,
    )  # fmt: skip
    out = dict(rep.document)
    if domain is not None:
        out["domain"] = domain
    res, claimed, source, label = rep.result, rep.claimed, rep.claim_source, rep.label
    png = None
    if rep.curve:
        from scenarios.figures.audit import plot_pipeline_audit

        png = plot_pipeline_audit(label, list(rep.curve), res, claimed, source, args.out, plot_stem(args))
        out["plot"] = str(png)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    lvl = f"{100 * args.confidence:g}%"
    print(f"audit of the {label}")
    if domain is not None:
        print(f"  attributes: {domain} (the parties are canaries, not your records: an audit needs "
              "two known inputs)")  # fmt: skip
    print(f"  design: one run of the real roles, {res.parties:,} canary parties (x0 = 0..0 or x1 = 1..1)")
    print(f"  clustering broadcast: {[list(c) for c in res.clusters]}")
    print(f"  {res.guesses:,} guesses (both releases equal a canary), {res.correct:,} correct")
    print(
        f"  success {res.success:.4f}  [{res.ci[0]:.4f}, {res.ci[1]:.4f}] ({lvl})   baseline 0.5"
    )
    print(f"  epsilon lower bound ({lvl}): {_fmt(res.epsilon_lower)}")
    print(
        f"  epsilon true (composed):   {_fmt(res.epsilon_true)}  "
        f"(dependence {res.epsilon_dependence:.4f} + release {res.epsilon_release:.4f})"
    )
    print(f"  epsilon claimed:           {_fmt(claimed)}  ({source})")
    bad = res.epsilon_lower > claimed
    print(f"  claim: {'REFUTED: the parties leak more than claimed' if bad else 'not refuted'}"
          f"   ({res.seconds:.2f} s)")  # fmt: skip
    if png is not None:
        print(f"  plot: {png}")
    return 0


def _run_shuffle(args: argparse.Namespace) -> int:
    """``--mechanism shuffle``: the multiset of n k-RR reports (binary by default) against the accountant's claim."""
    from mpc_rr.adversary import audit_shuffle

    a = audit_shuffle(
        args.epsilon, args.parties, channel=args.channel, actual_epsilon0=args.actual_epsilon,
        delta=args.delta, trials=args.trials, confidence=args.confidence, seed=args.seed, k=args.k,
    )  # fmt: skip
    if args.json:
        print(json.dumps(a.to_json(), indent=2))
        return 0
    lvl = f"{100 * a.confidence:g}%"
    rr = "binary RR" if a.k == 2 else f"{a.k}-RR"
    print(f"audit of the shuffled output: {a.parties:,} parties, {rr}, channel {a.channel}")
    print(f"  declared eps0 {a.epsilon0:g}, actual eps0 {a.actual_epsilon0:g}; {a.trials:,} trials")
    print(f"  test: {a.test}  (TPR >= {a.tpr_low:.4f}, FPR <= {a.fpr_up:.4g})")
    print(f"  epsilon lower bound ({lvl}): {_fmt(a.epsilon_lower)}")
    print(f"  central epsilon claimed:    {_fmt(a.epsilon_claimed)} at delta {a.delta:g}  [{a.bound}]")
    verdict = "REFUTED: the release leaks more than claimed" if a.violation else "not refuted"
    print(f"  claim: {verdict}   ({a.seconds:.3f} s)")
    return 0
