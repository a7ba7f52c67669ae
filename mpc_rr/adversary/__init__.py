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

from mpc_rr.core import lazy_exports

__all__ = [
    "ALL",
    "BROKEN_CHANNELS",
    "CHANNELS",
    "FULL_MESH_PLANTS",
    "LINK_CHANNELS",
    "MAX_INPUTS",
    "PIPELINE_PLANTS",
    "PLAINSUM_PLANTS",
    "PUBLIC_DRAW_PROTOCOLS",
    "SEARCH_MAX_CELLS",
    "SECAGG_PLANTS",
    "SHUFFLE_CHANNELS",
    "Activity",
    "AttributeInference",
    "AuditResult",
    "ChannelView",
    "Cheats",
    "CoalitionModel",
    "EpsilonConsequence",
    "FixedDrawSecAggClient",
    "FixedDrawSecAggServer",
    "Grouping",
    "GuessingTest",
    "InferenceResult",
    "LeakageResult",
    "LenientPlainSumHub",
    "LinkabilityResult",
    "LinkageRun",
    "MemberState",
    "NoiseAudit",
    "Observation",
    "OfflinePublic",
    "OneRunResult",
    "PairModel",
    "PairwiseRelease",
    "Participation",
    "PipelineAuditResult",
    "PlaintextShareMeshParty",
    "Plant",
    "Prio3Recovery",
    "ProtocolAttacks",
    "PublicDrawCheck",
    "RRBAClientMechanism",
    "RawRecordParty",
    "Recovery",
    "RecoveryResult",
    "ReidentificationResult",
    "SecAggView",
    "ShuffleAudit",
    "SizeCensus",
    "SparsePlainSumClient",
    "UnmaskedSecAggClient",
    "ZeroShareMeshParty",
    "activity",
    "attack",
    "attack_order",
    "attacked",
    "attacks_for",
    "attribute_inference",
    "audit",
    "audit_curve",
    "audit_shuffle",
    "audit_sum_noise",
    "bayes_inference",
    "check_confidence",
    "check_count",
    "check_public_draws",
    "coalition_members",
    "coalition_model",
    "coalition_sweep",
    "cp_lower",
    "cp_two_sided",
    "cp_upper",
    "dense_matrix",
    "draw_exposure",
    "epsilon_consequence",
    "epsilon_from_precision",
    "evaluate",
    "expand_totals",
    "feature_leakage",
    "full_mesh_coalition",
    "full_mesh_offline",
    "ldp_auditor_audit",
    "ldp_auditor_epsilon",
    "link",
    "mean_ci",
    "member_state",
    "observe",
    "on_link",
    "one_hot_cell",
    "one_run_audit",
    "participation",
    "participation_leakage",
    "party_groups",
    "pipeline_audit",
    "pipeline_observations",
    "plainsum_offline",
    "planted_variants",
    "pool",
    "pool_inference",
    "prio3_recover",
    "recover",
    "recover_full_mesh",
    "recover_plainsum",
    "recover_secagg",
    "register_attacks",
    "reidentification",
    "release_pairs",
    "rrba_observations",
    "run_guessing_game",
    "score",
    "search_test",
    "secagg_coalition",
    "secagg_offline",
    "size_census",
    "size_leakage",
    "smallest_cell_test",
    "structured_test",
    "synthetic_schema",
    "timing_leakage",
    "uniform_event_test",
    "unregister_attacks",
]

