"""Adversary module, each side by side with a literal baseline in the same run.

Run: ``python -m benchmarks.adversary`` (or ``python -m benchmarks adversary``).
Medians of interleaved repeats; the machine is shared, read the ratios.

1. Epsilon audits: :func:`mpc_rr.adversary.audit` (all trials as arrays) vs a
   literal per-trial loop (draw an input, randomize one record, guess,
   count), same mechanism and test, same number of trials; then 10^6
   vectorized trials alone against the 1-second target.
2. Linkability: :func:`mpc_rr.adversary.link` (scores per cell, exact
   class-collapsed transport) vs a naive attacker with the same model that
   scores every (group, report) pair in a Python double loop and solves the
   dense n x n assignment (``scipy.optimize.linear_sum_assignment``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.optimize import linear_sum_assignment

from benchmarks._timing import median_times
from mpc_rr.adversary import audit, link, observe, release_pairs, structured_test
from mpc_rr.adversary.linkability import ChannelView, PairModel, attack_order, evaluate
from mpc_rr.datasets import load_adult
from mpc_rr.joint import JointMechanism
from mpc_rr.lambda_rr import LambdaRandomization
from mpc_rr.mechanisms import cluster_matrix, k_rr, keep_or_uniform


def literal_audit(mech: JointMechanism, trials: int, rng: np.random.Generator) -> tuple[int, int]:
    """One mechanism call per trial, as a straightforward auditor would write it."""
    test = structured_test(mech)
    guesses = correct = 0
    for _ in range(trials):
        j = int(rng.integers(test.k))
        out = mech.perturb(test.inputs[j : j + 1], rng)
        g = int(test.guess(out)[0])
        if g >= 0:
            guesses += 1
            correct += g == j
    return guesses, correct


def naive_link(view: ChannelView, mechanisms: list[JointMechanism]) -> float:
    """The same attack with a Python loop over pairs of (group, report) and a dense assignment.

    Returns the mean log-likelihood of the final grouping (to compare with the fast one).
    """
    assert view.elements is not None
    n, sizes, pairs = view.parties, view.sizes, view.pairs
    model = PairModel.fit(view, mechanisms)
    order = attack_order(sizes)
    ell = [np.zeros((n, s)) for s in sizes]
    held = np.zeros((n, len(pairs)), np.int64)
    total = 0.0

    def add(t: int) -> None:
        i, j = pairs[t]
        ell[i] += model.evidence_i[t][:, held[:, t]].T
        ell[j] += model.evidence_j[t][:, held[:, t]].T

    held[:, order[0]] = view.elements[order[0]]
    add(order[0])
    for t in order[1:]:
        i, j = pairs[t]
        cost = np.empty((n, n))
        for g in range(n):
            logq = model.log_prior[t] + ell[i][g][:, None] + ell[j][g][None, :]
            q = np.exp(logq - logq.max()).ravel()
            q /= q.sum()
            for r in range(n):
                cost[g, r] = np.log(q @ model.matrices[t][:, view.elements[t][r]] + 1e-300)
        rows, cols = linear_sum_assignment(cost, maximize=True)
        held[rows, t] = view.elements[t][cols]
        total += float(cost[rows, cols].sum())
        add(t)
    return total / n


def bench_audits(trials: int, repeat: int) -> None:
    print(f"\n1. epsilon audits, {trials:,} trials each (median of {repeat})")
    print(f"{'mechanism':<34} {'vectorized':>11} {'literal loop':>13} {'ratio':>8}")
    mechs = {
        "k-RR k=2 eps=1": k_rr(2, 1.0),
        "keep-or-uniform |A|=9 p=0.5": keep_or_uniform(9, 0.5),
        "cluster (9,16) eps_C=3": cluster_matrix((9, 16), 3.0),
        "lambda (5,5,5)": LambdaRandomization((5, 5, 5), (0.6, 0.7, 0.4)),
    }
    for name, mech in mechs.items():
        rng = np.random.default_rng(0)
        t = median_times(
            {
                "vec": lambda m=mech, g=rng: audit(m, trials, g),
                "lit": lambda m=mech, g=rng: literal_audit(m, trials, g),
            },
            repeat=repeat,
            warmup=1,
        )
        print(f"{name:<34} {t['vec']:>10.4f}s {t['lit']:>12.3f}s {t['lit'] / t['vec']:>7.0f}x")
    print("\n   10^6 trials, vectorized (target < 1 s):")
    for name, mech in mechs.items():
        rng = np.random.default_rng(1)
        t = median_times({"vec": lambda m=mech, g=rng: audit(m, 10**6, g)}, repeat=repeat, warmup=1)
        res = audit(mech, 10**6, rng)
        print(
            f"   {name:<34} {t['vec']:.3f} s   epsilon >= {res.epsilon_lower:.4f} "
            f"(true {res.epsilon_true:.4f})"
        )


def bench_linkability(sizes: list[int], repeat: int) -> None:
    data = load_adult()
    print(f"\n2. linkability, Adult, p = 0.7, anonymous channel (median of {repeat})")
    print(
        f"{'parties':>8} {'vectorized':>11} {'naive loops+LSA':>16} {'ratio':>8}"
        "   mean log-lik fast / naive (both exact per step; ties differ)"
    )
    for n in sizes:
        rng = np.random.default_rng(n)
        codes = data.codes[rng.choice(data.n, size=n, replace=False)]
        rel = release_pairs(codes, data.schema.sizes, lambda s: keep_or_uniform(s, 0.7), rng)
        view, owners = observe(rel, "anonymous", rng)
        mechs = list(rel.mechanisms)
        link(view, mechs, np.random.default_rng(0))  # warm up (imports POT once)
        t = median_times(
            {
                "vec": lambda v=view, m=mechs: link(v, m, np.random.default_rng(0)),
                "naive": lambda v=view, m=mechs: naive_link(v, m),
            },
            repeat=repeat,
            warmup=0,
        )
        g = link(view, mechs, np.random.default_rng(0))
        fast_ll = _loglik(view, g)
        print(
            f"{n:>8} {t['vec']:>10.3f}s {t['naive']:>15.2f}s {t['naive'] / t['vec']:>7.0f}x"
            f"   {fast_ll:.3f} / {naive_link(view, mechs):.3f}"
            f"   (success {evaluate(rel, owners, g).success:.3f})"
        )


def _loglik(view: ChannelView, g: object) -> float:
    """Mean per-party sum of the step scores of a fast grouping, recomputed the naive way."""
    from mpc_rr.adversary.linkability import Grouping

    assert isinstance(g, Grouping)
    model, pairs, n = g.model, view.pairs, view.parties
    ell = [np.zeros((n, s)) for s in view.sizes]
    total = 0.0
    for k, t in enumerate(g.order):
        i, j = pairs[t]
        if k:
            logq = (model.log_prior[t][None] + ell[i][:, :, None] + ell[j][:, None, :]).reshape(n, -1)
            q = np.exp(logq - logq.max(axis=1, keepdims=True))
            q /= q.sum(axis=1, keepdims=True)
            lik = (q * model.matrices[t][:, g.values[:, t]].T).sum(axis=1)
            total += float(np.log(lik + 1e-300).sum())
        ell[i] += model.evidence_i[t][:, g.values[:, t]].T
        ell[j] += model.evidence_j[t][:, g.values[:, t]].T
    return total / n


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.adversary")
    ap.add_argument("--quick", action="store_true", help="fewer trials / parties / repeats")
    args = ap.parse_args(argv or [])
    start = time.perf_counter()
    bench_audits(5_000 if args.quick else 20_000, 3 if args.quick else 5)
    bench_linkability([60, 120] if args.quick else [100, 200, 400], 1 if args.quick else 3)
    print(f"\n(total {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
