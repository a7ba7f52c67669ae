"""Exact bivariate counts through a secure sum (Domingo-Ferrer & Soria-Comas, Sec. 4.2).

Each party one-hot encodes its record over all cells of all attribute pairs
(:class:`~mpc_rr.pair_cells.PairLayout`; Adult: 1,582 cells), the parties run
one secure sum over those vectors, and the aggregate splits into every
bivariate contingency table.  Dependences (Cramér's V / |Pearson r|,
Expressions 8-9) then come from :mod:`mpc_rr.dependence`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mpc_rr.dependence import dependence_matrix_from_tables
from mpc_rr.errors import ProtocolAbort
from mpc_rr.pair_cells import PairLayout
from mpc_rr.schema import Schema
from mpc_rr.secure_sum.simulate import Protocol, SumReport, run_secure_sum

__all__ = ["BivariateCounts", "exact_bivariate_counts"]


@dataclass(frozen=True)
class BivariateCounts:
    """Tables of every attribute pair, their dependence matrix and the run's report."""

    tables: dict[tuple[int, int], np.ndarray]
    dependence: np.ndarray
    report: SumReport


def exact_bivariate_counts(
    codes: np.ndarray, schema: Schema, *, protocol: Protocol = "secagg", **kwargs: object
) -> BivariateCounts:
    """Run the Section 4.2 procedure over the harness; ``kwargs`` go to ``run_secure_sum``.

    Raises :class:`ProtocolAbort` if the secure sum aborted or was not exact.
    With dropouts (SecAgg), the tables count the included parties only.
    """
    layout = PairLayout(schema.sizes)
    x = layout.one_hot(codes)
    rep = run_secure_sum(protocol, x, **kwargs)  # type: ignore[arg-type]
    if rep.aborted or rep.total is None:
        raise ProtocolAbort(f"secure sum did not finish: {rep.aborted}")
    if not rep.exact:
        raise ProtocolAbort("secure sum result differs from the plaintext sum")
    tables = layout.decode(rep.total)
    return BivariateCounts(tables, dependence_matrix_from_tables(tables, schema), rep)
