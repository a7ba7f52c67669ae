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

from mpc_rr.core import lazy_exports

__all__ = [
    "ADJUSTMENT_METHODS",
    "ESTIMATORS",
    "NOISY_TABLE_REPAIRS",
    "AdjustmentResult",
    "CountQuery",
    "Estimate",
    "FactorModel",
    "PatternCounts",
    "WeightedRecords",
    "absolute_error",
    "answer",
    "clip_rescale",
    "contingency",
    "cramers_v",
    "debiased_cramers_v",
    "dependence",
    "dependence_matrix",
    "dependence_matrix_from_tables",
    "estimate_distribution",
    "ibu",
    "jensen_shannon",
    "l2_distance",
    "make_queries",
    "noisy_dependence_matrix",
    "pearson_abs",
    "project_simplex",
    "relative_error",
    "repair_table",
    "rr_adjustment",
    "true_count",
]

_HOME = {
    "NOISY_TABLE_REPAIRS": "mpc_rr.estimation._noisy_tables",
    "debiased_cramers_v": "mpc_rr.estimation._noisy_tables",
    "noisy_dependence_matrix": "mpc_rr.estimation._noisy_tables",
    "repair_table": "mpc_rr.estimation._noisy_tables",
    "ADJUSTMENT_METHODS": "mpc_rr.estimation._adjustment",
    "AdjustmentResult": "mpc_rr.estimation._adjustment",
    "CountQuery": "mpc_rr.estimation._queries",
    "ESTIMATORS": "mpc_rr.estimation._choices",
    "Estimate": "mpc_rr.estimation._frequencies",
    "FactorModel": "mpc_rr.estimation._models",
    "PatternCounts": "mpc_rr.estimation._patterns",
    "WeightedRecords": "mpc_rr.estimation._models",
    "absolute_error": "mpc_rr.estimation._queries",
    "answer": "mpc_rr.estimation._queries",
    "clip_rescale": "mpc_rr.estimation._frequencies",
    "contingency": "mpc_rr.estimation._dependence",
    "cramers_v": "mpc_rr.estimation._dependence",
    "dependence": "mpc_rr.estimation._dependence",
    "dependence_matrix": "mpc_rr.estimation._dependence",
    "dependence_matrix_from_tables": "mpc_rr.estimation._dependence",
    "estimate_distribution": "mpc_rr.estimation._frequencies",
    "ibu": "mpc_rr.estimation._frequencies",
    "jensen_shannon": "mpc_rr.estimation._queries",
    "l2_distance": "mpc_rr.estimation._queries",
    "make_queries": "mpc_rr.estimation._queries",
    "pearson_abs": "mpc_rr.estimation._dependence",
    "project_simplex": "mpc_rr.estimation._frequencies",
    "relative_error": "mpc_rr.estimation._queries",
    "rr_adjustment": "mpc_rr.estimation._adjustment",
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
        dependence,
        dependence_matrix,
        dependence_matrix_from_tables,
        pearson_abs,
    )
    from mpc_rr.estimation._frequencies import (
        Estimate,
        clip_rescale,
        estimate_distribution,
        ibu,
        project_simplex,
    )
    from mpc_rr.estimation._models import (
        FactorModel,
        WeightedRecords,
    )
    from mpc_rr.estimation._noisy_tables import (
        NOISY_TABLE_REPAIRS,
        debiased_cramers_v,
        noisy_dependence_matrix,
        repair_table,
    )
    from mpc_rr.estimation._patterns import (
        PatternCounts,
    )
    from mpc_rr.estimation._queries import (
        CountQuery,
        absolute_error,
        answer,
        jensen_shannon,
        l2_distance,
        make_queries,
        relative_error,
        true_count,
    )
