"""Randomization mechanisms: one interface, dense and structured matrices, their epsilons.

* :class:`JointMechanism` -- the interface (randomize, estimate, epsilon);
* :class:`RandomizationMatrix` (dense), :class:`UniformMixture` (keep-or-uniform,
  k-RR, the cluster matrix of Domingo-Ferrer & Soria-Comas);
* λ-randomization (Ruiz): :class:`LambdaMechanism` and the Kronecker algebra it
  needs (:func:`apply_kron_ij`, never an ``N x N`` matrix);
* difference-pattern mechanisms (Yamamoto & Shibuya), built by
  :mod:`mpc_rr.mechanisms.optimized`;
* :func:`local_epsilon` and the closed forms; :func:`check_sizes` /
  :func:`check_record` validate domains and records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

__all__ = [
    "DENSE_LIMIT",
    "PAPER_TABLE1",
    "CompactPattern",
    "JointMechanism",
    "KroneckerPattern",
    "LambdaRandomization",
    "PatternMechanism",
    "RandomizationMatrix",
    "StrengthRow",
    "TablePattern",
    "UniformMixture",
    "apply_kron_ij",
    "check_codes",
    "check_dense_cells",
    "check_observed",
    "check_pattern_sizes",
    "check_record",
    "check_sizes",
    "cluster_matrix",
    "eigenvalues_from_levels",
    "factor_entropy",
    "factor_epsilon",
    "k_rr",
    "keep_or_uniform",
    "keep_or_uniform_epsilon",
    "local_epsilon",
    "mixture_epsilon",
    "paper_epsilon",
    "paper_example",
    "pattern_matrix",
    "solve_pattern",
    "subset_counts",
]

_HOME = {
    "CompactPattern": "mpc_rr.mechanisms._patterns",
    "DENSE_LIMIT": "mpc_rr.mechanisms._domain",
    "JointMechanism": "mpc_rr.mechanisms._joint",
    "KroneckerPattern": "mpc_rr.mechanisms._patterns",
    "LambdaRandomization": "mpc_rr.mechanisms._lambda",
    "PAPER_TABLE1": "mpc_rr.mechanisms._lambda",
    "PatternMechanism": "mpc_rr.mechanisms._patterns",
    "RandomizationMatrix": "mpc_rr.mechanisms._basic",
    "StrengthRow": "mpc_rr.mechanisms._lambda",
    "TablePattern": "mpc_rr.mechanisms._patterns",
    "UniformMixture": "mpc_rr.mechanisms._basic",
    "apply_kron_ij": "mpc_rr.mechanisms._kron",
    "check_codes": "mpc_rr.mechanisms._domain",
    "check_dense_cells": "mpc_rr.mechanisms._domain",
    "check_observed": "mpc_rr.mechanisms._domain",
    "check_pattern_sizes": "mpc_rr.mechanisms._patterns",
    "check_record": "mpc_rr.mechanisms._domain",
    "check_sizes": "mpc_rr.mechanisms._domain",
    "cluster_matrix": "mpc_rr.mechanisms._basic",
    "eigenvalues_from_levels": "mpc_rr.mechanisms._kron",
    "factor_entropy": "mpc_rr.mechanisms._lambda",
    "factor_epsilon": "mpc_rr.mechanisms._lambda",
    "k_rr": "mpc_rr.mechanisms._basic",
    "keep_or_uniform": "mpc_rr.mechanisms._basic",
    "keep_or_uniform_epsilon": "mpc_rr.mechanisms._basic",
    "local_epsilon": "mpc_rr.mechanisms._epsilon",
    "mixture_epsilon": "mpc_rr.mechanisms._epsilon",
    "paper_epsilon": "mpc_rr.mechanisms._basic",
    "paper_example": "mpc_rr.mechanisms._lambda",
    "pattern_matrix": "mpc_rr.mechanisms._kron",
    "solve_pattern": "mpc_rr.mechanisms._kron",
    "subset_counts": "mpc_rr.mechanisms._kron",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.mechanisms._basic import (
        RandomizationMatrix,
        UniformMixture,
        cluster_matrix,
        k_rr,
        keep_or_uniform,
        keep_or_uniform_epsilon,
        paper_epsilon,
    )
    from mpc_rr.mechanisms._domain import (
        DENSE_LIMIT,
        check_codes,
        check_dense_cells,
        check_observed,
        check_record,
        check_sizes,
    )
    from mpc_rr.mechanisms._epsilon import (
        local_epsilon,
        mixture_epsilon,
    )
    from mpc_rr.mechanisms._joint import (
        JointMechanism,
    )
    from mpc_rr.mechanisms._kron import (
        apply_kron_ij,
        eigenvalues_from_levels,
        pattern_matrix,
        solve_pattern,
        subset_counts,
    )
    from mpc_rr.mechanisms._lambda import (
        PAPER_TABLE1,
        LambdaRandomization,
        StrengthRow,
        factor_entropy,
        factor_epsilon,
        paper_example,
    )
    from mpc_rr.mechanisms._patterns import (
        CompactPattern,
        KroneckerPattern,
        PatternMechanism,
        TablePattern,
        check_pattern_sizes,
    )
