"""Privacy accounting: what a channel licenses (shuffle amplification, FMT21), composition, the ledger."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "CHANNELS",
    "DIRECT_ASSUMPTION",
    "SHUFFLING",
    "Amplification",
    "Assumption",
    "Ledger",
    "LedgerEntry",
    "Mechanism",
    "PhaseSpec",
    "Release",
    "Sensitivity",
    "amplification_curve",
    "build_ledger",
    "central_epsilon",
    "check_epsilon0",
    "check_numerical_parties",
    "clone_probability",
    "closed_form_epsilon",
    "compose",
    "dependence_sensitivity",
    "discrete_gaussian",
    "discrete_gaussian_pmf",
    "epsilon_for_delta",
    "largest_epsilon0",
    "mechanism_pld",
    "numerical_epsilon",
    "shuffle_delta",
    "skellam_epsilon",
    "skellam_noise",
    "skellam_pld",
    "skellam_pmf",
    "skellam_rdp",
    "skellam_tail_radius",
    "skellam_variance",
    "smallest_n",
    "with_audits",
]

_HOME = {
    "Mechanism": "mpc_rr.privacy._compose",
    "compose": "mpc_rr.privacy._compose",
    "epsilon_for_delta": "mpc_rr.privacy._compose",
    "mechanism_pld": "mpc_rr.privacy._compose",
    "Sensitivity": "mpc_rr.privacy._discrete",
    "dependence_sensitivity": "mpc_rr.privacy._discrete",
    "skellam_epsilon": "mpc_rr.privacy._discrete",
    "skellam_noise": "mpc_rr.privacy._discrete",
    "skellam_pld": "mpc_rr.privacy._discrete",
    "skellam_pmf": "mpc_rr.privacy._discrete",
    "skellam_rdp": "mpc_rr.privacy._discrete",
    "skellam_tail_radius": "mpc_rr.privacy._discrete",
    "skellam_variance": "mpc_rr.privacy._discrete",
    "discrete_gaussian": "mpc_rr.privacy._discrete_gaussian",
    "discrete_gaussian_pmf": "mpc_rr.privacy._discrete_gaussian",
    "Assumption": "mpc_rr.privacy._ledger",
    "CHANNELS": "mpc_rr.privacy._ledger",
    "DIRECT_ASSUMPTION": "mpc_rr.privacy._ledger",
    "Ledger": "mpc_rr.privacy._ledger",
    "LedgerEntry": "mpc_rr.privacy._ledger",
    "PhaseSpec": "mpc_rr.privacy._ledger",
    "Release": "mpc_rr.privacy._ledger",
    "SHUFFLING": "mpc_rr.privacy._ledger",
    "build_ledger": "mpc_rr.privacy._ledger",
    "with_audits": "mpc_rr.privacy._ledger",
    "check_epsilon0": "mpc_rr.privacy._limits",
    "check_numerical_parties": "mpc_rr.privacy._limits",
    "Amplification": "mpc_rr.privacy._shuffle",
    "amplification_curve": "mpc_rr.privacy._shuffle",
    "central_epsilon": "mpc_rr.privacy._shuffle",
    "clone_probability": "mpc_rr.privacy._shuffle",
    "closed_form_epsilon": "mpc_rr.privacy._shuffle",
    "largest_epsilon0": "mpc_rr.privacy._shuffle",
    "numerical_epsilon": "mpc_rr.privacy._shuffle",
    "shuffle_delta": "mpc_rr.privacy._shuffle",
    "smallest_n": "mpc_rr.privacy._shuffle",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.privacy._compose import (
        Mechanism,
        compose,
        epsilon_for_delta,
        mechanism_pld,
    )
    from mpc_rr.privacy._discrete import (
        Sensitivity,
        dependence_sensitivity,
        skellam_epsilon,
        skellam_noise,
        skellam_pld,
        skellam_pmf,
        skellam_rdp,
        skellam_tail_radius,
        skellam_variance,
    )
    from mpc_rr.privacy._discrete_gaussian import (
        discrete_gaussian,
        discrete_gaussian_pmf,
    )
    from mpc_rr.privacy._ledger import (
        CHANNELS,
        DIRECT_ASSUMPTION,
        SHUFFLING,
        Assumption,
        Ledger,
        LedgerEntry,
        PhaseSpec,
        Release,
        build_ledger,
        with_audits,
    )
    from mpc_rr.privacy._limits import (
        check_epsilon0,
        check_numerical_parties,
    )
    from mpc_rr.privacy._shuffle import (
        Amplification,
        amplification_curve,
        central_epsilon,
        clone_probability,
        closed_form_epsilon,
        largest_epsilon0,
        numerical_epsilon,
        shuffle_delta,
        smallest_n,
    )
