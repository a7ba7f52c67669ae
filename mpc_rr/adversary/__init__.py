"""The adversary module: what eavesdroppers, a curious aggregator and coalitions learn.

Every attack is a pure function of what its adversary sees -- a recorded
:class:`~mpc_rr.transcript.Transcript` (eavesdropper), the reports a channel
delivers (curious aggregator), or black-box runs of a mechanism (auditor) --
and returns a frozen result with the attack's ``success``, its ``baseline``
(what guessing achieves) and a confidence interval ``ci``.

Modules, one job each:

* :mod:`~mpc_rr.adversary.designs` -- distinguishing tests (inputs + guess rule)
  for epsilon audits, from structure or by black-box search;
* :mod:`~mpc_rr.adversary.audit` -- empirical epsilon, Clopper-Pearson lower bound
  (Jagielski et al. 2020; LDP-Auditor, Arcolezi & Gambs 2024);
* :mod:`~mpc_rr.adversary.one_run` -- one-run audit (Steinke, Nasr & Jagielski 2023);
* :mod:`~mpc_rr.adversary.traffic` -- sizes, timing and participation seen on the wire;
* :mod:`~mpc_rr.adversary.channels` -- pairwise-RR releases and the view each
  channel (direct, anonymous, secure-sum) delivers;
* :mod:`~mpc_rr.adversary.linkability` -- regrouping pairwise-RR submissions
  (Sec. 4.3), degree of anonymity (Diaz et al. 2002), anonymity set
  (Serjantov & Danezis 2002);
* :mod:`~mpc_rr.adversary.consequences` -- attribute inference, epsilon and
  re-identification through linking.
"""

from mpc_rr.adversary.audit import (
    AuditResult,
    audit,
    audit_curve,
    epsilon_from_precision,
    ldp_auditor_epsilon,
)
from mpc_rr.adversary.consequences import (
    EpsilonConsequence,
    InferenceResult,
    ReidentificationResult,
    attribute_inference,
    epsilon_consequence,
    reidentification,
)
from mpc_rr.adversary.designs import GuessingTest, search_test, structured_test
from mpc_rr.adversary.linkability import (
    CHANNELS,
    ChannelView,
    Grouping,
    LinkabilityResult,
    LinkageRun,
    PairwiseRelease,
    attack,
    evaluate,
    link,
    observe,
    release_pairs,
)
from mpc_rr.adversary.one_run import OneRunResult, one_run_audit
from mpc_rr.adversary.traffic import (
    Activity,
    LeakageResult,
    activity,
    feature_leakage,
    participation_leakage,
    size_leakage,
    timing_leakage,
)

__all__ = [
    "CHANNELS",
    "Activity",
    "AuditResult",
    "ChannelView",
    "EpsilonConsequence",
    "Grouping",
    "GuessingTest",
    "InferenceResult",
    "LeakageResult",
    "LinkabilityResult",
    "LinkageRun",
    "OneRunResult",
    "PairwiseRelease",
    "ReidentificationResult",
    "activity",
    "attack",
    "attribute_inference",
    "audit",
    "audit_curve",
    "epsilon_consequence",
    "epsilon_from_precision",
    "evaluate",
    "feature_leakage",
    "ldp_auditor_epsilon",
    "link",
    "observe",
    "one_run_audit",
    "participation_leakage",
    "reidentification",
    "release_pairs",
    "search_test",
    "size_leakage",
    "structured_test",
    "timing_leakage",
]
