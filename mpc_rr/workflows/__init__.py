"""The workflows a researcher runs, as functions returning frozen, typed results.

Each takes its data and parameters, runs the protocol with a
:class:`~mpc_rr.core.Runner` -- by default the synchronous harness, in this
process, no transport; pass ``parties.runner_for("memory", workers=2)`` or
``parties.runner_for("tcp")`` to run it over a real transport -- and returns
what the command line prints (``mpc-rr`` is a thin layer over these):

* :func:`run_pipeline` -- the distributed RR-Clusters pipeline on a data set
  (a :class:`~mpc_rr.data.Dataset`, a DataFrame-like table, a CSV file or
  ``"adult"``), evaluated against the true records (``mpc-rr run``);
* :func:`run_secure_sum` -- one secure sum of any registered sum protocol,
  checked against the plaintext sum (``mpc-rr secure-sum``);
* :func:`collect_rrba` -- one RRBA collection, centralized or distributed,
  summarized (``mpc-rr rrba``);
* :func:`audit_mechanism` -- the empirical epsilon of a mechanism by name
  (``mpc-rr audit``);
* :func:`observed_run`, :func:`eavesdrop_report`, :func:`coalition_report`,
  :func:`offline_report` -- what an eavesdropper or a coalition learns from
  a real run (``mpc-rr attack``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

__all__ = [
    "AUDIT_MECHANISMS",
    "DIRECT_VALIDITY",
    "MAX_AUDIT_K",
    "WORSE_BY",
    "AttackReport",
    "AuditReport",
    "BivariateCounts",
    "Built",
    "ErrorTable",
    "Evaluation",
    "Execution",
    "HarnessNetwork",
    "MechanismParams",
    "ObservedNetwork",
    "ObservedRun",
    "PairwiseCounts",
    "PhaseEpsilons",
    "PipelineReport",
    "PlanSolution",
    "PrivacyPlan",
    "RRBACollection",
    "RunAborted",
    "RunOptions",
    "RunnerFactory",
    "SumReport",
    "adjustment_checks",
    "all_message_types",
    "as_dataset",
    "audit_ledger",
    "audit_mechanism",
    "audit_phase",
    "audit_pipeline",
    "build_mechanism",
    "central_curve",
    "channel_assumption",
    "coalition",
    "coalition_report",
    "collect_rrba",
    "curve_points",
    "default_max_corrupt",
    "eavesdrop",
    "eavesdrop_protocols",
    "eavesdrop_report",
    "evaluate",
    "exact_bivariate_counts",
    "execute",
    "keep_probability",
    "ledger_curve",
    "ledger_json",
    "local_epsilon",
    "marginal_errors",
    "observed_run",
    "observed_run_of",
    "offline_report",
    "one_hot_inputs",
    "pairwise_rr_counts",
    "pipeline_ledger",
    "pipeline_run",
    "pipeline_validity",
    "plan_privacy",
    "register_observed_run",
    "rrba_crowds",
    "rrba_ledger",
    "rrba_run",
    "rrba_sent_table",
    "rrba_validity",
    "run_and_evaluate",
    "run_ledger",
    "run_pipeline",
    "run_secure_sum",
    "sum_assumption",
    "sum_channel",
    "sum_validity",
    "summarize",
    "to_json",
    "validity_lines",
]

_HOME = {
    "channel_assumption": "mpc_rr.workflows._privacy",
    "default_max_corrupt": "mpc_rr.workflows._privacy",
    "sum_assumption": "mpc_rr.workflows._privacy",
    "DIRECT_VALIDITY": "mpc_rr.workflows._validity",
    "pipeline_validity": "mpc_rr.workflows._validity",
    "rrba_validity": "mpc_rr.workflows._validity",
    "sum_validity": "mpc_rr.workflows._validity",
    "validity_lines": "mpc_rr.workflows._validity",
    "register_observed_run": "mpc_rr.workflows._observed_runs",
    "observed_run_of": "mpc_rr.workflows._observed_runs",
    "eavesdrop_protocols": "mpc_rr.workflows._observed_runs",
    "AUDIT_MECHANISMS": "mpc_rr.workflows._audit",
    "AttackReport": "mpc_rr.workflows._api",
    "AuditReport": "mpc_rr.workflows._audit",
    "BivariateCounts": "mpc_rr.workflows._secure_sum",
    "Built": "mpc_rr.workflows._audit",
    "ErrorTable": "mpc_rr.workflows._tables",
    "Evaluation": "mpc_rr.workflows._pipeline",
    "Execution": "mpc_rr.workflows._pipeline",
    "HarnessNetwork": "mpc_rr.workflows._observed",
    "MAX_AUDIT_K": "mpc_rr.workflows._ledger_audit",
    "MechanismParams": "mpc_rr.workflows._audit",
    "ObservedNetwork": "mpc_rr.workflows._observed",
    "ObservedRun": "mpc_rr.workflows._observed",
    "PairwiseCounts": "mpc_rr.workflows._secure_sum",
    "PhaseEpsilons": "mpc_rr.workflows._tables",
    "PipelineReport": "mpc_rr.workflows._api",
    "PlanSolution": "mpc_rr.workflows._privacy",
    "PrivacyPlan": "mpc_rr.workflows._privacy",
    "RRBACollection": "mpc_rr.workflows._rrba",
    "RunAborted": "mpc_rr.workflows._pipeline",
    "RunOptions": "mpc_rr.workflows._pipeline",
    "RunnerFactory": "mpc_rr.workflows._rrba",
    "SumReport": "mpc_rr.workflows._secure_sum",
    "WORSE_BY": "mpc_rr.workflows._adjustment_checks",
    "adjustment_checks": "mpc_rr.workflows._adjustment_checks",
    "all_message_types": "mpc_rr.workflows._attack_reports",
    "as_dataset": "mpc_rr.workflows._api",
    "audit_ledger": "mpc_rr.workflows._ledger_audit",
    "audit_mechanism": "mpc_rr.workflows._audit",
    "audit_phase": "mpc_rr.workflows._ledger_audit",
    "audit_pipeline": "mpc_rr.workflows._audit",
    "build_mechanism": "mpc_rr.workflows._audit",
    "central_curve": "mpc_rr.workflows._privacy",
    "coalition": "mpc_rr.workflows._api",
    "coalition_report": "mpc_rr.workflows._attack_reports",
    "collect_rrba": "mpc_rr.workflows._rrba",
    "curve_points": "mpc_rr.workflows._audit",
    "eavesdrop": "mpc_rr.workflows._api",
    "eavesdrop_report": "mpc_rr.workflows._attack_reports",
    "evaluate": "mpc_rr.workflows._pipeline",
    "exact_bivariate_counts": "mpc_rr.workflows._secure_sum",
    "execute": "mpc_rr.workflows._pipeline",
    "ledger_json": "mpc_rr.workflows._pipeline",
    "keep_probability": "mpc_rr.workflows._privacy",
    "ledger_curve": "mpc_rr.workflows._privacy",
    "local_epsilon": "mpc_rr.workflows._privacy",
    "marginal_errors": "mpc_rr.workflows._rrba",
    "observed_run": "mpc_rr.workflows._observed",
    "offline_report": "mpc_rr.workflows._attack_reports",
    "one_hot_inputs": "mpc_rr.workflows._observed",
    "pairwise_rr_counts": "mpc_rr.workflows._secure_sum",
    "pipeline_ledger": "mpc_rr.workflows._privacy",
    "pipeline_run": "mpc_rr.workflows._observed",
    "plan_privacy": "mpc_rr.workflows._privacy",
    "rrba_crowds": "mpc_rr.workflows._privacy",
    "rrba_ledger": "mpc_rr.workflows._privacy",
    "rrba_run": "mpc_rr.workflows._observed",
    "rrba_sent_table": "mpc_rr.workflows._audit",
    "run_and_evaluate": "mpc_rr.workflows._pipeline",
    "run_ledger": "mpc_rr.workflows._pipeline",
    "run_pipeline": "mpc_rr.workflows._api",
    "run_secure_sum": "mpc_rr.workflows._secure_sum",
    "sum_channel": "mpc_rr.workflows._privacy",
    "summarize": "mpc_rr.workflows._rrba",
    "to_json": "mpc_rr.workflows._pipeline",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.workflows._adjustment_checks import WORSE_BY, adjustment_checks
    from mpc_rr.workflows._api import (
        AttackReport,
        PipelineReport,
        as_dataset,
        coalition,
        eavesdrop,
        run_pipeline,
    )
    from mpc_rr.workflows._attack_reports import (
        all_message_types,
        coalition_report,
        eavesdrop_report,
        offline_report,
    )
    from mpc_rr.workflows._audit import (
        AUDIT_MECHANISMS,
        AuditReport,
        Built,
        MechanismParams,
        audit_mechanism,
        audit_pipeline,
        build_mechanism,
        curve_points,
        rrba_sent_table,
    )
    from mpc_rr.workflows._ledger_audit import (
        MAX_AUDIT_K,
        audit_ledger,
        audit_phase,
    )
    from mpc_rr.workflows._observed import (
        HarnessNetwork,
        ObservedNetwork,
        ObservedRun,
        observed_run,
        one_hot_inputs,
        pipeline_run,
        rrba_run,
    )
    from mpc_rr.workflows._observed_runs import (
        eavesdrop_protocols,
        observed_run_of,
        register_observed_run,
    )
    from mpc_rr.workflows._pipeline import (
        Evaluation,
        Execution,
        RunAborted,
        RunOptions,
        evaluate,
        execute,
        ledger_json,
        run_and_evaluate,
        run_ledger,
        to_json,
    )
    from mpc_rr.workflows._privacy import (
        PlanSolution,
        PrivacyPlan,
        central_curve,
        channel_assumption,
        default_max_corrupt,
        keep_probability,
        ledger_curve,
        local_epsilon,
        pipeline_ledger,
        plan_privacy,
        rrba_crowds,
        rrba_ledger,
        sum_assumption,
        sum_channel,
    )
    from mpc_rr.workflows._rrba import (
        RRBACollection,
        RunnerFactory,
        collect_rrba,
        marginal_errors,
        summarize,
    )
    from mpc_rr.workflows._secure_sum import (
        BivariateCounts,
        PairwiseCounts,
        SumReport,
        exact_bivariate_counts,
        pairwise_rr_counts,
        run_secure_sum,
    )
    from mpc_rr.workflows._tables import ErrorTable, PhaseEpsilons
    from mpc_rr.workflows._validity import (
        DIRECT_VALIDITY,
        pipeline_validity,
        rrba_validity,
        sum_validity,
        validity_lines,
    )
