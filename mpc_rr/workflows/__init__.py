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

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "AttackReport",
    "AuditReport",
    "ErrorTable",
    "HarnessNetwork",
    "MechanismParams",
    "ObservedNetwork",
    "PhaseEpsilons",
    "PipelineReport",
    "PlanSolution",
    "PrivacyPlan",
    "RRBACollection",
    "RunAborted",
    "RunOptions",
    "SumReport",
    "as_dataset",
    "audit_ledger",
    "audit_mechanism",
    "audit_pipeline",
    "coalition",
    "collect_rrba",
    "eavesdrop",
    "eavesdrop_protocols",
    "exact_bivariate_counts",
    "observed_run",
    "plan_privacy",
    "register_observed_run",
    "rrba_crowds",
    "run_pipeline",
    "run_secure_sum",
]

_HOME = {
    "AttackReport": "mpc_rr.workflows._api",
    "PipelineReport": "mpc_rr.workflows._api",
    "as_dataset": "mpc_rr.workflows._api",
    "coalition": "mpc_rr.workflows._api",
    "eavesdrop": "mpc_rr.workflows._api",
    "run_pipeline": "mpc_rr.workflows._api",
    "AuditReport": "mpc_rr.workflows._audit",
    "MechanismParams": "mpc_rr.workflows._audit",
    "audit_mechanism": "mpc_rr.workflows._audit",
    "audit_pipeline": "mpc_rr.workflows._audit",
    "audit_ledger": "mpc_rr.workflows._ledger_audit",
    "HarnessNetwork": "mpc_rr.workflows._observed",
    "ObservedNetwork": "mpc_rr.workflows._observed",
    "observed_run": "mpc_rr.workflows._observed",
    "eavesdrop_protocols": "mpc_rr.workflows._observed_runs",
    "register_observed_run": "mpc_rr.workflows._observed_runs",
    "RunAborted": "mpc_rr.workflows._pipeline",
    "RunOptions": "mpc_rr.workflows._pipeline",
    "PlanSolution": "mpc_rr.workflows._privacy",
    "PrivacyPlan": "mpc_rr.workflows._privacy",
    "plan_privacy": "mpc_rr.workflows._privacy",
    "rrba_crowds": "mpc_rr.workflows._privacy",
    "RRBACollection": "mpc_rr.workflows._rrba",
    "collect_rrba": "mpc_rr.workflows._rrba",
    "SumReport": "mpc_rr.workflows._secure_sum",
    "exact_bivariate_counts": "mpc_rr.workflows._secure_sum",
    "run_secure_sum": "mpc_rr.workflows._secure_sum",
    "ErrorTable": "mpc_rr.workflows._tables",
    "PhaseEpsilons": "mpc_rr.workflows._tables",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.workflows._api import (
        AttackReport,
        PipelineReport,
        as_dataset,
        coalition,
        eavesdrop,
        run_pipeline,
    )
    from mpc_rr.workflows._audit import (
        AuditReport,
        MechanismParams,
        audit_mechanism,
        audit_pipeline,
    )
    from mpc_rr.workflows._ledger_audit import (
        audit_ledger,
    )
    from mpc_rr.workflows._observed import (
        HarnessNetwork,
        ObservedNetwork,
        observed_run,
    )
    from mpc_rr.workflows._observed_runs import (
        eavesdrop_protocols,
        register_observed_run,
    )
    from mpc_rr.workflows._pipeline import (
        RunAborted,
        RunOptions,
    )
    from mpc_rr.workflows._privacy import (
        PlanSolution,
        PrivacyPlan,
        plan_privacy,
        rrba_crowds,
    )
    from mpc_rr.workflows._rrba import (
        RRBACollection,
        collect_rrba,
    )
    from mpc_rr.workflows._secure_sum import (
        SumReport,
        exact_bivariate_counts,
        run_secure_sum,
    )
    from mpc_rr.workflows._tables import (
        ErrorTable,
        PhaseEpsilons,
    )
