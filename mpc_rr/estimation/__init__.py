"""Estimation from randomized data: frequencies (Eq. 2 and its repairs), RR-Adjustment,
factor models, count queries and errors, dependences between attributes.

* :func:`estimate_distribution` -- Eq. 2 with the repair named in every result
  (:data:`ESTIMATORS`: clip, project, ibu, none; docs/rr_library.md, decision 4);
* :func:`rr_adjustment` -- Algorithm 2 (RR-Adjustment), Anderson-accelerated or plain;
* :class:`FactorModel` / :class:`WeightedRecords` -- estimated joint distributions;
* :func:`make_queries`, :func:`answer`, :func:`relative_error` -- Section 6.5's count queries;
* :func:`dependence_matrix` -- Expressions 8-9 (Cramér's V, |Pearson|; docs/rr_library.md, decision 3);
* :func:`noisy_dependence_matrix` -- the same from noisy counts (clip, project, debias).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "ADJUSTMENT_METHODS",
    "ESTIMATORS",
    "NOISY_TABLE_REPAIRS",
    "AdjustmentResult",
    "CountQuery",
    "Estimate",
    "answer",
    "contingency",
    "cramers_v",
    "debiased_cramers_v",
    "dependence_matrix",
    "dependence_matrix_from_tables",
    "estimate_distribution",
    "ibu",
    "jensen_shannon",
    "l2_distance",
    "make_queries",
    "noisy_dependence_matrix",
    "relative_error",
    "repair_table",
    "rr_adjustment",
    "true_count",
]

_HOME = {
    "ADJUSTMENT_METHODS": "mpc_rr.estimation._adjustment",
    "AdjustmentResult": "mpc_rr.estimation._adjustment",
    "rr_adjustment": "mpc_rr.estimation._adjustment",
    "ESTIMATORS": "mpc_rr.estimation._choices",
    "contingency": "mpc_rr.estimation._dependence",
    "cramers_v": "mpc_rr.estimation._dependence",
    "dependence_matrix": "mpc_rr.estimation._dependence",
    "dependence_matrix_from_tables": "mpc_rr.estimation._dependence",
    "Estimate": "mpc_rr.estimation._frequencies",
    "estimate_distribution": "mpc_rr.estimation._frequencies",
    "ibu": "mpc_rr.estimation._frequencies",
    "NOISY_TABLE_REPAIRS": "mpc_rr.estimation._noisy_tables",
    "debiased_cramers_v": "mpc_rr.estimation._noisy_tables",
    "noisy_dependence_matrix": "mpc_rr.estimation._noisy_tables",
    "repair_table": "mpc_rr.estimation._noisy_tables",
    "CountQuery": "mpc_rr.estimation._queries",
    "answer": "mpc_rr.estimation._queries",
    "jensen_shannon": "mpc_rr.estimation._queries",
    "l2_distance": "mpc_rr.estimation._queries",
    "make_queries": "mpc_rr.estimation._queries",
    "relative_error": "mpc_rr.estimation._queries",
    "true_count": "mpc_rr.estimation._queries",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.estimation._adjustment import (
        ADJUSTMENT_METHODS,
        AdjustmentResult,
        rr_adjustment,
    )
    from mpc_rr.estimation._choices import (
        ESTIMATORS,
    )
    from mpc_rr.estimation._dependence import (
        contingency,
        cramers_v,
        dependence_matrix,
        dependence_matrix_from_tables,
    )
    from mpc_rr.estimation._frequencies import (
        Estimate,
        estimate_distribution,
        ibu,
    )
    from mpc_rr.estimation._noisy_tables import (
        NOISY_TABLE_REPAIRS,
        debiased_cramers_v,
        noisy_dependence_matrix,
        repair_table,
    )
    from mpc_rr.estimation._queries import (
        CountQuery,
        answer,
        jensen_shannon,
        l2_distance,
        make_queries,
        relative_error,
        true_count,
    )
