"""``mpc-rr audit``: empirical epsilon of a mechanism, black box, next to its true and claimed epsilon.

Examples::

    mpc-rr audit --mechanism krr --k 2 --epsilon 1 --trials 1000000
    mpc-rr audit --mechanism keep-uniform --size 2 --p 0.5 --trials 100000   # paper's formula refuted
    mpc-rr audit --mechanism optimized --sizes 5,5,5 --eps 2,3,4 --method heuristic --json
    mpc-rr audit --mechanism krr --epsilon 2 --claimed-epsilon 1 --black-box       # planted bug

Mechanisms are built by the functions in :data:`MECHANISMS` (name -> builder);
phase 2 adds ``rrba`` (the client at the table it was sent) and ``pipeline``
(the per-party output end to end, audited with the one-run audit over the
whole collection) there.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from scenarios.commands import HelpFormatter
from scenarios.commands.mechanism import _float_list, _int_list

if TYPE_CHECKING:  # the library is imported when the command runs, not at start-up
    from mpc_rr.adversary.audit import AuditResult
    from mpc_rr.joint import JointMechanism


@dataclass(frozen=True)
class Built:
    """A mechanism to audit and the epsilon its source claims (and where the claim comes from)."""

    mechanism: JointMechanism
    claimed: float
    claim_source: str
    label: str


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
    from mpc_rr.lambda_rr import LambdaRandomization

    m = LambdaRandomization(a.sizes, a.lambdas)
    return Built(
        m, m.epsilon, "Ruiz: sum of ln(1 + λn/(1-λ))",
        f"λ-randomization, sizes {tuple(a.sizes)}, λ = {tuple(a.lambdas)}",
    )


def _optimized(a: argparse.Namespace) -> Built:
    from mpc_rr.optimized_rr import optimize

    m = optimize(a.sizes, a.eps, method=a.method, on_mismatch="reorder")
    return Built(
        m, m.overall_epsilon, f"solver ({m.method}) overall epsilon",
        f"privacy-optimized RR ({m.method}), sizes {tuple(a.sizes)}, eps {tuple(a.eps)}",
    )


#: name -> builder; phase 2 adds "rrba" and "pipeline" here.
MECHANISMS: dict[str, Callable[[argparse.Namespace], Built]] = {
    "krr": _krr,
    "keep-uniform": _keep_uniform,
    "cluster": _cluster,
    "lambda": _lambda,
    "optimized": _optimized,
}


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
    p.add_argument("--mechanism", choices=tuple(MECHANISMS), required=True, help="the mechanism to audit")
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
    g.add_argument("--p", type=float, default=0.5, help="keep-uniform, cluster: keep probability")
    g.add_argument("--sizes", type=_int_list, default=None, help="cluster/lambda/optimized sizes")
    g.add_argument("--lambdas", type=_float_list, default=[0.6, 0.7, 0.4], help="lambda: λ's")
    g.add_argument("--eps", type=_float_list, default=[2.0, 3.0, 4.0], help="optimized: epsilons")
    g.add_argument("--method", choices=("lp", "heuristic"), default="lp", help="optimized: solver")
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

    from mpc_rr.adversary import audit, one_run_audit, structured_test
    from mpc_rr.adversary.audit import AuditResult, ldp_auditor_audit

    if args.sizes is None:
        args.sizes = [9, 16] if args.mechanism == "cluster" else [5, 5, 5]
    built = MECHANISMS[args.mechanism](args)
    claimed = built.claimed if args.claimed_epsilon is None else args.claimed_epsilon
    source = built.claim_source if args.claimed_epsilon is None else "--claimed-epsilon"
    rng = np.random.default_rng(args.seed)
    mech = built.mechanism
    res = audit(
        mech, args.trials, rng, confidence=args.confidence, claimed=claimed,
        black_box=args.black_box,
    )
    if args.black_box:  # the auditor did not use it, but the report may show it
        res = AuditResult(**{**res.__dict__, "epsilon_true": float(mech.epsilon)})
    out: dict[str, object] = res.to_dict() | {"label": built.label, "claim_source": source}
    curve: list[dict[str, float]] = []
    png = None
    if not args.no_plot:
        test = structured_test(mech)
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
        one = one_run_audit(mech, args.trials, rng, confidence=args.confidence, claimed=claimed)
        out["one_run"] = one.to_dict()
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    lvl = f"{100 * args.confidence:g}%"
    print(f"audit of {built.label}")
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
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png
