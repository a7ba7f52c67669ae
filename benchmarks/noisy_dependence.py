"""Bias of the dependences from Skellam-noised pair tables (docs/privacy.md, noisy counts).

For each epsilon (per phase, delta = 1e-6, replace-one), the central Skellam variance of the
accountant; five noise draws on Adult's exact pair tables; per repair (clip, project, debias)
the mean over pairs and draws of estimate - exact (bias) and of |estimate - exact|.

    python -m benchmarks.noisy_dependence [--parties N] [--draws 5]
"""

from __future__ import annotations

import argparse

import numpy as np

from mpc_rr.data import load_adult
from mpc_rr.estimation import (
    NOISY_TABLE_REPAIRS,
    dependence_matrix_from_tables,
    noisy_dependence_matrix,
)
from mpc_rr.mdrr._pair_cells import crosstabs
from mpc_rr.privacy import dependence_sensitivity, skellam_noise, skellam_variance


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parties", type=int, default=None, help="subsample (default: all 32,561)")
    ap.add_argument("--draws", type=int, default=5)
    args = ap.parse_args()
    data = load_adult()
    rng = np.random.default_rng(0)
    if args.parties is not None:
        data = data.subsample(args.parties, rng)
    tables = crosstabs(data.codes, data.schema.sizes)
    exact = dependence_matrix_from_tables(tables, data.schema)
    iu = np.triu_indices(len(data.schema), 1)
    sens = dependence_sensitivity(len(data.schema))
    print(
        f"parties {data.n}, L1 {sens.l1}, L2 {sens.l2:.2f}, mean exact dependence {exact[iu].mean():.3f}"
    )
    print(
        "epsilon variance | " + " | ".join(f"{r}: bias (mean |err|)" for r in NOISY_TABLE_REPAIRS)
    )
    for eps in (0.5, 1.0, 2.0, 4.0):
        v = skellam_variance(eps, 1e-6, sens.cells)
        errs: dict[str, list[np.ndarray]] = {r: [] for r in NOISY_TABLE_REPAIRS}
        for _ in range(args.draws):
            noisy = {k: t + skellam_noise(v, t.shape, rng) for k, t in tables.items()}
            for r in NOISY_TABLE_REPAIRS:
                errs[r].append(
                    (noisy_dependence_matrix(noisy, data.schema, data.n, v, r) - exact)[iu]
                )
        cols = [
            f"{np.mean(e):+.3f} ({np.mean(np.abs(e)):.3f})" for e in map(np.array, errs.values())
        ]
        print(f"{eps:<7} {v:8.0f} | " + " | ".join(cols))


if __name__ == "__main__":
    main()
