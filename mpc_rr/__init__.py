"""mpc_rr: randomized response and secure aggregation as sans-I/O protocols (the pure library).

Run a job in one call, get a frozen report back (:mod:`mpc_rr.workflows`)::

    import mpc_rr

    report = mpc_rr.run_pipeline("adult", parties=2000, p=0.7, dependence="secure-sum")
    print(report.clusters, report.epsilon["total"], report.relative_error)

    sums = mpc_rr.run_secure_sum("secagg", inputs)       # any registered sum protocol
    mpc_rr.protocol_names(family="sum")                  # which: the registry

* jobs: :func:`run_pipeline` (on a Dataset, a DataFrame-like table, a
  CSV file or ``"adult"``; :func:`as_dataset`), :func:`run_secure_sum`,
  :func:`collect_rrba`, :func:`audit_mechanism` / :func:`audit_pipeline`,
  :func:`eavesdrop`, :func:`coalition`, :func:`plan_privacy` -- each runs on the
  synchronous harness unless given a runner (``parties.runner_for("memory", workers=2)``,
  ``parties.runner_for("tcp")``);
* their options and reports: :class:`RunOptions`, :class:`MechanismParams`,
  :class:`PipelineReport` (:class:`PhaseEpsilons`, :class:`ErrorTable`),
  :class:`SumReport`, :class:`RRBACollection`, :class:`AuditReport`,
  :class:`AttackReport`;
* protocols: :func:`protocol_names`, :func:`get_protocol`, :func:`register_protocol`;
* errors: :class:`UsageError` (a caller's mistake), :class:`ProtocolAbort`.

Writing a protocol -- roles, messages, running them -- is :mod:`mpc_rr.core`.

Packages, by concern (each ``__init__`` is its API): :mod:`~mpc_rr.core`,
:mod:`~mpc_rr.data`, :mod:`~mpc_rr.mechanisms`, :mod:`~mpc_rr.estimation`,
:mod:`~mpc_rr.mdrr`, :mod:`~mpc_rr.secure_sum`, :mod:`~mpc_rr.pipeline`,
:mod:`~mpc_rr.rrba`, :mod:`~mpc_rr.adversary`, :mod:`~mpc_rr.workflows`
(docs/modules.md).  Nothing here opens a socket, reads a clock or awaits.
Names load on first use, so the command line starts fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "AttackReport",
    "AuditReport",
    "ErrorTable",
    "MechanismParams",
    "PhaseEpsilons",
    "PipelineReport",
    "ProtocolAbort",
    "RRBACollection",
    "RunOptions",
    "SumReport",
    "UsageError",
    "as_dataset",
    "audit_mechanism",
    "audit_pipeline",
    "coalition",
    "collect_rrba",
    "eavesdrop",
    "get_protocol",
    "plan_privacy",
    "protocol_names",
    "register_protocol",
    "run_pipeline",
    "run_secure_sum",
]

_HOME = {
    "ProtocolAbort": "mpc_rr.core._errors",
    "UsageError": "mpc_rr.core._errors",
    "get_protocol": "mpc_rr.core._registry",
    "protocol_names": "mpc_rr.core._registry",
    "register_protocol": "mpc_rr.core._registry",
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
    "RunOptions": "mpc_rr.workflows._pipeline",
    "plan_privacy": "mpc_rr.workflows._privacy",
    "RRBACollection": "mpc_rr.workflows._rrba",
    "collect_rrba": "mpc_rr.workflows._rrba",
    "SumReport": "mpc_rr.workflows._secure_sum",
    "run_secure_sum": "mpc_rr.workflows._secure_sum",
    "ErrorTable": "mpc_rr.workflows._tables",
    "PhaseEpsilons": "mpc_rr.workflows._tables",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.core._errors import (
        ProtocolAbort,
        UsageError,
    )
    from mpc_rr.core._registry import (
        get_protocol,
        protocol_names,
        register_protocol,
    )
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
    from mpc_rr.workflows._pipeline import (
        RunOptions,
    )
    from mpc_rr.workflows._privacy import (
        plan_privacy,
    )
    from mpc_rr.workflows._rrba import (
        RRBACollection,
        collect_rrba,
    )
    from mpc_rr.workflows._secure_sum import (
        SumReport,
        run_secure_sum,
    )
    from mpc_rr.workflows._tables import (
        ErrorTable,
        PhaseEpsilons,
    )
