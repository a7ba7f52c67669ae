"""Secure aggregation: the paper's modular secure sum (Sec. 4.2) and a scalable SecAgg+.

* :mod:`mpc_rr.secure_sum.full_mesh` -- Domingo-Ferrer & Soria-Comas, Section 4.2,
  faithfully (shares mod n+1 between all pairs, all-to-all or board publication).
* :mod:`mpc_rr.secure_sum.secagg` -- pairwise-masking secure aggregation over a
  sparse random graph with Shamir-shared seeds (Bell et al. 2020, SecAgg+),
  tolerating dropouts in every phase.
* :mod:`mpc_rr.secure_sum.entropy` -- injectable cryptographic randomness.
"""

from mpc_rr.secure_sum.common import SumResult
from mpc_rr.secure_sum.entropy import Entropy, SeededEntropy, SystemEntropy, smallest_uint

__all__ = ["Entropy", "SeededEntropy", "SumResult", "SystemEntropy", "smallest_uint"]
