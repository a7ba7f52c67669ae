"""Named protocols, so a separate OS process can build its own role (``mpc-rr party``).

A protocol is a :class:`~mpc_rr.core.ProtocolSpec`: a factory
``make_role(party_id, n_parties, seed, params) -> Role`` plus the JSON form of
its result.  Register one by adding a line to :data:`BUILTIN`
(``name -> "module:attribute"``, imported lazily, so ``mpc-rr --help`` stays
fast) or at run time with :func:`register_protocol`.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from mpc_rr.core._errors import UsageError

if TYPE_CHECKING:  # mpc_rr.core._runs imports numpy: not at `mpc-rr --help` time
    from mpc_rr.core._runs import ProtocolSpec

__all__ = ["BUILTIN", "get_protocol", "protocol_names", "register_protocol"]

BUILTIN: dict[str, str] = {
    "plainsum": "mpc_rr.secure_sum.plainsum:make_role",
    "secagg": "mpc_rr.secure_sum:make_secagg_role",
    "full-mesh-board": "mpc_rr.secure_sum:make_board_role",
    "pipeline": "mpc_rr.pipeline:PIPELINE",
    "rrba": "mpc_rr.rrba:RRBA",
}
"""Lazily imported factories or specs: ``name -> "module:attribute"``."""

_registered: dict[str, ProtocolSpec] = {}


def register_protocol(spec: ProtocolSpec) -> None:
    """Make ``spec`` available under ``spec.name`` (in this process)."""
    _registered[spec.name] = spec


def protocol_names() -> list[str]:
    return sorted(set(BUILTIN) | set(_registered))


def get_protocol(name: str) -> ProtocolSpec:
    """The :class:`ProtocolSpec` called ``name`` (raises UsageError naming the known ones)."""
    if name in _registered:
        return _registered[name]
    target = BUILTIN.get(name)
    if target is None:
        raise UsageError(f"unknown protocol {name!r}; known: {protocol_names()}")
    from mpc_rr.core._runs import ProtocolSpec

    module, _, attr = target.partition(":")
    obj = getattr(importlib.import_module(module), attr)
    spec = obj if isinstance(obj, ProtocolSpec) else ProtocolSpec(name, obj)
    _registered[name] = spec
    return spec
