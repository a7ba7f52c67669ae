"""The files a run leaves behind: ``results.json``, its CSV, and its figures (drawn by
:mod:`scenarios.figures`).

The workflows (:mod:`mpc_rr.workflows`) return typed reports; writing them is
the command line's job, here.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

__all__ = ["write_outputs"]


def write_outputs(result: dict[str, Any], out: Path) -> list[Path]:
    """``results.json``, ``relative_error.csv``, ``relative_error.png`` and ``privacy.png`` in ``out``."""
    from scenarios.figures.privacy import write_privacy_plot
    from scenarios.figures.run import plot_relative_error

    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "results.json", out / "relative_error.csv", out / "relative_error.png"]
    paths[0].write_text(json.dumps(result, indent=1))
    with paths[1].open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["method", "sigma", "median_relative_error"])
        for m, by in result["relative_error"].items():
            for s, v in by.items():
                w.writerow([m, s, f"{v:.5f}"])
    plot_relative_error(result, paths[2])
    png = write_privacy_plot(result, out, result["dataset"])
    return paths + ([png] if png is not None else [])
