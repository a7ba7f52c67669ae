"""``mpc-rr audit``: empirical epsilon of a mechanism, black box, next to its true and claimed epsilon.

Examples::

    mpc-rr audit --mechanism krr --k 2 --epsilon 1 --trials 1000000
    mpc-rr audit --mechanism keep-uniform --size 2 --p 0.5 --trials 100000   # paper's formula refuted
    mpc-rr audit --mechanism optimized --sizes 5,5,5 --eps 2,3,4 --method heuristic --json
    mpc-rr audit --mechanism krr --epsilon 2 --claimed-epsilon 1 --black-box       # planted bug
    mpc-rr audit --mechanism rrba --p 0.5 --data survey --clients 2500 --block 250  # the table sent
    mpc-rr audit --mechanism rrba --p 0.3 --table 0.6,0.3,0.09,0.01
    mpc-rr audit --mechanism pipeline --sizes 2,2,2 --p 0.3 --parties 5000

Mechanisms are built by the functions in :data:`MECHANISMS` (name -> builder).
``rrba`` is the RRBA client at the table it was sent, audited on the smallest
cell of the table (the client's answer function, the one the RRBA client role
calls; tested equal to the role's answers); ``pipeline`` is every party's output end to end (dependence
phase + release, composed), audited with the one-run design over one run of
the real pipeline roles (``--parties`` canaries), not through :data:`MECHANISMS`.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from scenarios.cli.commands.mechanism import _float_list, _int_list
from scenarios.cli.options import HelpFormatter

if TYPE_CHECKING:  # the library is imported when the command runs, not at start-up
    import numpy as np

    from mpc_rr.adversary import AuditResult, GuessingTest, PipelineAuditResult
    from mpc_rr.mechanisms import JointMechanism


@dataclass(frozen=True)
class Built:
    """A mechanism to audit and the epsilon its source claims (and where the claim comes from).

    ``test(rng)``: the distinguishing test, when the structured default does
    not apply; ``compare(rng)``: a naive test whose bound is shown next to it.
    """

    mechanism: JointMechanism
    claimed: float
    claim_source: str
    label: str
    test: Callable[[np.random.Generator], GuessingTest] | None = None
    compare: Callable[[np.random.Generator], GuessingTest] | None = None
    compare_label: str = ""
    facts: tuple[tuple[str, str], ...] = ()


def _krr(a: argparse.Namespace) -> Built:
    from mpc_rr.mechanisms import k_rr

    m = k_rr(a.k, a.epsilon)
    return Built(m, a.epsilon, "requested epsilon", f"k-RR, k = {a.k}, epsilon = {a.epsilon:g}")


def _keep_uniform(a: argparse.Namespace) -> Built:
    from mpc_rr.mechanisms import keep_or_uniform, paper_epsilon

    m = keep_or_uniform(a.size, a.p)
    return Built(
        m, paper_epsilon(a.size, a.p), "paper Sec. 6.3.1: |ln(p|A|/(1-p))|",
        f"keep-or-uniform, |A| = {a.size}, p = {a.p:g}",
    )


def _cluster(a: argparse.Namespace) -> Built:
    from mpc_rr.mechanisms import cluster_matrix, keep_or_uniform

    eps_c = math.fsum(keep_or_uniform(s, a.p).epsilon for s in a.sizes)
    m = cluster_matrix(a.sizes, eps_c)
    return Built(
        m, eps_c, "Sec. 6.3.2: sum of the attributes' epsilons",
        f"cluster matrix, sizes {tuple(a.sizes)}, p = {a.p:g} (epsilon_C = {eps_c:.4f})",
    )


def _lambda(a: argparse.Namespace) -> Built:
    from mpc_rr.mechanisms import LambdaRandomization

    m = LambdaRandomization(a.sizes, a.lambdas)
    return Built(
        m, m.epsilon, "Ruiz: sum of ln(1 + λn/(1-λ))",
        f"λ-randomization, sizes {tuple(a.sizes)}, λ = {tuple(a.lambdas)}",
    )


def _optimized(a: argparse.Namespace) -> Built:
    from mpc_rr.mechanisms.optimized import optimize

    m = optimize(a.sizes, a.eps, method=a.method, on_mismatch="reorder")
    return Built(
        m, m.overall_epsilon, f"solver ({m.method}) overall epsilon",
        f"privacy-optimized RR ({m.method}), sizes {tuple(a.sizes)}, eps {tuple(a.eps)}",
    )


def rrba_sent_table(
    data: str, clients: int, block: int, p: float, seed: int, subset: int | None
) -> tuple[np.ndarray, str]:
    """The table an RRBA collection sends to its next block, and where it came from.

    Runs ``clients`` records of ``data`` block by block (pooled estimator,
    clip repair, no floor: the defaults of ``mpc-rr rrba``) and returns the
    table of ``subset`` that block ``clients / block + 1`` would be sent
    (default: the table with the smallest cell -- its clients leak most).
    """
    import numpy as np

    from mpc_rr.core import UsageError
    from mpc_rr.rrba import run_rrba
    from scenarios.workloads.rrba_data import load_data

    rng = np.random.default_rng(seed)
    ds, source = load_data(data, clients, rng)
    run = run_rrba(ds, p=p, block=block, seed=seed)
    tables = [np.asarray(t, dtype=float).reshape(-1) for t in run.estimates]
    s = int(np.argmin([t.min() for t in tables])) if subset is None else subset
    if not 0 <= s < len(tables):
        raise UsageError(f"--subset must be in 0..{len(tables) - 1}, got {subset}")
    names = "x".join(ds.schema.names[a] for a in run.cover.subsets[s])
    where = (
        f"table {s} ({names}) sent to block {run.blocks + 1} after {run.clients:,} clients of "
        f"{source}, B = {block}"
    )
    return tables[s] / tables[s].sum(), where


def _rrba(a: argparse.Namespace) -> Built:
    import numpy as np

    from mpc_rr.adversary import RRBAClientMechanism, smallest_cell_test, uniform_event_test

    if a.table is not None:
        table, where = np.asarray(a.table, dtype=float), "table given with --table"
    else:
        table, where = rrba_sent_table(a.data, a.clients, a.block, a.p, a.seed, a.subset)
    m = RRBAClientMechanism(table, a.p)
    t_min = float(m.table.min())
    return Built(
        m, m.paper_epsilon, "paper Theorem 4.1 / Eq. 6: ln(1/(1-p))",
        f"RRBA client, p = {a.p:g}, {m.table.size} cells, smallest T = {t_min:.4g}",
        test=lambda rng: smallest_cell_test(m),
        compare=lambda rng: uniform_event_test(m, rng),
        compare_label="event drawn uniformly among the cells",
        facts=(("table", where), ("T", ", ".join(f"{v:.4g}" for v in m.table[:16]))),
    )  # fmt: skip


#: name -> builder (``pipeline`` runs the real roles instead: :func:`_run_pipeline`).
MECHANISMS: dict[str, Callable[[argparse.Namespace], Built]] = {
    "krr": _krr,
    "keep-uniform": _keep_uniform,
    "cluster": _cluster,
    "lambda": _lambda,
    "optimized": _optimized,
    "rrba": _rrba,
}
CHOICES = (*MECHANISMS, "pipeline")


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
    p.add_argument("--trials", type=int, default=1_000_000, help="mechanism runs (default 10^6)")
    p.add_argument("--confidence", type=float, default=0.95, help="1 - alpha (default 0.95)")
    p.add_argument("--seed", type=int, default=0, help="seed of the trials")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--out", type=Path, default=Path("results"), help="folder for the PNG")
    p.add_argument("--no-plot", action="store_true", help="skip the curve and its PNG")
    p.add_argument("--black-box", action="store_true", help="search inputs/outputs from a pilot run")
    p.add_argument("--one-run", action="store_true", help="also run the one-run audit (Steinke et al.)")
    p.add_argument("--claimed-epsilon", type=float, default=None, help="check this figure instead")
    g = p.add_argument_group("mechanism options")
    g.add_argument("--k", type=int, default=2, help="krr: domain size")
    g.add_argument("--epsilon", type=float, default=1.0, help="krr: epsilon")
    g.add_argument("--size", type=int, default=2, help="keep-uniform: |A|")
    g.add_argument("--p", type=float, default=None,
                   help="keep probability: keep-uniform, cluster, rrba (default 0.5), pipeline (0.3)")  # fmt: skip
    g.add_argument("--sizes", type=_int_list, default=None, help="cluster/lambda/optimized sizes")
    g.add_argument("--lambdas", type=_float_list, default=[0.6, 0.7, 0.4], help="lambda: λ's")
    g.add_argument("--eps", type=_float_list, default=[2.0, 3.0, 4.0], help="optimized: epsilons")
    g.add_argument("--method", choices=("lp", "heuristic"), default="lp", help="optimized: solver")
    g.add_argument("--table", type=_float_list, default=None, help="rrba: the table T (else --data)")
    g.add_argument("--data", default="survey", help="rrba: records whose collection sends T (survey, ...)")
    g.add_argument("--clients", type=int, default=2500, help="rrba: clients answered before T is sent")
    g.add_argument("--block", type=int, default=250, help="rrba: clients per block")
    g.add_argument("--subset", type=int, default=None, help="rrba: which table (default: smallest cell)")
    g.add_argument("--parties", type=int, default=5000, help="pipeline: canary parties of the one run")
    g.add_argument("--release", choices=("cluster", "lambda", "optimized"), default="cluster",
                   help="pipeline: release mechanism")  # fmt: skip
    p.set_defaults(func=_run)


def _fmt(x: float | None) -> str:
    if x is None:
        return "n/a"
    return "inf" if math.isinf(x) else f"{x:.4f}"


def _curve_points(trials: int) -> list[int]:
    import numpy as np

    pts = [int(v) for v in np.unique(np.geomspace(100, trials, num=7).round()) if v >= 100]
    return sorted(set(pts) | {trials}) if trials >= 100 else [trials]


def _run(args: argparse.Namespace) -> int:
    import numpy as np

    from mpc_rr.adversary import (
        AuditResult,
        audit,
        ldp_auditor_audit,
        one_run_audit,
        structured_test,
    )

    if args.p is None:
        args.p = 0.3 if args.mechanism == "pipeline" else 0.5
    if args.mechanism == "pipeline":
        return _run_pipeline(args)
    if args.sizes is None:
        args.sizes = [9, 16] if args.mechanism == "cluster" else [5, 5, 5]
    built = MECHANISMS[args.mechanism](args)
    claimed = built.claimed if args.claimed_epsilon is None else args.claimed_epsilon
    source = built.claim_source if args.claimed_epsilon is None else "--claimed-epsilon"
    rng = np.random.default_rng(args.seed)
    mech = built.mechanism
    given = built.test(rng) if built.test is not None and not args.black_box else None
    res = audit(
        mech, args.trials, rng, confidence=args.confidence, claimed=claimed,
        black_box=args.black_box, test=given,
    )
    if args.black_box:  # the auditor did not use it, but the report may show it
        res = AuditResult(**{**res.__dict__, "epsilon_true": float(mech.epsilon)})
    out: dict[str, object] = res.to_dict() | {"label": built.label, "claim_source": source}
    out.update({k: v for k, v in built.facts})
    naive = None
    if built.compare is not None:
        naive = audit(
            mech, args.trials, rng, confidence=args.confidence, claimed=claimed,
            test=built.compare(rng),
        )
        out["naive"] = naive.to_dict() | {"design": built.compare_label}
    curve: list[dict[str, float]] = []
    png = None
    if not args.no_plot:
        test = given if given is not None else structured_test(mech)
        for n in _curve_points(args.trials):
            r = audit(mech, n, rng, confidence=args.confidence, test=test)
            theirs = ldp_auditor_audit(  # same runs, same confidence: alpha/2 = 1 - confidence
                mech, max(n // 2, 1), rng, test=test, alpha=2 * (1 - args.confidence)
            )
            curve.append({"trials": n, "epsilon_lower": r.epsilon_lower, "ldp_auditor": max(theirs, 0.0)})
        png = _plot(built.label, curve, res, claimed, source, args.out)
        out["curve"] = curve
        out["plot"] = str(png)
    if args.one_run:
        one = one_run_audit(
            mech, args.trials, rng, confidence=args.confidence, claimed=claimed, test=given
        )
        out["one_run"] = one.to_dict()
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    lvl = f"{100 * args.confidence:g}%"
    print(f"audit of {built.label}")
    for k, v in built.facts:
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


def _plot(
    label: str, curve: list[dict[str, float]], res: AuditResult, claimed: float, source: str,
    out: Path,
) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    png = out / "audit.png"
    x = [c["trials"] for c in curve]
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    true = res.epsilon_true
    if true is not None and math.isfinite(true):
        ax.axhline(true, color="black", lw=1.6, label=f"true epsilon {true:.3f}")
    ax.axhline(claimed, color="tab:red", lw=1.4, ls="--", label=f"claimed {claimed:.3f} ({source})")
    ax.plot(x, [c["epsilon_lower"] for c in curve], "o-", color="tab:blue",
            label=f"our lower bound ({100 * res.confidence:g}%)")
    ax.plot(x, [c["ldp_auditor"] for c in curve], "s:", color="tab:gray",
            label="LDP-Auditor formula, same runs and confidence")
    ax.set_xscale("log")
    ax.set_xlabel("mechanism runs (trials)")
    ax.set_ylabel("epsilon (ln of a probability ratio)")
    top = max([claimed, true or 0.0] + [c["epsilon_lower"] for c in curve])
    ax.set_ylim(0, 1.15 * top + 1e-9)
    ax.set_title(f"Empirical epsilon: {label}", fontsize=10)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="center right")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png


def _run_pipeline(args: argparse.Namespace) -> int:
    """``--mechanism pipeline``: one-run audit of the real pipeline roles (dependence rr + release)."""
    import numpy as np

    from mpc_rr.adversary import pipeline_audit
    from mpc_rr.core import UsageError

    if args.parties < 2:
        raise UsageError(f"--parties must be an integer >= 2, got {args.parties}")
    sizes = args.sizes if args.sizes is not None else [2, 2, 2]
    rng = np.random.default_rng(args.seed)
    res = pipeline_audit(
        sizes, args.parties, rng, p=args.p, mechanism=args.release, confidence=args.confidence
    )
    claimed = res.epsilon_claimed if args.claimed_epsilon is None else args.claimed_epsilon
    source = "the pipeline's accounting (dependence + release)" if args.claimed_epsilon is None else "--claimed-epsilon"
    label = (
        f"pipeline per-party output (dependence rr + {args.release} release), sizes "
        f"{tuple(res.sizes)}, p = {args.p:g}"
    )
    out: dict[str, object] = res.to_dict() | {
        "label": label, "claim_source": source, "epsilon_claimed": claimed,
        "violation": res.epsilon_lower > claimed, "design": "one run (Steinke et al. 2023)",
    }  # fmt: skip
    curve: list[dict[str, float]] = []
    png = None
    if not args.no_plot:
        pts = sorted({int(v) for v in np.geomspace(min(250, args.parties), args.parties, 4).round()})
        for n in pts:
            r = res if n == args.parties else pipeline_audit(
                sizes, n, rng, p=args.p, mechanism=args.release, confidence=args.confidence
            )
            curve.append({"trials": n, "epsilon_lower": r.epsilon_lower, "guesses": r.guesses})
        png = _plot_pipeline(label, curve, res, claimed, source, args.out)
        out["curve"] = curve
        out["plot"] = str(png)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    lvl = f"{100 * args.confidence:g}%"
    print(f"audit of the {label}")
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


def _plot_pipeline(
    label: str, curve: list[dict[str, float]], res: PipelineAuditResult, claimed: float,
    source: str, out: Path,
) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    png = out / "audit.png"
    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    if res.epsilon_true is not None:
        ax.axhline(res.epsilon_true, color="black", lw=1.6, label=f"true epsilon {res.epsilon_true:.3f}")
    ax.axhline(claimed, color="tab:red", lw=1.4, ls="--", label=f"claimed {claimed:.3f} ({source})")
    ax.plot([c["trials"] for c in curve], [c["epsilon_lower"] for c in curve], "o-",
            color="tab:blue", label=f"one-run lower bound ({100 * res.confidence:g}%)")  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlabel("canary parties in the one run")
    ax.set_ylabel("epsilon")
    top = max([claimed, res.epsilon_true or 0.0] + [c["epsilon_lower"] for c in curve])
    ax.set_ylim(0, 1.15 * top + 1e-9)
    ax.set_title(f"Empirical epsilon: {label}", fontsize=9)
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png
