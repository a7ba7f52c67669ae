"""Secure aggregation: the paper's modular secure sum (Sec. 4.2) and a scalable SecAgg+.

* :mod:`mpc_rr.secure_sum.full_mesh._protocol` -- Domingo-Ferrer & Soria-Comas, Section 4.2,
  faithfully (shares mod n+1 between all pairs, all-to-all or board publication).
* :mod:`mpc_rr.secure_sum.secagg._roles` -- pairwise-masking secure aggregation over a
  sparse random graph with Shamir-shared seeds (Bell et al. 2020, SecAgg+),
  tolerating dropouts in every phase.
* :mod:`mpc_rr.secure_sum._entropy` -- injectable cryptographic randomness.
* :mod:`mpc_rr.secure_sum._noise` -- distributed Skellam noise: worst-case calibration, modulus.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "DEFAULT_MAX_CORRUPT",
    "DEFAULT_SUM",
    "DeploymentKeys",
    "Entropy",
    "Identity",
    "Roster",
    "SecureSumPlan",
    "SeededEntropy",
    "StatelessPrechecks",
    "SumNoise",
    "SumProtocol",
    "SumPublic",
    "SumResult",
    "SumTrust",
    "SystemEntropy",
    "ValidityProofs",
    "calibrate_noise",
    "check_inner_sum",
    "decode_noisy_sum",
    "expected_total",
    "honest_survivors",
    "memory_estimate",
    "merge_sum_options",
    "message_count",
    "noise_modulus",
    "party_input",
    "secure_sum_roles",
    "simulated_pki",
    "step_messages",
    "sum_options",
    "sum_protocol",
    "sum_protocol_names",
    "sum_protocols",
    "with_roles",
]

_HOME = {
    "SumResult": "mpc_rr.secure_sum._common",
    "Entropy": "mpc_rr.secure_sum._entropy",
    "SeededEntropy": "mpc_rr.secure_sum._entropy",
    "SystemEntropy": "mpc_rr.secure_sum._entropy",
    "DEFAULT_SUM": "mpc_rr.secure_sum._family",
    "check_inner_sum": "mpc_rr.secure_sum._family",
    "merge_sum_options": "mpc_rr.secure_sum._family",
    "sum_options": "mpc_rr.secure_sum._family",
    "sum_protocol": "mpc_rr.secure_sum._family",
    "sum_protocol_names": "mpc_rr.secure_sum._family",
    "sum_protocols": "mpc_rr.secure_sum._family",
    "Identity": "mpc_rr.secure_sum._identity",
    "Roster": "mpc_rr.secure_sum._identity",
    "simulated_pki": "mpc_rr.secure_sum._identity",
    "SumNoise": "mpc_rr.secure_sum._noise",
    "calibrate_noise": "mpc_rr.secure_sum._noise",
    "decode_noisy_sum": "mpc_rr.secure_sum._noise",
    "honest_survivors": "mpc_rr.secure_sum._noise",
    "noise_modulus": "mpc_rr.secure_sum._noise",
    "SecureSumPlan": "mpc_rr.secure_sum._plan",
    "expected_total": "mpc_rr.secure_sum._plan",
    "memory_estimate": "mpc_rr.secure_sum._plan",
    "message_count": "mpc_rr.secure_sum._plan",
    "party_input": "mpc_rr.secure_sum._plan",
    "secure_sum_roles": "mpc_rr.secure_sum._plan",
    "step_messages": "mpc_rr.secure_sum._plan",
    "DeploymentKeys": "mpc_rr.secure_sum._protocol",
    "StatelessPrechecks": "mpc_rr.secure_sum._protocol",
    "SumProtocol": "mpc_rr.secure_sum._protocol",
    "SumPublic": "mpc_rr.secure_sum._protocol",
    "ValidityProofs": "mpc_rr.secure_sum._protocol",
    "with_roles": "mpc_rr.secure_sum._protocol",
    "DEFAULT_MAX_CORRUPT": "mpc_rr.secure_sum._trust",
    "SumTrust": "mpc_rr.secure_sum._trust",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.secure_sum._common import (
        SumResult,
    )
    from mpc_rr.secure_sum._entropy import (
        Entropy,
        SeededEntropy,
        SystemEntropy,
    )
    from mpc_rr.secure_sum._family import (
        DEFAULT_SUM,
        check_inner_sum,
        merge_sum_options,
        sum_options,
        sum_protocol,
        sum_protocol_names,
        sum_protocols,
    )
    from mpc_rr.secure_sum._identity import (
        Identity,
        Roster,
        simulated_pki,
    )
    from mpc_rr.secure_sum._noise import (
        SumNoise,
        calibrate_noise,
        decode_noisy_sum,
        honest_survivors,
        noise_modulus,
    )
    from mpc_rr.secure_sum._plan import (
        SecureSumPlan,
        expected_total,
        memory_estimate,
        message_count,
        party_input,
        secure_sum_roles,
        step_messages,
    )
    from mpc_rr.secure_sum._protocol import (
        DeploymentKeys,
        StatelessPrechecks,
        SumProtocol,
        SumPublic,
        ValidityProofs,
        with_roles,
    )
    from mpc_rr.secure_sum._trust import (
        DEFAULT_MAX_CORRUPT,
        SumTrust,
    )
