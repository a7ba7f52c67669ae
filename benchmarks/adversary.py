"""Adversary module, each side by side with a literal baseline in the same run.

Run: ``python -m benchmarks.adversary`` (or ``python -m benchmarks adversary``).
Medians of interleaved repeats; the machine is shared, read the ratios.

1. Epsilon audits: :func:`mpc_rr.adversary` (all trials as arrays) vs a
   literal per-trial loop (draw an input, randomize one record, guess,
   count), same mechanism and test, same number of trials; then 10^6
   vectorized trials alone against the 1-second target.
2. Linkability: :func:`mpc_rr.adversary.link` (scores per cell, exact
   class-collapsed transport) vs a naive attacker with the same model that
   scores every (group, report) pair in a Python double loop and solves the
   dense n x n assignment (``scipy.optimize.linear_sum_assignment``).
3. The RRBA client audited at its table: vectorized (``answers_from_uniforms``
   on all trials) vs a literal loop of ``client_answer`` calls; and the
   audit against the paper's figure over p and tables (10^6 trials).
4. Bayes inference of pipeline records: vectorized over parties and the
   block's joint domain vs a per-party Python loop (same posteriors).
5. The eavesdropper on real runs of every protocol, memory and TCP, and on
   the planted leaks.
6. Coalitions: success against C for SecAgg+ (complete and sparse graphs)
   and the full mesh, with the threshold each run declared; the broken
   variants (masks disabled, a party of degree 0).
7. The pipeline end to end, one-run audit at a larger collection.

Sections: ``--part audits,linkability,rrba,bayes,eavesdrop,inference,rrba-sizes,coalition,pipeline``
(``inference``: the plaintext eavesdropper's Bayes inference per mechanism and p;
``rrba-sizes``: what RRBA's answer sizes tell on Adult, memory and TLS).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.optimize import linear_sum_assignment

from benchmarks._timing import median_times
from mpc_rr.adversary import Observation, audit, bayes_inference, observe, release_pairs
from mpc_rr.adversary._channels import ChannelView
from mpc_rr.adversary._designs import structured_test
from mpc_rr.adversary._inference import dense_matrix
from mpc_rr.adversary._linkability import PairModel, attack_order, evaluate, link
from mpc_rr.adversary._rrba_audit import RRBAClientMechanism, smallest_cell_test, uniform_event_test
from mpc_rr.data import load_adult
from mpc_rr.mechanisms import (
    JointMechanism,
    LambdaRandomization,
    cluster_matrix,
    k_rr,
    keep_or_uniform,
)
from mpc_rr.rrba import client_answer


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
    from mpc_rr.adversary._linkability import Grouping

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


def literal_rrba_audit(m: RRBAClientMechanism, trials: int, rng: np.random.Generator) -> tuple[int, int]:
    """One ``client_answer`` call per trial (what the client role computes, one at a time)."""
    test = smallest_cell_test(m)
    guesses = correct = 0
    for _ in range(trials):
        j = int(rng.integers(2))
        y = client_answer(test.inputs[j], [(0,)], [m.table], m.sizes, m.p, rng)
        g = int(test.guess(y.reshape(1, 1))[0])
        if g >= 0:
            guesses += 1
            correct += g == j
    return guesses, correct


def bench_rrba(trials: int, repeat: int) -> None:
    print(f"\n3. RRBA client at its table, smallest-cell test, {trials:,} trials (median of {repeat})")
    m = RRBAClientMechanism(np.array([0.6, 0.3, 0.09, 0.01]), 0.3)
    test = smallest_cell_test(m)
    rng = np.random.default_rng(0)
    t = median_times(
        {"vec": lambda: audit(m, trials, rng, test=test), "lit": lambda: literal_rrba_audit(m, trials, rng)},
        repeat=repeat, warmup=1,
    )  # fmt: skip
    print(f"   vectorized {t['vec']:.4f} s, literal client_answer loop {t['lit']:.3f} s: "
          f"{t['lit'] / t['vec']:.0f}x")  # fmt: skip
    t6 = median_times({"v": lambda: audit(m, 10**6, rng, test=test)}, repeat=repeat, warmup=1)["v"]
    print(f"   10^6 trials: {t6:.3f} s")
    print("\n   audit (10^6 trials, 95 %) vs the paper's ln(1/(1-p)) and the true epsilon:")
    print(f"   {'table T':<26} {'p':>4} {'lower':>7} {'true':>7} {'paper':>7} {'uniform event':>14}")
    tables = {
        "uniform 2x2": [0.25] * 4,
        "(.6, .3, .09, .01)": [0.6, 0.3, 0.09, 0.01],
        "(.001, .499, .5)": [0.001, 0.499, 0.5],
    }
    for label, tab in tables.items():
        for p in (0.1, 0.3, 0.5, 0.7, 0.9):
            mm = RRBAClientMechanism(np.array(tab), p)
            g = np.random.default_rng(int(1000 * p) + len(label))
            r = audit(mm, 10**6, g, test=smallest_cell_test(mm))
            u = audit(mm, 10**6, g, test=uniform_event_test(mm, g))
            print(f"   {label:<26} {p:>4.1f} {r.epsilon_lower:>7.3f} {mm.epsilon:>7.3f} "
                  f"{mm.paper_epsilon:>7.3f} {u.epsilon_lower:>14.3f}")  # fmt: skip


def literal_bayes(obs: list[Observation], sizes: tuple[int, ...], truth: np.ndarray) -> float:
    """Per party: multiply its likelihood columns over the joint domain, marginalize, MAP per
    attribute (oracle prior) -- the same estimator as :func:`bayes_inference`, one party at a time."""
    import itertools

    n, m = truth.shape
    grid = list(itertools.product(*[range(s) for s in sizes]))
    flat = np.ravel_multi_index(tuple(truth.T), sizes)
    prior = np.bincount(flat, minlength=len(grid)) / n
    hits = 0
    for i in range(n):
        post = []
        for k, t in enumerate(grid):
            v = prior[k]
            for o in obs:
                osz = tuple(sizes[a] for a in o.attributes)
                ti = int(np.ravel_multi_index(tuple(t[a] for a in o.attributes), osz))
                zi = int(np.ravel_multi_index(tuple(o.codes[i]), osz))
                v *= o.matrix[ti, zi]
            post.append(v)
        for a in range(m):
            marg = [0.0] * sizes[a]
            for t, v in zip(grid, post, strict=True):
                marg[t[a]] += v
            hits += int(int(np.argmax(marg)) == truth[i, a])
    return hits / (n * m)


def bench_bayes(n: int, repeat: int) -> None:
    print(f"\n4. Bayes inference, {n:,} parties, 3 attributes (3, 4, 2), keep-or-uniform + a "
          f"cluster release (median of {repeat})")  # fmt: skip
    rng = np.random.default_rng(0)
    sizes = (3, 4, 2)
    truth = np.stack([rng.choice(3, n), rng.choice(4, n), rng.choice(2, n)], 1)
    obs = []
    for a, s in enumerate(sizes):
        mk = keep_or_uniform(s, 0.5)
        obs.append(Observation((a,), dense_matrix(mk), mk.perturb(truth[:, [a]], rng).reshape(n, 1)))
    cm = cluster_matrix(sizes, 3.0)
    obs.append(Observation((0, 1, 2), dense_matrix(cm), np.asarray(cm.perturb(truth, rng)).reshape(n, 3)))
    t = median_times(
        {"vec": lambda: bayes_inference(obs, sizes, truth, em_iterations=1),
         "lit": lambda: literal_bayes(obs, sizes, truth)},
        repeat=repeat, warmup=0,
    )  # fmt: skip
    a = bayes_inference(obs, sizes, truth).success
    b = literal_bayes(obs, sizes, truth)
    print(f"   vectorized {t['vec']:.4f} s, per-party loop {t['lit']:.3f} s: {t['lit'] / t['vec']:.0f}x;"
          f" accuracy {a:.4f} / {b:.4f}")  # fmt: skip


def bench_eavesdrop(parties: int, only: set[str] | None = None) -> None:
    from mpc_rr.workflows import observed_run
    from mpc_rr.workflows._attack_reports import eavesdrop_report
    from scenarios.workloads.networks import network_for

    print(f"\n5. eavesdropper on real runs, {parties} data parties, 16 cells (pipeline: Adult, p = 0.5)")
    print(f"   {'protocol':<18} {'transport':<9} {'census':<9} {'size succ/base (perm p)':<26} "
          f"{'timing succ/base (perm p)':<27} {'payloads: success / baseline':<30} run")  # fmt: skip
    cases = [(p, t, None) for p in ("plainsum", "full-mesh", "full-mesh-board", "secagg", "pipeline", "rrba")
             for t in ("memory", "tcp")]  # fmt: skip
    cases += [("rrba", "memory", "secure-tally")]
    cases += [("plainsum", "memory", "sparse-encoding"), ("plainsum", "tcp", "sparse-encoding"),
              ("secagg", "memory", "masks"), ("secagg", "memory", "isolated"),
              ("full-mesh", "tcp", "masks"), ("full-mesh", "memory", "clear-shares"),
              ("full-mesh-board", "memory", "clear-shares")]  # fmt: skip
    cases = [c for c in cases if only is None or c[0] in only]
    for proto, transport, planted in cases:
        t0 = time.perf_counter()
        n = parties if proto != "full-mesh" else min(parties, 60)
        secure = planted == "secure-tally"
        run = observed_run(proto, network=network_for(transport), parties=n, cells=16, seed=1, block=50,
                           planted=None if secure else planted, secure_tally=secure)  # fmt: skip
        rep = eavesdrop_report(run, np.random.default_rng(2), permutations=200)
        dt = time.perf_counter() - t0
        c = rep["content"]
        pay = "ciphertext" if c is None else (
            f"{c['success']:.3f} / {c['baseline']:.3f}" + (f" ({c['recovered']} recovered)" if "recovered" in c else "")
        )  # fmt: skip
        name = proto + (f" [{planted}]" if planted else "")
        sz, tm = rep["size"], rep["timing"]
        print(f"   {name:<18} {transport:<9} {'constant' if rep['size_census']['constant'] else 'varies':<9} "
              f"{sz['success']:.3f}/{sz['baseline']:.3f} ({sz['permutation_p']:.3f}){'':<7} "
              f"{tm['success']:.3f}/{tm['baseline']:.3f} ({tm['permutation_p']:.3f}){'':<8} "
              f"{pay:<30} {dt:.1f} s")  # fmt: skip


def bench_inference_sweep(parties: int) -> None:
    from mpc_rr.workflows import observed_run
    from mpc_rr.workflows._attack_reports import eavesdrop_report
    from scenarios.workloads.networks import network_for

    print(f"\n5b. plaintext eavesdropper, Bayes-optimal inference per mechanism and p "
          f"(pipeline: {parties:,} Adult parties, dependence rr; RRBA: {parties:,} Survey "
          f"clients, B = 250; both over the memory transport)")  # fmt: skip
    print(f"   {'mechanism':<22} {'p':>4} {'prior':>7} {'Bayes':>7} {'95% CI':>17} {'attacker':>9}"
          "   (RRBA attacker: the public table as prior)")  # fmt: skip
    for mech in ("cluster", "lambda", "optimized"):
        for p in (0.3, 0.5, 0.7, 0.9):
            run = observed_run("pipeline", network=network_for("memory"), parties=parties, seed=3, p=p, mechanism=mech)
            c = eavesdrop_report(run, np.random.default_rng(0), permutations=0)["content"]
            print(f"   {'pipeline ' + mech:<22} {p:>4.1f} {c['baseline']:>7.3f} {c['success']:>7.3f} "
                  f"[{c['ci'][0]:.3f}, {c['ci'][1]:.3f}] {c['attacker_mean']:>9.3f}")  # fmt: skip
    for p in (0.3, 0.5, 0.7, 0.9):
        run = observed_run("rrba", network=network_for("memory"), parties=parties, seed=3, p=p, block=250)
        c = eavesdrop_report(run, np.random.default_rng(0), permutations=0)["content"]
        print(f"   {'RRBA answers (k = 2)':<22} {p:>4.1f} {c['baseline']:>7.3f} {c['success']:>7.3f} "
              f"[{c['ci'][0]:.3f}, {c['ci'][1]:.3f}] {c['attacker_mean']:>9.3f}")  # fmt: skip


def bench_rrba_sizes(parties: int) -> None:
    from mpc_rr.adversary import size_leakage
    from mpc_rr.adversary._eavesdrop import size_census
    from mpc_rr.workflows import observed_run
    from scenarios.workloads.networks import network_for

    print(f"\n5c. RRBA answer sizes on Adult ({parties:,} clients, B = 200, p = 0.5): clients asked "
          "education x occupation (240 cells); secret: is their true cell >= 128?")  # fmt: skip
    for transport in ("memory", "tcp"):
        t0 = time.perf_counter()
        run = observed_run("rrba", network=network_for(transport), parties=parties, block=200, p=0.5, seed=15,
                           data="adult")  # fmt: skip
        asked = [i for i in run.data_parties if (1, 3) in run.roles[i].result.subsets]
        rec = run.records
        assert rec is not None
        big = {i: int(rec[i - 1, 1] * 15 + rec[i - 1, 3] >= 128) for i in asked}
        r = size_leakage(run.tap, big, np.random.default_rng(16), permutations=200)
        cen = size_census(run.tap, run.data_parties)
        print(f"   {transport:<7} census {list(cen.distinct)[:6]}; {len(asked)} asked: success "
              f"{r.success:.3f} [{r.ci[0]:.3f}, {r.ci[1]:.3f}] vs baseline {r.baseline:.3f}, "
              f"MI {r.mutual_information:.3f} bits, chi2 p {r.p_value:.1e}, permutation p "
              f"{r.permutation_p:.3f} ({time.perf_counter() - t0:.1f} s)")  # fmt: skip


def bench_coalition() -> None:
    from mpc_rr.adversary._coalitions import coalition_sweep, pool
    from mpc_rr.adversary._recovery import member_state
    from mpc_rr.core._views import observe
    from mpc_rr.workflows import observed_run
    from scenarios.workloads.networks import network_for

    print("\n6. coalitions (success, recovery rate and baseline against C; one-hot inputs, 16 cells)")
    settings = [
        ("secagg", 20, {}, 5, None),
        ("secagg", 100, {}, 1, None),
        # the defaults before the collusion bound: t sized for dropouts only
        ("secagg", 100, {"max_dropout": 1 / 3, "max_corrupt": 0.0}, 1, None),
        ("secagg", 100, {"degree": 14, "threshold": 6, "max_dropout": 0.05, "max_corrupt": 0.0}, 1, None),
        ("full-mesh", 12, {}, 5, None),
        ("secagg", 20, {}, 1, "masks"),
        ("secagg", 20, {}, 1, "isolated"),
        ("full-mesh", 12, {}, 1, "masks"),
    ]
    for proto, n, opts, repeats, planted in settings:
        t0 = time.perf_counter()
        per = []
        grid: list[int] = []
        for r in range(repeats):
            run = observed_run(proto, network=network_for("memory"), parties=n, cells=16, seed=r, secagg=opts, planted=planted)
            view = observe(run.tap, run.message_types)
            states = {i: member_state(run.roles[i]) for i in run.data_parties}
            if proto == "secagg":
                # the run's drawn graph, read after the run: a coalition that corrupts after the
                # draw (beyond the threat model), to show where the threshold lies
                cfg, graph = run.public["config"], run.roles[0].graph
                nb = {u: graph.of(u).tolist() for u in run.data_parties} if cfg.degree < n - 1 else None
                grid = list(range(0, min(n - 1, cfg.degree + 2) + 1))
                per.append(coalition_sweep(proto, view, states, run.cells, grid, config=cfg, neighbours=nb))
                bound = (f"t = {cfg.threshold} (k = {cfg.degree}, max_dropout {cfg.max_dropout:.3g}, "
                         f"max_corrupt {cfg.max_corrupt:.3g})")
            else:
                grid = list(range(1, n))
                per.append(coalition_sweep(proto, view, states, run.cells, grid, n=n, modulus=n + 1))
                bound = f"n - 1 = {n - 1}"
        res = [pool([p[k] for p in per]) for k in range(len(grid))]
        jump = [c for c, r in zip(grid, res, strict=True) if r.recovery_rate > 0]
        name = f"{proto} n={n}" + (f" [{planted}]" if planted else "") + (f" {opts}" if opts else "")
        print(f"   {name}: declared {bound}; first C recovering: {jump[0] if jump else 'none'}; "
              f"{repeats} run(s), {time.perf_counter() - t0:.1f} s")  # fmt: skip
        print("     C:        " + " ".join(f"{c:>5}" for c in grid))
        print("     success:  " + " ".join(f"{r.success:>5.2f}" for r in res))
        print("     recovered:" + " ".join(f"{r.recovery_rate:>5.2f}" for r in res))
        print("     baseline: " + " ".join(f"{r.baseline:>5.2f}" for r in res))


def bench_pipeline(parties: int) -> None:
    from mpc_rr.adversary import pipeline_audit
    from mpc_rr.adversary._broken import RawRecordParty

    print(f"\n7. pipeline end to end, one-run audit ({parties:,} canaries, real roles, harness)")
    for sizes, p, mech, planted in (((2, 2, 2), 0.3, "cluster", None), ((2, 2, 2), 0.3, "lambda", None),
                                    ((2, 2, 2), 0.5, "cluster", None), ((2, 3, 4), 0.3, "optimized", None),
                                    ((2, 2, 2), 0.3, "cluster", RawRecordParty)):  # fmt: skip
        t0 = time.perf_counter()
        r = pipeline_audit(sizes, parties, np.random.default_rng(1), p=p, mechanism=mech, planted=planted)
        tag = " [raw-record]" if planted else ""
        print(f"   sizes {sizes} p={p} {mech}{tag}: {r.guesses:,} guesses, lower {r.epsilon_lower:.3f}, "
              f"claimed {r.epsilon_claimed:.3f} (dep {r.epsilon_dependence:.3f} + rel "
              f"{r.epsilon_release:.3f}), clusters {[list(c) for c in r.clusters]}, "
              f"{'REFUTED' if r.violation else 'holds'}, {time.perf_counter() - t0:.1f} s")  # fmt: skip


PARTS = (
    "audits", "linkability", "rrba", "bayes", "eavesdrop", "inference", "rrba-sizes", "coalition",
    "pipeline",
)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.adversary")
    ap.add_argument("--quick", action="store_true", help="fewer trials / parties / repeats")
    ap.add_argument("--part", default=",".join(PARTS), help=f"comma-separated subset of {PARTS}")
    ap.add_argument("--protocols", default=None, help="eavesdrop: comma-separated protocols only")
    args = ap.parse_args(argv or [])
    parts = set(args.part.split(","))
    start = time.perf_counter()
    q = args.quick
    if "audits" in parts:
        bench_audits(5_000 if q else 20_000, 3 if q else 5)
    if "linkability" in parts:
        bench_linkability([60, 120] if q else [100, 200, 400], 1 if q else 3)
    if "rrba" in parts:
        bench_rrba(5_000 if q else 20_000, 3 if q else 5)
    if "bayes" in parts:
        bench_bayes(300 if q else 2_000, 1 if q else 3)
    if "eavesdrop" in parts:
        bench_eavesdrop(40 if q else 200, set(args.protocols.split(",")) if args.protocols else None)
    if "inference" in parts:
        bench_inference_sweep(300 if q else 2_000)
    if "rrba-sizes" in parts:
        bench_rrba_sizes(700 if q else 1_400)
    if "coalition" in parts:
        bench_coalition()
    if "pipeline" in parts:
        bench_pipeline(2_000 if q else 20_000)
    print(f"\n(total {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
