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
    "COORDINATOR",
    "AllIn",
    "Codec",
    "CostReport",
    "Deadline",
    "DecodeError",
    "DropAt",
    "DropPlan",
    "DropPoint",
    "HarnessRunner",
    "Message",
    "MissingExtra",
    "PartyStats",
    "PeerError",
    "ProtocolAbort",
    "ProtocolSpec",
    "RegisteredProtocol",
    "Role",
    "RolePlan",
    "RunResult",
    "Runner",
    "Send",
    "SubMessage",
    "SubProtocol",
    "SubProtocolHost",
    "Transcript",
    "Transition",
    "UsageError",
    "View",
    "WireArray",
    "WireEvent",
    "csprng_generator",
    "get_protocol",
    "observe",
    "party_generators",
    "protocol_names",
    "protocols",
    "register_protocol",
    "require_extra",
    "run_roles",
    "state_diagram",
    "table",
    "unregister_protocol",
]

_HOME = {
    "View": "mpc_rr.core._views",
    "observe": "mpc_rr.core._views",
    "RolePlan": "mpc_rr.core._runs",
    "SubProtocolHost": "mpc_rr.core._compose",
    "SubProtocol": "mpc_rr.core._compose",
    "CostReport": "mpc_rr.core._costs",
    "PartyStats": "mpc_rr.core._costs",
    "DecodeError": "mpc_rr.core._errors",
    "PeerError": "mpc_rr.core._errors",
    "ProtocolAbort": "mpc_rr.core._errors",
    "UsageError": "mpc_rr.core._errors",
    "MissingExtra": "mpc_rr.core._extras",
    "require_extra": "mpc_rr.core._extras",
    "DropAt": "mpc_rr.core._faults",
    "DropPlan": "mpc_rr.core._faults",
    "DropPoint": "mpc_rr.core._faults",
    "HarnessRunner": "mpc_rr.core._harness",
    "run_roles": "mpc_rr.core._harness",
    "Codec": "mpc_rr.core._messages",
    "Message": "mpc_rr.core._messages",
    "WireArray": "mpc_rr.core._messages",
    "csprng_generator": "mpc_rr.core._randomness",
    "party_generators": "mpc_rr.core._randomness",
    "ProtocolSpec": "mpc_rr.core._registry",
    "RegisteredProtocol": "mpc_rr.core._registry",
    "get_protocol": "mpc_rr.core._registry",
    "protocol_names": "mpc_rr.core._registry",
    "protocols": "mpc_rr.core._registry",
    "register_protocol": "mpc_rr.core._registry",
    "unregister_protocol": "mpc_rr.core._registry",
    "AllIn": "mpc_rr.core._roles",
    "COORDINATOR": "mpc_rr.core._roles",
    "Deadline": "mpc_rr.core._roles",
    "Role": "mpc_rr.core._roles",
    "Send": "mpc_rr.core._roles",
    "SubMessage": "mpc_rr.core._roles",
    "Transition": "mpc_rr.core._roles",
    "state_diagram": "mpc_rr.core._roles",
    "table": "mpc_rr.core._roles",
    "RunResult": "mpc_rr.core._runs",
    "Runner": "mpc_rr.core._runs",
    "Transcript": "mpc_rr.core._transcript",
    "WireEvent": "mpc_rr.core._transcript",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.core._compose import SubProtocol, SubProtocolHost
    from mpc_rr.core._costs import (
        CostReport,
        PartyStats,
    )
    from mpc_rr.core._errors import (
        DecodeError,
        PeerError,
        ProtocolAbort,
        UsageError,
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
    from mpc_rr.core._harness import (
        HarnessRunner,
        run_roles,
    )
    from mpc_rr.core._messages import (
        Codec,
        Message,
        WireArray,
    )
    from mpc_rr.core._randomness import (
        csprng_generator,
        party_generators,
    )
    from mpc_rr.core._registry import (
        ProtocolSpec,
        RegisteredProtocol,
        get_protocol,
        protocol_names,
        protocols,
        register_protocol,
        unregister_protocol,
    )
    from mpc_rr.core._roles import (
        COORDINATOR,
        AllIn,
        Deadline,
        Role,
        Send,
        SubMessage,
        Transition,
        state_diagram,
        table,
    )
    from mpc_rr.core._runs import (
        RolePlan,
        Runner,
        RunResult,
    )
    from mpc_rr.core._transcript import (
        Transcript,
        WireEvent,
    )
    from mpc_rr.core._views import View, observe
