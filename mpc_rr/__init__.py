"""mpc_rr: randomized response and secure aggregation as sans-I/O protocols (the pure library).

Nothing here opens a socket, reads a clock or awaits: protocol roles are
state machines (:mod:`mpc_rr.core._roles`), run by the synchronous harness here or by
the Party actors of ``parties`` over the transports of ``transports``.

The public API, importable from ``mpc_rr`` directly (loaded lazily, so the
command line starts fast):

* roles and running them: :class:`Role`, :class:`Send`, :class:`Transition`,
  :func:`table`, :class:`AllIn`, :class:`Deadline`, :class:`SubMessage`,
  :data:`COORDINATOR`, :class:`HarnessRunner`, :func:`run_roles`,
  :class:`RunResult`, :class:`Runner`, :class:`ProtocolSpec`;
* messages and observation: :class:`Message`, :class:`WireArray`,
  :class:`Codec`, :class:`Transcript`, :class:`WireEvent`,
  :class:`CostReport`, :class:`PartyStats`;
* errors: :class:`UsageError`, :class:`PeerError`, :class:`DecodeError`,
  :class:`ProtocolAbort`;
* randomness: :func:`party_generators`, :func:`csprng_generator`.

Subpackages: :mod:`mpc_rr.secure_sum` (Sec. 4.2 full mesh, SecAgg+),
:mod:`mpc_rr.pipeline` (the distributed RR-Clusters pipeline); the RR math
lives in the top-level modules (mechanisms, estimation, clustering, ...);
:mod:`mpc_rr.core._faults` holds test doubles.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

__all__ = [
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
    "party_generators",
    "run_roles",
    "table",
]

__getattr__, __dir__ = lazy_exports("mpc_rr", dict.fromkeys(__all__, "mpc_rr.core"), globals())


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
        party_generators,
        run_roles,
        table,
    )
