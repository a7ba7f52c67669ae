"""The protocol registry: one object per protocol, and every list of names derived from it.

A protocol is a package plus one object registered here, an instance of a
:class:`RegisteredProtocol`.  It says what every protocol has:

* ``name``, ``family`` (``"sum"``: a secure sum of integer vectors, the
  abstract :class:`mpc_rr.secure_sum.SumProtocol`; ``"pipeline"``,
  ``"rrba"``: the collection protocols built on them, a :class:`ProtocolSpec`)
  and a one-line ``summary`` (help texts);
* ``make_role(party_id, n_parties, seed, params)``: one party's role from
  public parameters, so that a separate OS process can build its own
  (``mpc-rr party``), and ``result_to_json``;
* ``steps``: where a data party can drop out (the message it would send
  next), in protocol order -- ``--drop ID@STEP``, dropout sweeps;
* ``message_types()``: every message type of the protocol (an observer's codec);
* ``options``: a typed, frozen options struct (msgspec), validated once by
  :meth:`RegisteredProtocol.parse_options`; its fields (with their bounds and
  descriptions) are the protocol's command-line flags and scenario fields.

What other layers add to a protocol (the adversary's attacks, the
classroom's lessons, the workflows' observed runs) they register in their
own registries, keyed by the protocol's name: nothing here names them.

Built-in protocols are listed in :data:`BUILTIN` (``name ->
"module:attribute"`` of the library's own protocol packages, imported on
first use so ``mpc-rr --help`` stays fast); :func:`register_protocol` adds
one at run time (a test, a notebook, a plug-in).  :func:`protocol_names` is
the one source of every list of protocol names (CLI choices, scenario kinds,
classroom and attack lists).

This module imports neither numpy nor any protocol: the command line reads
it at start-up.
"""

from __future__ import annotations

import abc
import dataclasses
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from mpc_rr.core._errors import UsageError

if TYPE_CHECKING:
    from mpc_rr.core._messages import Message
    from mpc_rr.core._roles import Role

__all__ = [
    "BUILTIN",
    "NoOptions",
    "ProtocolSpec",
    "RegisteredProtocol",
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
"""The built-in protocols: ``name -> "module:attribute"`` of their :class:`RegisteredProtocol`
(always a module of the library's own protocol packages)."""


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


class RegisteredProtocol(abc.ABC):
    """What every registered protocol is (module docstring).

    Attributes
    ----------
    name:
        Its registry name: one word, e.g. ``"secagg"``.
    family:
        ``"sum"`` (every :class:`mpc_rr.secure_sum.SumProtocol`), ``"pipeline"``, ``"rrba"``.
    summary:
        One line for help texts.
    steps:
        Where a data party can drop out (the message it would send next), in protocol order.
    options:
        The options struct (a frozen msgspec struct with ``forbid_unknown_fields``); its fields
        are the protocol's flags and scenario fields.
    """

    name: str
    family: str = "other"
    summary: str = ""
    steps: tuple[str, ...] = ()
    options: type[msgspec.Struct] = NoOptions

    @abc.abstractmethod
    def make_role(self, party_id: int, n_parties: int, seed: int, params: Mapping[str, Any]) -> Role:
        """Party ``party_id``'s role among ``n_parties`` (party 0 counted) from public parameters
        alone, so a separate process (``mpc-rr party``) can build its own.  Bad ``params`` are a
        :class:`UsageError` naming the key."""

    @abc.abstractmethod
    def message_types(self) -> tuple[type[Message], ...]:
        """Every message type of the protocol (a codec or an offline observer needs them)."""

    def result_to_json(self, result: Any) -> Any:
        """The JSON form of a role's result (default: arrays as lists, dataclasses as dicts)."""
        return result_to_json(result)

    def check_name(self) -> None:
        """Refuse a name that is not one word (a :class:`UsageError`)."""
        name = getattr(self, "name", "")
        if not isinstance(name, str) or not name or any(c.isspace() for c in name):
            raise UsageError(f"protocol name must be a non-empty word, got {name!r}")

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

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


@dataclass(frozen=True, eq=False, repr=False)
class ProtocolSpec(RegisteredProtocol):
    """A registered protocol given by its parts (the pipeline, RRBA, a test's toy).

    ``factory`` is :meth:`make_role`; ``to_json`` the result's JSON form;
    ``messages()`` lists the message types (named lazily, :func:`lazy`).
    """

    name: str
    factory: RoleFactory
    to_json: Callable[[Any], Any] = result_to_json
    family: str = "other"
    summary: str = ""
    steps: tuple[str, ...] = ()
    options: type[msgspec.Struct] = NoOptions
    messages: Callable[[], tuple[type[Message], ...]] | None = None

    def __post_init__(self) -> None:
        self.check_name()
        object.__setattr__(self, "steps", tuple(self.steps))

    def make_role(self, party_id: int, n_parties: int, seed: int, params: Mapping[str, Any]) -> Role:
        return self.factory(party_id, n_parties, seed, params)

    def message_types(self) -> tuple[type[Message], ...]:
        """Every message type of the protocol (empty if the spec does not name them)."""
        return () if self.messages is None else tuple(self.messages())

    def result_to_json(self, result: Any) -> Any:
        return self.to_json(result)


_registered: dict[str, RegisteredProtocol] = {}

P = TypeVar("P", bound=RegisteredProtocol)


def register_protocol(spec: P, *, replace: bool = False) -> P:
    """Make ``spec`` available under ``spec.name`` in this process (returns it).

    A name already registered to another protocol is refused unless ``replace``.
    """
    if not isinstance(spec, RegisteredProtocol):
        raise UsageError(f"register_protocol: expected a RegisteredProtocol, got {type(spec).__name__}")
    spec.check_name()
    old = _registered.get(spec.name)
    if old is not None and old is not spec and not replace:
        raise UsageError(f"protocol {spec.name!r} is already registered")
    _registered[spec.name] = spec
    return spec


def unregister_protocol(name: str) -> None:
    """Forget a protocol registered at run time (built-ins are loaded again on demand)."""
    _registered.pop(name, None)


def get_protocol(name: str) -> RegisteredProtocol:
    """The protocol called ``name`` (a :class:`UsageError` naming the known ones)."""
    spec = _registered.get(name)
    if spec is not None:
        return spec
    target = BUILTIN.get(name)
    if target is None:
        raise UsageError(f"unknown protocol {name!r}; known: {', '.join(protocol_names())}")
    spec = _resolve(target)
    if not isinstance(spec, RegisteredProtocol):
        raise UsageError(f"BUILTIN[{name!r}] names a {type(spec).__name__}, not a RegisteredProtocol")
    if spec.name != name:
        raise UsageError(f"BUILTIN[{name!r}] names a spec called {spec.name!r}")
    _registered[name] = spec
    return spec


def protocols(family: str | None = None) -> tuple[RegisteredProtocol, ...]:
    """Every protocol (built-in and registered), in name order; only ``family``'s when given."""
    out = [get_protocol(n) for n in sorted(set(BUILTIN) | set(_registered))]
    return tuple(s for s in out if family is None or s.family == family)


def protocol_names(family: str | None = None) -> tuple[str, ...]:
    """The names of :func:`protocols` (the one source of every list of protocol names)."""
    if family is None:
        return tuple(sorted(set(BUILTIN) | set(_registered)))
    return tuple(s.name for s in protocols(family))
