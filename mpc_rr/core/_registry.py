"""The protocol registry: one frozen descriptor per protocol, and every list of names derived from it.

A protocol is a package plus one :class:`ProtocolSpec` registered here.  The
spec says everything the rest of the code asks of a protocol:

* ``name``, ``family`` (``"sum"``: a secure sum of integer vectors;
  ``"pipeline"``, ``"rrba"``: the collection protocols built on them) and a
  one-line ``summary`` (help texts);
* ``make_role(party_id, n_parties, seed, params)``: one party's role from
  public parameters, so that a separate OS process can build its own
  (``mpc-rr party``), and ``result_to_json``;
* ``steps``: where a data party can drop out (the message it would send
  next), in protocol order -- ``--drop ID@STEP``, dropout sweeps;
* ``messages()``: every message type of the protocol (an observer's codec);
* ``options``: a typed, frozen options struct (msgspec), validated once by
  :meth:`ProtocolSpec.parse_options`; its fields (with their bounds and
  descriptions) are the protocol's command-line flags and scenario fields;
* ``hooks``: named extensions other layers use, as ``"module:attribute"``
  import paths resolved only by the layer that asks (:meth:`ProtocolSpec.hook`)
  -- e.g. ``"lesson"`` (the classroom), ``"recover"`` / ``"member_state"``
  (the adversary module's input recovery).  A hook may name code in a layer
  above the protocol's package: naming is not importing, and the layer
  contracts (``lint-imports``) keep every *import* pointing down.

Families extend the spec with what their users need (the secure sums:
:class:`mpc_rr.secure_sum.SumSpec`).  Built-in protocols are listed in
:data:`BUILTIN` (``name -> "module:attribute"``, imported on first use so
``mpc-rr --help`` stays fast); :func:`register_protocol` adds one at run time
(a test, a notebook, a plug-in).  :func:`protocol_names` is the one source of
every list of protocol names (CLI choices, scenario kinds, classroom and
attack lists).

This module imports neither numpy nor any protocol: the command line reads
it at start-up.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from mpc_rr.core._errors import UsageError

if TYPE_CHECKING:
    from mpc_rr.core._messages import Message
    from mpc_rr.core._roles import Role

__all__ = [
    "BUILTIN",
    "NoOptions",
    "ProtocolSpec",
    "RoleFactory",
    "get_protocol",
    "lazy",
    "option_flag",
    "protocol_names",
    "protocols",
    "register_protocol",
    "result_to_json",
    "unregister_protocol",
]

RoleFactory = Callable[[int, int, int, Mapping[str, Any]], "Role"]
"""``make_role(party_id, n_parties, seed, params) -> Role``: one party's role built from
public parameters only (``n_parties`` counts party 0), so a separate process can build it."""

BUILTIN: dict[str, str] = {
    "plainsum": "mpc_rr.secure_sum.plainsum:SPEC",
    "full-mesh": "mpc_rr.secure_sum.full_mesh:SPEC",
    "full-mesh-board": "mpc_rr.secure_sum.full_mesh:BOARD_SPEC",
    "secagg": "mpc_rr.secure_sum.secagg:SPEC",
    "prio3": "mpc_rr.secure_sum.prio3:SPEC",
    "pipeline": "mpc_rr.pipeline:PIPELINE",
    "rrba": "mpc_rr.rrba:RRBA",
}
"""The built-in protocols: ``name -> "module:attribute"`` of their :class:`ProtocolSpec`."""


class NoOptions(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """The options of a protocol that has none."""


def result_to_json(result: Any) -> Any:
    """Default JSON form of a role's result: arrays as lists, dataclasses as dicts."""
    import numpy as np  # only when a result is converted (not at start-up)

    if isinstance(result, np.ndarray):
        return result.tolist()
    if isinstance(result, np.generic):
        return result.item()
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return {f.name: result_to_json(getattr(result, f.name)) for f in dataclasses.fields(result)}
    if isinstance(result, dict):
        return {str(k): result_to_json(v) for k, v in result.items()}
    if isinstance(result, list | tuple):
        return [result_to_json(v) for v in result]
    return result


def _resolve(target: str) -> Any:
    module, sep, attr = target.partition(":")
    if not sep or not module or not attr:
        raise UsageError(f"expected 'module:attribute', got {target!r}")
    obj: Any = importlib.import_module(module)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class _Lazy:
    """A callable named by ``"module:attribute"``, imported on its first call (picklable)."""

    target: str

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _resolve(self.target)(*args, **kwargs)

    def resolve(self) -> Any:
        return _resolve(self.target)


def lazy(target: str) -> Callable[..., Any]:
    """The function at ``"module:attribute"``, imported when first called.

    Descriptors name their heavy parts this way (role classes import numpy and
    cryptography), so the registry can be read at start-up.
    """
    return _Lazy(target)


