"""The core of every protocol: roles, messages, runs, costs, transcripts, randomness, errors.

Nothing here knows a protocol.  It defines how one is written and run:

* roles -- :class:`Role`, the sans-I/O state machine (``start`` / ``receive`` /
  ``on_timeout``), its transition :func:`table` and pseudo-events
  (:class:`AllIn`, :class:`Deadline`, :class:`SubMessage`), :class:`Send`;
* composition -- :class:`SubProtocol` (one role run inside another);
* messages -- :class:`Message`, :class:`WireArray` and the strict :class:`Codec`;
* runs -- :class:`Runner`, :class:`RolePlan`, :class:`RunResult`,
  :class:`RegisteredProtocol`, :class:`ProtocolSpec`; the synchronous :class:`HarnessRunner` (no transport);
* observation -- :class:`Transcript` / :class:`WireEvent` (what a wire observer
  records), :func:`observe` / :class:`View` (the messages an observer can decode),
  :class:`CostReport` / :class:`PartyStats`;
* randomness -- :func:`party_generators` (one seed, every party), :func:`csprng_generator`;
* faults -- :class:`DropAt` / :class:`DropPlan` (a party crashes at a chosen step);
* extras -- :func:`require_extra` (an optional extra's module, or the pip command);
* errors -- :class:`UsageError` (our caller's fault), :class:`PeerError` /
  :class:`DecodeError` (a peer's), :class:`ProtocolAbort` (a clean stop).

Every other package of :mod:`mpc_rr` builds on this one and nothing here
imports them (the layer contracts in ``pyproject.toml``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "BUILTIN",
    "COORDINATOR",
    "DEFAULT_MAX_FRAME",
    "MAX_LABEL",
    "NOBODY",
    "ONLY_COORDINATOR",
    "RELAY",
    "TRANSCRIPT_FORMAT",
    "WIRE_VERSION",
    "AllIn",
    "Codec",
    "CoordinatorPart",
    "CostReport",
    "Deadline",
    "DecodeError",
    "DropAt",
    "DropPlan",
    "DropPoint",
    "ErrorLog",
    "Event",
    "Handler",
    "HarnessRunner",
    "IdMask",
    "Message",
    "MissingExtra",
    "NoOptions",
    "OutcomeTable",
    "PartTally",
    "PartyStats",
    "PeerError",
    "Progress",
    "ProtocolAbort",
    "ProtocolSpec",
    "RegisteredProtocol",
    "Role",
    "RoleFactory",
    "RoleOutcome",
    "RolePlan",
    "RunResult",
    "Runner",
    "Seen",
    "Send",
    "SpecPlan",
    "StatsColumns",
    "StatsTable",
    "SubMessage",
    "SubProtocol",
    "SubProtocolHost",
    "Transcript",
    "Transition",
    "UsageError",
    "View",
    "WireArray",
    "WireEvent",
    "blame_json",
    "broadcast",
    "codec_for_roles",
    "csprng_generator",
    "each",
    "get_protocol",
    "lazy",
    "lazy_exports",
    "message_type",
    "message_types",
    "noise_source",
    "observe",
    "option_flag",
    "party_generators",
    "protocol_names",
    "protocols",
    "register_protocol",
    "require_extra",
    "result_to_json",
    "roles_of",
    "run_roles",
    "simulation_gc",
    "state_diagram",
    "sub_protocol_steps",
    "table",
    "unregister_protocol",
]

_HOME = {
    "AllIn": "mpc_rr.core._roles",
    "BUILTIN": "mpc_rr.core._registry",
    "COORDINATOR": "mpc_rr.core._roles",
    "Codec": "mpc_rr.core._messages",
    "CoordinatorPart": "mpc_rr.core._parts",
    "CostReport": "mpc_rr.core._costs",
    "DEFAULT_MAX_FRAME": "mpc_rr.core._messages",
    "Deadline": "mpc_rr.core._roles",
    "DecodeError": "mpc_rr.core._errors",
    "DropAt": "mpc_rr.core._faults",
    "DropPlan": "mpc_rr.core._faults",
    "DropPoint": "mpc_rr.core._faults",
    "ErrorLog": "mpc_rr.core._errors",
    "Event": "mpc_rr.core._roles",
    "Handler": "mpc_rr.core._roles",
    "HarnessRunner": "mpc_rr.core._harness",
    "IdMask": "mpc_rr.core._id_mask",
    "MAX_LABEL": "mpc_rr.core._messages",
    "Message": "mpc_rr.core._messages",
    "MissingExtra": "mpc_rr.core._extras",
    "NOBODY": "mpc_rr.core._roles",
    "NoOptions": "mpc_rr.core._registry",
    "ONLY_COORDINATOR": "mpc_rr.core._roles",
    "OutcomeTable": "mpc_rr.core._outcome_table",
    "PartTally": "mpc_rr.core._parts",
    "PartyStats": "mpc_rr.core._costs",
    "PeerError": "mpc_rr.core._errors",
    "Progress": "mpc_rr.core._runs",
    "ProtocolAbort": "mpc_rr.core._errors",
    "ProtocolSpec": "mpc_rr.core._registry",
    "RegisteredProtocol": "mpc_rr.core._registry",
    "RELAY": "mpc_rr.core._errors",
    "Role": "mpc_rr.core._roles",
    "RoleFactory": "mpc_rr.core._registry",
    "RoleOutcome": "mpc_rr.core._runs",
    "RolePlan": "mpc_rr.core._runs",
    "RunResult": "mpc_rr.core._runs",
    "Runner": "mpc_rr.core._runs",
    "Seen": "mpc_rr.core._views",
    "Send": "mpc_rr.core._roles",
    "SpecPlan": "mpc_rr.core._runs",
    "StatsColumns": "mpc_rr.core._stats_table",
    "StatsTable": "mpc_rr.core._stats_table",
    "SubMessage": "mpc_rr.core._roles",
    "SubProtocol": "mpc_rr.core._compose",
    "SubProtocolHost": "mpc_rr.core._compose",
    "TRANSCRIPT_FORMAT": "mpc_rr.core._transcript",
    "Transcript": "mpc_rr.core._transcript",
    "Transition": "mpc_rr.core._roles",
    "UsageError": "mpc_rr.core._errors",
    "View": "mpc_rr.core._views",
    "WIRE_VERSION": "mpc_rr.core._messages",
    "WireArray": "mpc_rr.core._messages",
    "WireEvent": "mpc_rr.core._transcript",
    "blame_json": "mpc_rr.core._errors",
    "broadcast": "mpc_rr.core._roles",
    "codec_for_roles": "mpc_rr.core._harness",
    "csprng_generator": "mpc_rr.core._randomness",
    "each": "mpc_rr.core._roles",
    "get_protocol": "mpc_rr.core._registry",
    "lazy": "mpc_rr.core._registry",
    "lazy_exports": "mpc_rr.core._lazy",
    "message_type": "mpc_rr.core._messages",
    "message_types": "mpc_rr.core._views",
    "noise_source": "mpc_rr.core._randomness",
    "observe": "mpc_rr.core._views",
    "option_flag": "mpc_rr.core._registry",
    "require_extra": "mpc_rr.core._extras",
    "party_generators": "mpc_rr.core._randomness",
    "protocol_names": "mpc_rr.core._registry",
    "protocols": "mpc_rr.core._registry",
    "register_protocol": "mpc_rr.core._registry",
    "result_to_json": "mpc_rr.core._registry",
    "roles_of": "mpc_rr.core._runs",
    "run_roles": "mpc_rr.core._harness",
    "simulation_gc": "mpc_rr.core._gc",
    "state_diagram": "mpc_rr.core._roles",
    "sub_protocol_steps": "mpc_rr.core._compose",
    "table": "mpc_rr.core._roles",
    "unregister_protocol": "mpc_rr.core._registry",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.core._compose import (
        SubProtocol,
        SubProtocolHost,
        sub_protocol_steps,
    )
    from mpc_rr.core._costs import (
        CostReport,
        PartyStats,
    )
    from mpc_rr.core._errors import (
        RELAY,
        DecodeError,
        ErrorLog,
        PeerError,
        ProtocolAbort,
        UsageError,
        blame_json,
    )
    from mpc_rr.core._extras import (
        MissingExtra,
        require_extra,
    )
    from mpc_rr.core._faults import (
        DropAt,
        DropPlan,
        DropPoint,
    )
    from mpc_rr.core._gc import (
        simulation_gc,
    )
    from mpc_rr.core._harness import (
        HarnessRunner,
        codec_for_roles,
        run_roles,
    )
    from mpc_rr.core._id_mask import (
        IdMask,
    )
    from mpc_rr.core._lazy import (
        lazy_exports,
    )
    from mpc_rr.core._messages import (
        DEFAULT_MAX_FRAME,
        MAX_LABEL,
        WIRE_VERSION,
        Codec,
        Message,
        WireArray,
        message_type,
    )
    from mpc_rr.core._outcome_table import (
        OutcomeTable,
    )
    from mpc_rr.core._parts import (
        CoordinatorPart,
        PartTally,
    )
    from mpc_rr.core._randomness import (
        csprng_generator,
        noise_source,
        party_generators,
    )
    from mpc_rr.core._registry import (
        BUILTIN,
        NoOptions,
        ProtocolSpec,
        RegisteredProtocol,
        RoleFactory,
        get_protocol,
        lazy,
        option_flag,
        protocol_names,
        protocols,
        register_protocol,
        result_to_json,
        unregister_protocol,
    )
    from mpc_rr.core._roles import (
        COORDINATOR,
        NOBODY,
        ONLY_COORDINATOR,
        AllIn,
        Deadline,
        Event,
        Handler,
        Role,
        Send,
        SubMessage,
        Transition,
        broadcast,
        each,
        state_diagram,
        table,
    )
    from mpc_rr.core._runs import (
        Progress,
        RoleOutcome,
        RolePlan,
        Runner,
        RunResult,
        SpecPlan,
        roles_of,
    )
    from mpc_rr.core._stats_table import (
        StatsColumns,
        StatsTable,
    )
    from mpc_rr.core._transcript import (
        TRANSCRIPT_FORMAT,
        Transcript,
        WireEvent,
    )
    from mpc_rr.core._views import (
        Seen,
        View,
        message_types,
        observe,
    )