_HOME = {
    "ProtocolAttacks": "mpc_rr.adversary._extensions",
    "Cheats": "mpc_rr.adversary._extensions",
    "attacked": "mpc_rr.adversary._extensions",
    "attacks_for": "mpc_rr.adversary._extensions",
    "register_attacks": "mpc_rr.adversary._extensions",
    "unregister_attacks": "mpc_rr.adversary._extensions",
    "NoiseAudit": "mpc_rr.adversary._noise_audit",
    "audit_sum_noise": "mpc_rr.adversary._noise_audit",
    "ALL": "mpc_rr.adversary._broken",
    "Activity": "mpc_rr.adversary._traffic",
    "AttributeInference": "mpc_rr.adversary._inference",
    "AuditResult": "mpc_rr.adversary._audit",
    "BROKEN_CHANNELS": "mpc_rr.adversary._shuffle_audit",
    "CHANNELS": "mpc_rr.adversary._channels",
    "ChannelView": "mpc_rr.adversary._channels",
    "CoalitionModel": "mpc_rr.adversary._coalitions",
    "EpsilonConsequence": "mpc_rr.adversary._consequences",
    "FULL_MESH_PLANTS": "mpc_rr.adversary._broken",
    "Grouping": "mpc_rr.adversary._linkability",
    "GuessingTest": "mpc_rr.adversary._designs",
    "InferenceResult": "mpc_rr.adversary._consequences",
    "LINK_CHANNELS": "mpc_rr.adversary._choices",
    "LeakageResult": "mpc_rr.adversary._traffic",
    "LenientPlainSumHub": "mpc_rr.adversary._broken",
    "LinkabilityResult": "mpc_rr.adversary._linkability",
    "LinkageRun": "mpc_rr.adversary._linkability",
    "MAX_INPUTS": "mpc_rr.adversary._designs",
    "MemberState": "mpc_rr.adversary._recovery",
    "Observation": "mpc_rr.adversary._inference",
    "OfflinePublic": "mpc_rr.adversary._offline",
    "OneRunResult": "mpc_rr.adversary._one_run",
    "PIPELINE_PLANTS": "mpc_rr.adversary._broken",
    "PLAINSUM_PLANTS": "mpc_rr.adversary._broken",
    "PairModel": "mpc_rr.adversary._linkability",
    "PairwiseRelease": "mpc_rr.adversary._channels",
    "Participation": "mpc_rr.adversary._eavesdrop",
    "PipelineAuditResult": "mpc_rr.adversary._pipeline_audit",
    "PlaintextShareMeshParty": "mpc_rr.adversary._broken",
    "Plant": "mpc_rr.adversary._broken",
    "Prio3Recovery": "mpc_rr.adversary._prio3_coalition",
    "RRBAClientMechanism": "mpc_rr.adversary._rrba_audit",
    "RawRecordParty": "mpc_rr.adversary._broken",
    "Recovery": "mpc_rr.adversary._recovery",
    "RecoveryResult": "mpc_rr.adversary._recovery",
    "ReidentificationResult": "mpc_rr.adversary._consequences",
    "SEARCH_MAX_CELLS": "mpc_rr.adversary._designs",
    "SECAGG_PLANTS": "mpc_rr.adversary._broken",
    "SHUFFLE_CHANNELS": "mpc_rr.adversary._shuffle_audit",
    "SecAggView": "mpc_rr.adversary._secagg_recovery",
    "ShuffleAudit": "mpc_rr.adversary._shuffle_audit",
    "SizeCensus": "mpc_rr.adversary._eavesdrop",
    "SparsePlainSumClient": "mpc_rr.adversary._broken",
    "UnmaskedSecAggClient": "mpc_rr.adversary._broken",
    "FixedDrawSecAggClient": "mpc_rr.adversary._broken",
    "FixedDrawSecAggServer": "mpc_rr.adversary._broken",
    "ZeroShareMeshParty": "mpc_rr.adversary._broken",
    "activity": "mpc_rr.adversary._traffic",
    "attack": "mpc_rr.adversary._linkability",
    "attack_order": "mpc_rr.adversary._linkability",
    "attribute_inference": "mpc_rr.adversary._consequences",
    "audit": "mpc_rr.adversary._audit",
    "audit_curve": "mpc_rr.adversary._audit",
    "audit_shuffle": "mpc_rr.adversary._shuffle_audit",
    "bayes_inference": "mpc_rr.adversary._inference",
    "check_confidence": "mpc_rr.adversary._stats",
    "check_count": "mpc_rr.adversary._stats",
    "coalition_members": "mpc_rr.adversary._coalitions",
    "draw_exposure": "mpc_rr.adversary._coalitions",
    "check_public_draws": "mpc_rr.adversary._draw_check",
    "PublicDrawCheck": "mpc_rr.adversary._draw_check",
    "PUBLIC_DRAW_PROTOCOLS": "mpc_rr.adversary._draw_check",
    "coalition_model": "mpc_rr.adversary._coalitions",
    "coalition_sweep": "mpc_rr.adversary._coalitions",
    "cp_lower": "mpc_rr.adversary._stats",
    "cp_two_sided": "mpc_rr.adversary._stats",
    "cp_upper": "mpc_rr.adversary._stats",
    "dense_matrix": "mpc_rr.adversary._inference",
    "epsilon_consequence": "mpc_rr.adversary._consequences",
    "epsilon_from_precision": "mpc_rr.adversary._audit",
    "evaluate": "mpc_rr.adversary._linkability",
    "expand_totals": "mpc_rr.adversary._channels",
    "feature_leakage": "mpc_rr.adversary._traffic",
    "full_mesh_coalition": "mpc_rr.adversary._coalitions",
    "full_mesh_offline": "mpc_rr.adversary._offline",
    "ldp_auditor_audit": "mpc_rr.adversary._audit",
    "ldp_auditor_epsilon": "mpc_rr.adversary._audit",
    "link": "mpc_rr.adversary._linkability",
    "mean_ci": "mpc_rr.adversary._stats",
    "member_state": "mpc_rr.adversary._recovery",
    "observe": "mpc_rr.adversary._channels",
    "on_link": "mpc_rr.adversary._eavesdrop",
    "one_hot_cell": "mpc_rr.adversary._recovery",
    "one_run_audit": "mpc_rr.adversary._one_run",
    "participation": "mpc_rr.adversary._eavesdrop",
    "participation_leakage": "mpc_rr.adversary._traffic",
    "party_groups": "mpc_rr.adversary._linkability",
    "pipeline_audit": "mpc_rr.adversary._pipeline_audit",
    "pipeline_observations": "mpc_rr.adversary._inference",
    "plainsum_offline": "mpc_rr.adversary._offline",
    "planted_variants": "mpc_rr.adversary._choices",
    "pool": "mpc_rr.adversary._coalitions",
    "pool_inference": "mpc_rr.adversary._inference",
    "prio3_recover": "mpc_rr.adversary._prio3_coalition",
    "recover": "mpc_rr.adversary._recovery",
    "recover_full_mesh": "mpc_rr.adversary._recovery",
    "recover_plainsum": "mpc_rr.adversary._recovery",
    "recover_secagg": "mpc_rr.adversary._secagg_recovery",
    "reidentification": "mpc_rr.adversary._consequences",
    "release_pairs": "mpc_rr.adversary._channels",
    "rrba_observations": "mpc_rr.adversary._inference",
    "run_guessing_game": "mpc_rr.adversary._audit",
    "score": "mpc_rr.adversary._coalitions",
    "search_test": "mpc_rr.adversary._designs",
    "secagg_coalition": "mpc_rr.adversary._coalitions",
    "secagg_offline": "mpc_rr.adversary._offline",
    "size_census": "mpc_rr.adversary._eavesdrop",
    "size_leakage": "mpc_rr.adversary._traffic",
    "smallest_cell_test": "mpc_rr.adversary._rrba_audit",
    "structured_test": "mpc_rr.adversary._designs",
    "synthetic_schema": "mpc_rr.adversary._pipeline_audit",
    "timing_leakage": "mpc_rr.adversary._traffic",
    "uniform_event_test": "mpc_rr.adversary._rrba_audit",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.adversary._audit import (
        AuditResult,
        audit,
        audit_curve,
        epsilon_from_precision,
        ldp_auditor_audit,
        ldp_auditor_epsilon,
        run_guessing_game,
    )
    from mpc_rr.adversary._broken import (
        ALL,
        FULL_MESH_PLANTS,
        PIPELINE_PLANTS,
        PLAINSUM_PLANTS,
        SECAGG_PLANTS,
        FixedDrawSecAggClient,
        FixedDrawSecAggServer,
        LenientPlainSumHub,
        PlaintextShareMeshParty,
        Plant,
        RawRecordParty,
        SparsePlainSumClient,
        UnmaskedSecAggClient,
        ZeroShareMeshParty,
    )
    from mpc_rr.adversary._channels import (
        CHANNELS,
        ChannelView,
        PairwiseRelease,
        expand_totals,
        observe,
        release_pairs,
    )
    from mpc_rr.adversary._choices import (
        LINK_CHANNELS,
        planted_variants,
    )
    from mpc_rr.adversary._coalitions import (
        CoalitionModel,
        coalition_members,
        coalition_model,
        coalition_sweep,
        draw_exposure,
        full_mesh_coalition,
        pool,
        score,
        secagg_coalition,
    )
    from mpc_rr.adversary._consequences import (
        EpsilonConsequence,
        InferenceResult,
        ReidentificationResult,
        attribute_inference,
        epsilon_consequence,
        reidentification,
    )
    from mpc_rr.adversary._designs import (
        MAX_INPUTS,
        SEARCH_MAX_CELLS,
        GuessingTest,
        search_test,
        structured_test,
    )
    from mpc_rr.adversary._draw_check import (
        PUBLIC_DRAW_PROTOCOLS,
        PublicDrawCheck,
        check_public_draws,
    )
    from mpc_rr.adversary._eavesdrop import (
        Participation,
        SizeCensus,
        on_link,
        participation,
        size_census,
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
        dense_matrix,
        pipeline_observations,
        pool_inference,
        rrba_observations,
    )
    from mpc_rr.adversary._linkability import (
        Grouping,
        LinkabilityResult,
        LinkageRun,
        PairModel,
        attack,
        attack_order,
        evaluate,
        link,
        party_groups,
    )
    from mpc_rr.adversary._noise_audit import NoiseAudit, audit_sum_noise
    from mpc_rr.adversary._offline import (
        OfflinePublic,
        full_mesh_offline,
        plainsum_offline,
        secagg_offline,
    )
    from mpc_rr.adversary._one_run import (
        OneRunResult,
        one_run_audit,
    )
    from mpc_rr.adversary._pipeline_audit import (
        PipelineAuditResult,
        pipeline_audit,
        synthetic_schema,
    )
    from mpc_rr.adversary._prio3_coalition import (
        Prio3Recovery,
        prio3_recover,
    )
    from mpc_rr.adversary._recovery import (
        MemberState,
        Recovery,
        RecoveryResult,
        member_state,
        one_hot_cell,
        recover,
        recover_full_mesh,
        recover_plainsum,
    )
    from mpc_rr.adversary._rrba_audit import (
        RRBAClientMechanism,
        smallest_cell_test,
        uniform_event_test,
    )
    from mpc_rr.adversary._secagg_recovery import (
        SecAggView,
        recover_secagg,
    )
    from mpc_rr.adversary._shuffle_audit import (
        BROKEN_CHANNELS,
        SHUFFLE_CHANNELS,
        ShuffleAudit,
        audit_shuffle,
    )
    from mpc_rr.adversary._stats import (
        check_confidence,
        check_count,
        cp_lower,
        cp_two_sided,
        cp_upper,
        mean_ci,
    )
    from mpc_rr.adversary._traffic import (
        Activity,
        LeakageResult,
        activity,
        feature_leakage,
        participation_leakage,
        size_leakage,
        timing_leakage,
    )
