"""The privacy accountant's speed and agreement, and the curves of docs/privacy.md.

Side by side, each in a fresh process, alternating (noise hits both):

* ``ours``: :func:`mpc_rr.privacy.numerical_epsilon` (C binned past 192 values: an upper bound);
* ``exact``: the same divergence summed over *every* value of C in the window (the
  straightforward evaluation of FMT21's clone-reduction divergence; FMT's own reference code, which we do not run,
  is quoted at 38-230 s per point).

Figures: one point (eps0 = 4, n = 10^5, delta = 10^-6) and the curve n = 10^2..10^7 (31
points) for eps0 in 0.5, 1, 2, 4, 8; medians of ``--repeats`` (``--curve-repeats``) runs, the ratio.
``--plot DIR`` also writes ``privacy_curves.png`` (docs/img/privacy/).

    python -m benchmarks.privacy_accountant [--repeats 5] [--plot docs/img/privacy]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

EPS0 = (0.5, 1.0, 2.0, 4.0, 8.0)
NS = np.unique(np.geomspace(1e2, 1e7, 31).astype(np.int64))


def _side(side: str, what: str) -> dict[str, object]:
    from mpc_rr.privacy import numerical_epsilon

    pts = 10**9 if side == "exact" else 0  # every c of the window, or the binned default
    numerical_epsilon(1.0, 1000, 1e-6)  # warm the imports
    t0, c0 = time.perf_counter(), time.process_time()
    if what == "point":
        vals = [numerical_epsilon(4.0, 10**5, 1e-6, points=pts).central_epsilon]
    else:
        vals = [numerical_epsilon(e, int(n), 1e-6, points=pts).central_epsilon for e in EPS0 for n in NS]
    return {"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0, "values": vals}


def _fresh(side: str, what: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.privacy_accountant", "--side", side, "--what", what],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def plot(folder: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from mpc_rr.privacy import closed_form_epsilon, numerical_epsilon

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    for e0 in (1.0, 2.0, 4.0, 8.0):
        num = [numerical_epsilon(e0, int(n), 1e-6).central_epsilon for n in NS]
        krr = [numerical_epsilon(e0, int(n), 1e-6, k=2).central_epsilon for n in NS]
        cf = [closed_form_epsilon(e0, int(n), 1e-6).central_epsilon for n in NS]
        (line,) = axes[0].loglog(NS, num, lw=2, label=f"eps0 = {e0:g}, numerical (clone reduction)")
        axes[0].loglog(NS, cf, "--", color=line.get_color(), lw=1, label=f"eps0 = {e0:g}, closed form (Thm 3.1)")
        axes[1].loglog(NS, num, lw=2, color=line.get_color(), label=f"eps0 = {e0:g}, any eps0-LDP")
        axes[1].loglog(NS, krr, ":", lw=2, color=line.get_color(), label=f"eps0 = {e0:g}, k-RR (any k)")
    axes[0].set_title("central epsilon of n shuffled reports (delta = 1e-6): FMT21 bounds", fontsize=10)
    axes[1].set_title("generic eps0-LDP vs k-RR clone weight 2/(e^eps0 + 1)", fontsize=10)
    for ax in axes:
        ax.set_xlabel("parties n")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_ylabel("central epsilon (a direct channel: eps0 itself)")
    fig.tight_layout()
    folder.mkdir(parents=True, exist_ok=True)
    png = folder / "privacy_curves.png"
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--side", choices=("ours", "exact"), default=None, help=argparse.SUPPRESS)
    ap.add_argument("--what", choices=("point", "curve"), default="point", help=argparse.SUPPRESS)
    ap.add_argument("--repeats", type=int, default=5, help="fresh-process pairs for the point")
    ap.add_argument("--curve-repeats", type=int, default=1, help="... for the 155-point curve")
    ap.add_argument("--plot", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.side is not None:
        print(json.dumps(_side(args.side, args.what)))
        return 0
    for what in ("point", "curve"):
        runs: dict[str, list[dict[str, object]]] = {"ours": [], "exact": []}
        for _ in range(args.repeats if what == "point" else args.curve_repeats):
            for side in runs:
                runs[side].append(_fresh(side, what))
        med = {s: statistics.median(float(r["seconds"]) for r in v) for s, v in runs.items()}  # type: ignore[arg-type]
        cpu = {s: statistics.median(float(r["cpu"]) for r in v) for s, v in runs.items()}  # type: ignore[arg-type]
        ours_v = np.asarray(runs["ours"][0]["values"])
        exact_v = np.asarray(runs["exact"][0]["values"])
        n_pts = len(ours_v)
        print(f"{what} ({n_pts} points): ours {med['ours']:.4f} s, exact {med['exact']:.4f} s, "
              f"ratio exact/ours {med['exact'] / med['ours']:.1f}x; per point ours "
              f"{1000 * med['ours'] / n_pts:.2f} ms (CPU {1000 * cpu['ours'] / n_pts:.2f} ms, exact CPU "
              f"{1000 * cpu['exact'] / n_pts:.2f} ms); max |ours - exact| "
              f"{np.abs(ours_v - exact_v).max():.2e} (ours >= exact: {bool((ours_v >= exact_v - 1e-6).all())})")  # fmt: skip
    if args.plot is not None:
        print(f"plot: {plot(args.plot)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