def option_flag(name: str) -> str:
    """The command-line flag of option field ``name``: ``max_dropout`` -> ``--max-dropout``."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True, eq=False)
class ProtocolSpec:
    """A registered protocol: the one descriptor the rest of the code asks (module docstring)."""

    name: str
    make_role: RoleFactory
    result_to_json: Callable[[Any], Any] = result_to_json
    family: str = "other"
    summary: str = ""
    steps: tuple[str, ...] = ()
    options: type[msgspec.Struct] = NoOptions
    hooks: Mapping[str, str] = field(default_factory=dict)
    messages: Callable[[], tuple[type[Message], ...]] | None = None

    def __post_init__(self) -> None:
        if not self.name or any(c.isspace() for c in self.name):
            raise UsageError(f"protocol name must be a non-empty word, got {self.name!r}")
        object.__setattr__(self, "hooks", dict(self.hooks))  # a copy (picklable: plans carry specs)
        object.__setattr__(self, "steps", tuple(self.steps))

    def message_types(self) -> tuple[type[Message], ...]:
        """Every message type of the protocol (empty if the spec does not name them)."""
        return () if self.messages is None else tuple(self.messages())

    # -- options -------------------------------------------------------------------------
    def option_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in msgspec.structs.fields(self.options))

    def parse_options(self, given: Mapping[str, Any] | msgspec.Struct | None = None) -> Any:
        """``given`` (a mapping; ``None`` values mean "the default") as this protocol's
        options struct, validated once.  A field the protocol does not have, or a value
        out of its bounds, is a :class:`UsageError` naming the protocol and the field."""
        if isinstance(given, self.options):
            return given
        if isinstance(given, msgspec.Struct):
            given = msgspec.structs.asdict(given)
        values = {k: v for k, v in dict(given or {}).items() if v is not None}
        unknown = sorted(set(values) - set(self.option_names()))
        if unknown:
            own = ", ".join(self.option_names()) or "none"
            raise UsageError(f"{', '.join(unknown)} do not apply to {self.name} (its options: {own})")
        try:
            return msgspec.convert(values, self.options, strict=False)
        except msgspec.ValidationError as exc:
            raise UsageError(f"{self.name} options: {exc}") from None

    # -- hooks ---------------------------------------------------------------------------
    def has_hook(self, name: str) -> bool:
        return name in self.hooks

    def hook(self, name: str) -> Any:
        """The object named by hook ``name`` (imported now), or a :class:`UsageError`."""
        target = self.hooks.get(name)
        if target is None:
            raise UsageError(f"protocol {self.name!r} has no {name!r} hook")
        return _resolve(target)


_registered: dict[str, ProtocolSpec] = {}


def register_protocol(spec: ProtocolSpec, *, replace: bool = False) -> ProtocolSpec:
    """Make ``spec`` available under ``spec.name`` in this process (returns it).

    A name already registered to another spec is refused unless ``replace``.
    """
    if not isinstance(spec, ProtocolSpec):
        raise UsageError(f"register_protocol: expected a ProtocolSpec, got {type(spec).__name__}")
    old = _registered.get(spec.name)
    if old is not None and old is not spec and not replace:
        raise UsageError(f"protocol {spec.name!r} is already registered")
    _registered[spec.name] = spec
    return spec


def unregister_protocol(name: str) -> None:
    """Forget a protocol registered at run time (built-ins are loaded again on demand)."""
    _registered.pop(name, None)


def get_protocol(name: str) -> ProtocolSpec:
    """The :class:`ProtocolSpec` called ``name`` (a :class:`UsageError` naming the known ones)."""
    spec = _registered.get(name)
    if spec is not None:
        return spec
    target = BUILTIN.get(name)
    if target is None:
        raise UsageError(f"unknown protocol {name!r}; known: {', '.join(protocol_names())}")
    obj = _resolve(target)
    spec = obj if isinstance(obj, ProtocolSpec) else ProtocolSpec(name, obj)
    if spec.name != name:
        raise UsageError(f"BUILTIN[{name!r}] names a spec called {spec.name!r}")
    _registered[name] = spec
    return spec


def protocols(family: str | None = None, *, hook: str | None = None) -> tuple[ProtocolSpec, ...]:
    """Every protocol (built-in and registered), in name order; only ``family``'s, or only
    those with hook ``hook``, when given."""
    out = [get_protocol(n) for n in sorted(set(BUILTIN) | set(_registered))]
    return tuple(
        s for s in out if (family is None or s.family == family) and (hook is None or hook in s.hooks)
    )


def protocol_names(family: str | None = None, *, hook: str | None = None) -> tuple[str, ...]:
    """The names of :func:`protocols` (the one source of every list of protocol names)."""
    if family is None and hook is None:
        return tuple(sorted(set(BUILTIN) | set(_registered)))
    return tuple(s.name for s in protocols(family, hook=hook))
