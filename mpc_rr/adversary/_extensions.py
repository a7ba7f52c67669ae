"""What the adversary module has against each protocol, registered here by the module itself.

A protocol (registered in :mod:`mpc_rr.core`) knows nothing of its attacks;
the adversary module registers them, keyed by the protocol's name, with
:func:`register_attacks`.  The parts of a :class:`ProtocolAttacks`:

* ``recover`` -- ``recover(view, members, **public) -> Recovery``: input
  recovery by the curious aggregator or a coalition (:func:`~mpc_rr.adversary.recover`);
* ``offline`` -- ``offline(view, n) -> OfflinePublic``: the public parameters
  an observer rebuilds from a saved transcript alone;
* ``plants`` -- ``{name: plant}``: the broken-on-purpose variants
  (:mod:`~mpc_rr.adversary._broken`) every attack is tested against;
* ``coalition`` -- ``coalition(public, parties) -> CoalitionModel``: who
  colludes and the bound the run declares;
* ``cheats`` -- the strategies of a cheating server, relay or leader
  (``attack cheat``), and ``poison`` -- whether poisoned inputs are measured
  against it (``attack poison``).

The attacks of the library's own protocols are registered at the bottom of
this module, by name (``"module:attribute"`` of this package's own modules,
imported on first use: the command line reads the lists at start-up); a
test or a plug-in registers its own the same way, or with the objects
themselves.  :func:`attacked` is the one source of every list of attacked
protocols (``attack coalition``, ``attack cheat``, ``attack poison``, the
planted variants).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from mpc_rr.core import UsageError, lazy, protocol_names

__all__ = ["ProtocolAttacks", "attacked", "attacks_for", "register_attacks", "unregister_attacks"]

Part = Literal["recover", "offline", "plants", "coalition", "cheats", "poison"]


@dataclass(frozen=True)
class ProtocolAttacks:
    """The adversary's attacks on one protocol (module docstring); ``None``/empty: none."""

    recover: Callable[..., Any] | None = None
    offline: Callable[..., Any] | None = None
    plants: Callable[[], Mapping[str, Any]] | None = None
    coalition: Callable[..., Any] | None = None
    cheats: tuple[str, ...] = ()
    poison: bool = False
    _extra: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def has(self, part: Part) -> bool:
        value = getattr(self, part)
        return bool(value) if isinstance(value, tuple | bool) else value is not None

    def planted(self) -> Mapping[str, Any]:
        """The planted variants (``{}`` when none)."""
        return {} if self.plants is None else dict(self.plants())


_ATTACKS: dict[str, ProtocolAttacks] = {}


def register_attacks(protocol: str, **parts: Any) -> ProtocolAttacks:
    """Add ``parts`` (fields of :class:`ProtocolAttacks`) to ``protocol``'s attacks; a string
    ``"module:attribute"`` names an object imported on first use (``plants``: the mapping)."""
    fields = {f.name for f in dataclasses.fields(ProtocolAttacks)} - {"_extra"}
    unknown = sorted(set(parts) - fields)
    if unknown:
        raise UsageError(f"register_attacks: unknown part(s) {', '.join(unknown)}; the parts: {', '.join(sorted(fields))}")
    given: dict[str, Any] = {}
    for key, value in parts.items():
        if isinstance(value, str):
            value = _named(value) if key == "plants" else lazy(value)
        elif key == "plants" and isinstance(value, Mapping):
            value = _constant(dict(value))
        elif key == "cheats":
            value = tuple(value)
        given[key] = value
    old = _ATTACKS.get(protocol, ProtocolAttacks())
    _ATTACKS[protocol] = new = dataclasses.replace(old, **given)
    return new


def unregister_attacks(protocol: str) -> None:
    """Forget ``protocol``'s attacks (a test's toy)."""
    _ATTACKS.pop(protocol, None)


def attacks_for(protocol: str) -> ProtocolAttacks:
    """``protocol``'s attacks (an empty :class:`ProtocolAttacks` when it has none)."""
    return _ATTACKS.get(protocol, ProtocolAttacks())


def attacked(part: Part) -> tuple[str, ...]:
    """The registered protocols (in name order) the adversary has ``part`` against."""
    known = set(protocol_names())
    return tuple(sorted(name for name, a in _ATTACKS.items() if name in known and a.has(part)))


def _named(target: str) -> Callable[[], Mapping[str, Any]]:
    def plants() -> Mapping[str, Any]:
        module, _, attr = target.partition(":")
        value: Mapping[str, Any] = getattr(importlib.import_module(module), attr)
        return value

    return plants


def _constant(value: Mapping[str, Any]) -> Callable[[], Mapping[str, Any]]:
    return lambda: value


# -- the adversary's attacks on the library's own protocols -----------------------------------


def _register_builtin() -> None:
    from mpc_rr.pipeline import PIPELINE
    from mpc_rr.secure_sum.full_mesh import BOARD_SPEC as BOARD
    from mpc_rr.secure_sum.full_mesh import SPEC as MESH
    from mpc_rr.secure_sum.plainsum import SPEC as PLAINSUM
    from mpc_rr.secure_sum.prio3 import SPEC as PRIO3
    from mpc_rr.secure_sum.secagg import SPEC as SECAGG

    here = "mpc_rr.adversary"
    register_attacks(PLAINSUM.name, recover=f"{here}._recovery:recover_plainsum",
                     offline=f"{here}._offline:plainsum_offline", plants=f"{here}._broken:PLAINSUM_PLANTS",
                     poison=True)  # fmt: skip
    for mesh in (MESH, BOARD):
        register_attacks(mesh.name, recover=f"{here}._recovery:recover_full_mesh",
                         offline=f"{here}._offline:full_mesh_offline", plants=f"{here}._broken:FULL_MESH_PLANTS",
                         coalition=f"{here}._coalitions:full_mesh_coalition")  # fmt: skip
    register_attacks(BOARD.name, poison=True)
    register_attacks(SECAGG.name, recover=f"{here}._secagg_recovery:recover_secagg",
                     offline=f"{here}._offline:secagg_offline", plants=f"{here}._broken:SECAGG_PLANTS",
                     coalition=f"{here}._coalitions:secagg_coalition", poison=True)  # fmt: skip
    register_attacks(PRIO3.name, poison=True)
    register_attacks(PIPELINE.name, plants=f"{here}._broken:PIPELINE_PLANTS")


_register_builtin()
