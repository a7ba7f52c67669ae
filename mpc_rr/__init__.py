"""mpc_rr: randomized response and secure aggregation as sans-I/O protocols (the pure library).

Run a job in one call, get a frozen report back (:mod:`mpc_rr.workflows`)::

    import mpc_rr

    report = mpc_rr.run_pipeline("adult", parties=2000, p=0.7, dependence="secure-sum")
    print(report.clusters, report.epsilon["total"], report.relative_error)

    sums = mpc_rr.run_secure_sum("secagg", inputs)       # any registered sum protocol
    mpc_rr.protocol_names(family="sum")                  # which: the registry

* workflows: :func:`run_pipeline` (on a Dataset, a DataFrame-like table, a
  CSV file or ``"adult"``; :func:`as_dataset`), :func:`run_secure_sum`,
  :func:`collect_rrba`, :func:`audit_mechanism` / :func:`audit_pipeline`,
  :func:`eavesdrop`, :func:`coalition` -- each runs on the synchronous harness
  unless given a runner (``parties.runner_for("memory", workers=2)``,
  ``parties.runner_for("tcp")``);
* protocols: :func:`protocol_names`, :func:`get_protocol`,
  :func:`register_protocol`, :class:`ProtocolSpec` (one descriptor each);
* roles and running them: :class:`Role`, :class:`Send`, :class:`Transition`,
  :func:`table`, :class:`AllIn`, :class:`Deadline`, :class:`SubMessage`,
  :data:`COORDINATOR`, :class:`HarnessRunner`, :func:`run_roles`,
  :class:`RunResult`, :class:`Runner`;
* messages and observation: :class:`Message`, :class:`WireArray`,
  :class:`Codec`, :class:`Transcript`, :class:`WireEvent`,
  :class:`CostReport`, :class:`PartyStats`;
* errors: :class:`UsageError`, :class:`PeerError`, :class:`DecodeError`,
  :class:`ProtocolAbort`;
* randomness: :func:`party_generators`, :func:`csprng_generator`.

Packages, by concern (each ``__init__`` is its API): :mod:`~mpc_rr.core`,
:mod:`~mpc_rr.data`, :mod:`~mpc_rr.mechanisms`, :mod:`~mpc_rr.estimation`,
:mod:`~mpc_rr.mdrr`, :mod:`~mpc_rr.secure_sum`, :mod:`~mpc_rr.pipeline`,
:mod:`~mpc_rr.rrba`, :mod:`~mpc_rr.adversary`, :mod:`~mpc_rr.workflows`
(docs/modules.md).  Nothing here opens a socket, reads a clock or awaits.
Names load on first use, so the command line starts fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

_CORE = (
    "COORDINATOR",
    "AllIn",
    "Codec",
    "CostReport",
    "Deadline",
    "DecodeError",
    "HarnessRunner",
    "Message",
    "PartyStats",
    "PeerError",
    "ProtocolAbort",
    "ProtocolSpec",
    "Role",
    "RunResult",
    "Runner",
    "Send",
    "SubMessage",
    "Transcript",
    "Transition",
    "UsageError",
    "WireArray",
    "WireEvent",
    "csprng_generator",
    "get_protocol",
    "party_generators",
    "protocol_names",
    "register_protocol",
    "run_roles",
    "table",
)
_WORKFLOWS = (
    "AttackReport",
    "AuditReport",
    "ErrorTable",
    "MechanismParams",
    "PhaseEpsilons",
    "PipelineReport",
    "RRBACollection",
    "RunOptions",
    "SumReport",
    "as_dataset",
    "audit_mechanism",
    "audit_pipeline",
    "coalition",
    "collect_rrba",
    "eavesdrop",
    "run_pipeline",
    "run_secure_sum",
)

__all__ = [
    "COORDINATOR",
    "AllIn",
    "AttackReport",
    "AuditReport",
    "Codec",
    "CostReport",
    "Deadline",
    "DecodeError",
    "ErrorTable",
    "HarnessRunner",
    "MechanismParams",
    "Message",
    "PartyStats",
    "PeerError",
    "PhaseEpsilons",
    "PipelineReport",
    "ProtocolAbort",
    "ProtocolSpec",
    "RRBACollection",
    "Role",
    "RunOptions",
    "RunResult",
    "Runner",
    "Send",
    "SubMessage",
    "SumReport",
    "Transcript",
    "Transition",
    "UsageError",
    "WireArray",
    "WireEvent",
    "as_dataset",
    "audit_mechanism",
    "audit_pipeline",
    "coalition",
    "collect_rrba",
    "csprng_generator",
    "eavesdrop",
    "get_protocol",
    "party_generators",
    "protocol_names",
    "register_protocol",
    "run_pipeline",
    "run_roles",
    "run_secure_sum",
    "table",
]

__getattr__, __dir__ = lazy_exports(
    "mpc_rr", {**dict.fromkeys(_CORE, "mpc_rr.core"), **dict.fromkeys(_WORKFLOWS, "mpc_rr.workflows")},
    globals(),
)


if TYPE_CHECKING:
    from mpc_rr.core import (
        COORDINATOR,
        AllIn,
        Codec,
        CostReport,
        Deadline,
        DecodeError,
        HarnessRunner,
        Message,
        PartyStats,
        PeerError,
        ProtocolAbort,
        ProtocolSpec,
        Role,
        Runner,
        RunResult,
        Send,
        SubMessage,
        Transcript,
        Transition,
        UsageError,
        WireArray,
        WireEvent,
        csprng_generator,
        get_protocol,
        party_generators,
        protocol_names,
        register_protocol,
        run_roles,
        table,
    )
    from mpc_rr.workflows import (
        AttackReport,
        AuditReport,
        ErrorTable,
        MechanismParams,
        PhaseEpsilons,
        PipelineReport,
        RRBACollection,
        RunOptions,
        SumReport,
        as_dataset,
        audit_mechanism,
        audit_pipeline,
        coalition,
        collect_rrba,
        eavesdrop,
        run_pipeline,
        run_secure_sum,
    )
