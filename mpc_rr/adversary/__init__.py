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
  re-identification through linking;
* :mod:`~mpc_rr.adversary.views` -- the decoded messages an observer holds
  (a hub, the aggregator, a coalition);
* :mod:`~mpc_rr.adversary.eavesdrop` -- who took part and when, size census,
  one link's share of a hub transcript;
* :mod:`~mpc_rr.adversary.inference` -- Bayes-optimal inference of true values
  from the randomized records an eavesdropper reads;
* :mod:`~mpc_rr.adversary.recovery` -- input recovery by the curious
  aggregator, coalitions and a plaintext hub in the secure sums;
* :mod:`~mpc_rr.adversary.rrba_audit` -- the RRBA client audited at its table;
* :mod:`~mpc_rr.adversary.pipeline_audit` -- the pipeline's per-party output,
  end to end, one-run audit;
* :mod:`~mpc_rr.adversary.broken` -- protocols broken on purpose (planted
  leaks for tests and benchmarks; never used by the product's runs).
"""

from mpc_rr.adversary.audit import (
    AuditResult,
    audit,
    audit_curve,
    epsilon_from_precision,
    ldp_auditor_epsilon,
)
from mpc_rr.adversary.coalitions import coalition_sweep, score
from mpc_rr.adversary.consequences import (
    EpsilonConsequence,
    InferenceResult,
    ReidentificationResult,
    attribute_inference,
    epsilon_consequence,
    reidentification,
)
from mpc_rr.adversary.designs import GuessingTest, search_test, structured_test
from mpc_rr.adversary.eavesdrop import (
    Participation,
    SizeCensus,
    on_link,
    participation,
    size_census,
)
from mpc_rr.adversary.inference import (
    AttributeInference,
    Observation,
    bayes_inference,
    pipeline_observations,
)
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
from mpc_rr.adversary.pipeline_audit import PipelineAuditResult, pipeline_audit
from mpc_rr.adversary.recovery import (
    MemberState,
    Recovery,
    RecoveryResult,
    SecAggView,
    member_state,
    recover,
)
from mpc_rr.adversary.rrba_audit import RRBAClientMechanism, smallest_cell_test
from mpc_rr.adversary.traffic import (
    Activity,
    LeakageResult,
    activity,
    feature_leakage,
    participation_leakage,
    size_leakage,
    timing_leakage,
)
from mpc_rr.adversary.views import Seen, View

__all__ = [
    "CHANNELS",
    "Activity",
    "AttributeInference",
    "AuditResult",
    "ChannelView",
    "EpsilonConsequence",
    "Grouping",
    "GuessingTest",
    "InferenceResult",
    "LeakageResult",
    "LinkabilityResult",
    "LinkageRun",
    "MemberState",
    "Observation",
    "OneRunResult",
    "PairwiseRelease",
    "Participation",
    "PipelineAuditResult",
    "RRBAClientMechanism",
    "Recovery",
    "RecoveryResult",
    "ReidentificationResult",
    "SecAggView",
    "Seen",
    "SizeCensus",
    "View",
    "activity",
    "attack",
    "attribute_inference",
    "audit",
    "audit_curve",
    "bayes_inference",
    "coalition_sweep",
    "epsilon_consequence",
    "epsilon_from_precision",
    "evaluate",
    "feature_leakage",
    "ldp_auditor_epsilon",
    "link",
    "member_state",
    "observe",
    "on_link",
    "one_run_audit",
    "participation",
    "participation_leakage",
    "pipeline_audit",
    "pipeline_observations",
    "recover",
    "reidentification",
    "release_pairs",
    "score",
    "search_test",
    "size_census",
    "size_leakage",
    "smallest_cell_test",
    "structured_test",
    "timing_leakage",
]
