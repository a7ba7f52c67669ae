"""The adversary module: what eavesdroppers, a curious aggregator and coalitions learn.

Every attack is a pure function of what its adversary sees -- a recorded
:class:`~mpc_rr.core.Transcript` (eavesdropper), the reports a channel
delivers (curious aggregator), or black-box runs of a mechanism (auditor) --
and returns a frozen result with the attack's ``success``, its ``baseline``
(what guessing achieves) and a confidence interval ``ci``.

Modules, one job each:

* :mod:`~mpc_rr.adversary._designs` -- distinguishing tests (inputs + guess rule)
  for epsilon audits, from structure or by black-box search;
* :mod:`~mpc_rr.adversary._audit` -- empirical epsilon, Clopper-Pearson lower bound
  (Jagielski et al. 2020; LDP-Auditor, Arcolezi & Gambs 2024);
* :mod:`~mpc_rr.adversary._one_run` -- one-run audit (Steinke, Nasr & Jagielski 2023);
* :mod:`~mpc_rr.adversary._traffic` -- sizes, timing and participation seen on the wire;
* :mod:`~mpc_rr.adversary._channels` -- pairwise-RR releases and the view each
  channel (direct, anonymous, secure-sum) delivers;
* :mod:`~mpc_rr.adversary._linkability` -- regrouping pairwise-RR submissions
  (Sec. 4.3), degree of anonymity (Diaz et al. 2002), anonymity set
  (Serjantov & Danezis 2002);
* :mod:`~mpc_rr.adversary._consequences` -- attribute inference, epsilon and
  re-identification through linking;
* :mod:`~mpc_rr.core._views` -- the decoded messages an observer holds
  (a hub, the aggregator, a coalition);
* :mod:`~mpc_rr.adversary._eavesdrop` -- who took part and when, size census,
  one link's share of a hub transcript;
* :mod:`~mpc_rr.adversary._inference` -- Bayes-optimal inference of true values
  from the randomized records an eavesdropper reads;
* :mod:`~mpc_rr.adversary._recovery` -- input recovery by the curious
  aggregator, coalitions and a plaintext hub in the secure sums;
* :mod:`~mpc_rr.adversary._rrba_audit` -- the RRBA client audited at its table;
* :mod:`~mpc_rr.adversary._pipeline_audit` -- the pipeline's per-party output,
  end to end, one-run audit;
* :mod:`~mpc_rr.adversary._broken` -- protocols broken on purpose (planted
  leaks for tests and benchmarks; never used by the product's runs).

Active adversaries -- a cheating server, relay or client, poisoned inputs --
are the subpackage :mod:`mpc_rr.adversary.active`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "CHANNELS",
    "LINK_CHANNELS",
    "SEARCH_MAX_CELLS",
    "AttributeInference",
    "AuditResult",
    "Cheats",
    "EpsilonConsequence",
    "InferenceResult",
    "LeakageResult",
    "LinkabilityResult",
    "NoiseAudit",
    "Observation",
    "OneRunResult",
    "PipelineAuditResult",
    "ProtocolAttacks",
    "RecoveryResult",
    "ReidentificationResult",
    "ShuffleAudit",
    "attack",
    "attacked",
    "attacks_for",
    "attribute_inference",
    "audit",
    "audit_shuffle",
    "audit_sum_noise",
    "bayes_inference",
    "check_confidence",
    "check_public_draws",
    "coalition_sweep",
    "epsilon_consequence",
    "observe",
    "one_run_audit",
    "participation_leakage",
    "pipeline_audit",
    "recover",
    "register_attacks",
    "reidentification",
    "release_pairs",
    "size_leakage",
    "timing_leakage",
    "unregister_attacks",
]

_HOME = {
    "coalition_sweep": "mpc_rr.adversary._coalitions",
    "AuditResult": "mpc_rr.adversary._audit",
    "audit": "mpc_rr.adversary._audit",
    "CHANNELS": "mpc_rr.adversary._channels",
    "observe": "mpc_rr.adversary._channels",
    "release_pairs": "mpc_rr.adversary._channels",
    "LINK_CHANNELS": "mpc_rr.adversary._choices",
    "EpsilonConsequence": "mpc_rr.adversary._consequences",
    "InferenceResult": "mpc_rr.adversary._consequences",
    "ReidentificationResult": "mpc_rr.adversary._consequences",
    "attribute_inference": "mpc_rr.adversary._consequences",
    "epsilon_consequence": "mpc_rr.adversary._consequences",
    "reidentification": "mpc_rr.adversary._consequences",
    "SEARCH_MAX_CELLS": "mpc_rr.adversary._designs",
    "check_public_draws": "mpc_rr.adversary._draw_check",
    "Cheats": "mpc_rr.adversary._extensions",
    "ProtocolAttacks": "mpc_rr.adversary._extensions",
    "attacked": "mpc_rr.adversary._extensions",
    "attacks_for": "mpc_rr.adversary._extensions",
    "register_attacks": "mpc_rr.adversary._extensions",
    "unregister_attacks": "mpc_rr.adversary._extensions",
    "AttributeInference": "mpc_rr.adversary._inference",
    "Observation": "mpc_rr.adversary._inference",
    "bayes_inference": "mpc_rr.adversary._inference",
    "LinkabilityResult": "mpc_rr.adversary._linkability",
    "attack": "mpc_rr.adversary._linkability",
    "NoiseAudit": "mpc_rr.adversary._noise_audit",
    "audit_sum_noise": "mpc_rr.adversary._noise_audit",
    "OneRunResult": "mpc_rr.adversary._one_run",
    "one_run_audit": "mpc_rr.adversary._one_run",
    "PipelineAuditResult": "mpc_rr.adversary._pipeline_audit",
    "pipeline_audit": "mpc_rr.adversary._pipeline_audit",
    "RecoveryResult": "mpc_rr.adversary._recovery",
    "recover": "mpc_rr.adversary._recovery",
    "ShuffleAudit": "mpc_rr.adversary._shuffle_audit",
    "audit_shuffle": "mpc_rr.adversary._shuffle_audit",
    "check_confidence": "mpc_rr.adversary._stats",
    "LeakageResult": "mpc_rr.adversary._traffic",
    "participation_leakage": "mpc_rr.adversary._traffic",
    "size_leakage": "mpc_rr.adversary._traffic",
    "timing_leakage": "mpc_rr.adversary._traffic",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.adversary._audit import (
        AuditResult,
        audit,
    )
    from mpc_rr.adversary._channels import (
        CHANNELS,
        observe,
        release_pairs,
    )
    from mpc_rr.adversary._choices import (
        LINK_CHANNELS,
    )
    from mpc_rr.adversary._coalitions import coalition_sweep
    from mpc_rr.adversary._consequences import (
        EpsilonConsequence,
        InferenceResult,
        ReidentificationResult,
        attribute_inference,
        epsilon_consequence,
        reidentification,
    )
    from mpc_rr.adversary._designs import (
        SEARCH_MAX_CELLS,
    )
    from mpc_rr.adversary._draw_check import (
        check_public_draws,
    )
    from mpc_rr.adversary._extensions import (
        Cheats,
        ProtocolAttacks,
        attacked,
        attacks_for,
        register_attacks,
        unregister_attacks,
    )
    from mpc_rr.adversary._inference import (
        AttributeInference,
        Observation,
        bayes_inference,
    )
    from mpc_rr.adversary._linkability import (
        LinkabilityResult,
        attack,
    )
    from mpc_rr.adversary._noise_audit import (
        NoiseAudit,
        audit_sum_noise,
    )
    from mpc_rr.adversary._one_run import (
        OneRunResult,
        one_run_audit,
    )
    from mpc_rr.adversary._pipeline_audit import (
        PipelineAuditResult,
        pipeline_audit,
    )
    from mpc_rr.adversary._recovery import (
        RecoveryResult,
        recover,
    )
    from mpc_rr.adversary._shuffle_audit import (
        ShuffleAudit,
        audit_shuffle,
    )
    from mpc_rr.adversary._stats import (
        check_confidence,
    )
    from mpc_rr.adversary._traffic import (
        LeakageResult,
        participation_leakage,
        size_leakage,
        timing_leakage,
    )
