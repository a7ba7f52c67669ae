"""Named protocol factories, so a separate OS process can build its own role.

A *protocol factory* is a function ``make_role(party_id, n_parties, seed,
params) -> Role``: from the roster size (hub included), the scenario seed and
JSON-able parameters it builds party ``party_id``'s role, deterministically.
That is all ``mpc-rr party --protocol NAME`` needs to take part in a run on
another host.

Register a protocol either by adding one line to :data:`BUILTIN`
(``name -> "module:attribute"``, imported lazily) or at run time with
:func:`register_protocol`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from mpc_rr.errors import UsageError
from mpc_rr.roles import Role

__all__ = ["BUILTIN", "ProtocolSpec", "get_protocol", "protocol_names", "register_protocol"]

RoleFactory = Callable[[int, int, int, Mapping[str, Any]], Role]


def _default_to_json(result: Any) -> Any:
    if isinstance(result, np.ndarray):
        return result.tolist()
    if isinstance(result, np.generic):
        return result.item()
    if isinstance(result, dict):
        return {str(k): _default_to_json(v) for k, v in result.items()}
    if isinstance(result, list | tuple):
        return [_default_to_json(v) for v in result]
    return result


@dataclass(frozen=True)
class ProtocolSpec:
    """A named protocol: how to build a role, and how to serialise its result."""

    name: str
    make_role: RoleFactory
    result_to_json: Callable[[Any], Any] = _default_to_json


BUILTIN: dict[str, str] = {
    "plainsum": "mpc_rr.plainsum:make_role",
    "secagg": "scenarios.secure_sum_protocols:SECAGG",
    "full-mesh-board": "scenarios.secure_sum_protocols:BOARD",
}
"""Lazily imported factories: ``name -> "module:callable"``."""

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
    module, _, attr = target.partition(":")
    obj = getattr(importlib.import_module(module), attr)
    spec = obj if isinstance(obj, ProtocolSpec) else ProtocolSpec(name, obj)
    _registered[name] = spec
    return spec
