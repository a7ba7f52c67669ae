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

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "PAPER_TABLE1",
    "CompactPattern",
    "JointMechanism",
    "KroneckerPattern",
    "LambdaRandomization",
    "PatternMechanism",
    "RandomizationMatrix",
    "TablePattern",
    "UniformMixture",
    "check_sizes",
    "cluster_matrix",
    "k_rr",
    "keep_or_uniform",
    "keep_or_uniform_epsilon",
    "local_epsilon",
    "mixture_epsilon",
    "paper_epsilon",
    "paper_example",
]

_HOME = {
    "RandomizationMatrix": "mpc_rr.mechanisms._basic",
    "UniformMixture": "mpc_rr.mechanisms._basic",
    "cluster_matrix": "mpc_rr.mechanisms._basic",
    "k_rr": "mpc_rr.mechanisms._basic",
    "keep_or_uniform": "mpc_rr.mechanisms._basic",
    "keep_or_uniform_epsilon": "mpc_rr.mechanisms._basic",
    "paper_epsilon": "mpc_rr.mechanisms._basic",
    "check_sizes": "mpc_rr.mechanisms._domain",
    "local_epsilon": "mpc_rr.mechanisms._epsilon",
    "mixture_epsilon": "mpc_rr.mechanisms._epsilon",
    "JointMechanism": "mpc_rr.mechanisms._joint",
    "LambdaRandomization": "mpc_rr.mechanisms._lambda",
    "PAPER_TABLE1": "mpc_rr.mechanisms._lambda",
    "paper_example": "mpc_rr.mechanisms._lambda",
    "CompactPattern": "mpc_rr.mechanisms._patterns",
    "KroneckerPattern": "mpc_rr.mechanisms._patterns",
    "PatternMechanism": "mpc_rr.mechanisms._patterns",
    "TablePattern": "mpc_rr.mechanisms._patterns",
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
        check_sizes,
    )
    from mpc_rr.mechanisms._epsilon import (
        local_epsilon,
        mixture_epsilon,
    )
    from mpc_rr.mechanisms._joint import (
        JointMechanism,
    )
    from mpc_rr.mechanisms._lambda import (
        PAPER_TABLE1,
        LambdaRandomization,
        paper_example,
    )
    from mpc_rr.mechanisms._patterns import (
        CompactPattern,
        KroneckerPattern,
        PatternMechanism,
        TablePattern,
    )
