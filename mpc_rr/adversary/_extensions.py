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
* ``byzantine`` -- ``{strategy: plant}``: the cheating roles a simulated Byzantine party 0
  plays (:mod:`~mpc_rr.adversary._byzantine`, ``mpc-rr simulate``);
* ``coalition`` -- ``coalition(public, parties) -> CoalitionModel``: who
  colludes and the bound the run declares;
* ``cheats`` -- the strategies a cheating server, relay, leader or client
  plays against it (``attack cheat``: a :class:`Cheats`, its strategies
  spelled import-light and its ``play(protocol, strategy, *, broken, seed,
  trials) -> CheatReport``), and ``poison`` -- what poisoned inputs are
  measured on through it (``attack poison --on``: ``"count"``, one count;
  ``"pipeline"``, the pipeline's dependences).

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

from mpc_rr.core import UsageError, protocol_names
from mpc_rr.core._registry import lazy

__all__ = ["Cheats", "ProtocolAttacks", "attacked", "attacks_for", "register_attacks", "unregister_attacks"]

Part = Literal["recover", "offline", "plants", "byzantine", "coalition", "cheats", "poison"]


@dataclass(frozen=True)
class Cheats:
    """The active strategies played against one protocol (``attack cheat``, the ``cheat`` kind).

    ``strategies``: their names (the command line lists them without importing the roles);
    ``play(protocol, strategy, *, broken, seed, trials) -> CheatReport``: seeded trials
    against our roles, or (``broken``) the variant with the protection off.
    """

    strategies: tuple[str, ...]
    play: Callable[..., Any]
    note: str = ""

    def __call__(self, protocol: str, strategy: str, *, broken: bool, seed: int, trials: int) -> Any:
        """``play``: a strategy it does not play is refused there, saying why (the mesh has no
        survivor set to equivocate about)."""
        return self.play(protocol, strategy, broken=broken, seed=seed, trials=trials)


@dataclass(frozen=True)
class ProtocolAttacks:
    """The adversary's attacks on one protocol (module docstring); ``None``/empty: none."""

    recover: Callable[..., Any] | None = None
    offline: Callable[..., Any] | None = None
    plants: Callable[[], Mapping[str, Any]] | None = None
    byzantine: Callable[[], Mapping[str, Any]] | None = None
    coalition: Callable[..., Any] | None = None
    cheats: Cheats | None = None
    poison: tuple[str, ...] = ()
    _extra: Mapping[str, Any] = field(default_factory=dict, repr=False)

    def has(self, part: Part) -> bool:
        value = getattr(self, part)
        return bool(value) if isinstance(value, tuple) else value is not None

    def planted(self) -> Mapping[str, Any]:
        """The planted variants (``{}`` when none)."""
        return {} if self.plants is None else dict(self.plants())

    def cheaters(self) -> Mapping[str, Any]:
        """The cheating roles of a Byzantine party 0 (``{}`` when none)."""
        return {} if self.byzantine is None else dict(self.byzantine())


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
            value = _named(value) if key in ("plants", "byzantine") else lazy(value)
        elif key in ("plants", "byzantine") and isinstance(value, Mapping):
            value = _constant(dict(value))
        elif key == "poison":
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


# the strategies (spelled here so that the command line imports no role; a test checks they are
# the active modules' own lists)
_SECAGG_CHEATS = (
    "key-substitution", "equivocate", "isolate", "replay", "forge-shares", "withhold-shares",
    "different-aggregates", "forged-signature", "key-reuse", "bad-shares", "inconsistent-shares",
    "claim-sender",
)  # fmt: skip
_MESH_CHEATS = tuple(s for s in _SECAGG_CHEATS if s not in ("equivocate", "isolate", "inconsistent-shares"))
_PRIO3_CHEATS = ("isolate", "forge-shares")


def _play_secagg(protocol: str, strategy: str, *, broken: bool, seed: int, trials: int) -> Any:
    from mpc_rr.adversary.active import cheat

    return cheat(strategy, protocol=protocol, trials=trials, seed=seed, broken=broken)


def _play_mesh(protocol: str, strategy: str, *, broken: bool, seed: int, trials: int) -> Any:
    from mpc_rr.adversary.active import mesh_cheat

    return mesh_cheat(protocol, strategy, broken=broken, seed=seed, trials=trials)


def _play_through(protocol: str, strategy: str, *, broken: bool, seed: int, trials: int) -> Any:
    from mpc_rr.adversary.active import pipeline_cheat, rrba_cheat
    from mpc_rr.pipeline import PIPELINE

    play = pipeline_cheat if protocol == PIPELINE.name else rrba_cheat
    return play(strategy, broken=broken, seed=seed, trials=trials)


def _play_prio3(protocol: str, strategy: str, *, broken: bool, seed: int, trials: int) -> Any:
    from mpc_rr.adversary.active import prio3_cheat

    return prio3_cheat(strategy, broken=broken, seed=seed, trials=trials)


def _register_builtin() -> None:
    from mpc_rr.pipeline import PIPELINE
    from mpc_rr.rrba import RRBA
    from mpc_rr.secure_sum.full_mesh import BOARD_SPEC as BOARD
    from mpc_rr.secure_sum.full_mesh import SPEC as MESH
    from mpc_rr.secure_sum.plainsum import SPEC as PLAINSUM
    from mpc_rr.secure_sum.prio3 import SPEC as PRIO3
    from mpc_rr.secure_sum.secagg import SPEC as SECAGG

    here = "mpc_rr.adversary"
    register_attacks(PLAINSUM.name, recover=f"{here}._recovery:recover_plainsum",
                     offline=f"{here}._offline:plainsum_offline", plants=f"{here}._broken:PLAINSUM_PLANTS",
                     poison=("count",))  # fmt: skip
    for mesh in (MESH, BOARD):
        register_attacks(mesh.name, recover=f"{here}._recovery:recover_full_mesh",
                         offline=f"{here}._offline:full_mesh_offline", plants=f"{here}._broken:FULL_MESH_PLANTS",
                         coalition=f"{here}._coalitions:full_mesh_coalition")  # fmt: skip
    register_attacks(BOARD.name, poison=("count",), byzantine=f"{here}._byzantine:BOARD_CHEATERS")
    for mesh in (MESH, BOARD):
        register_attacks(mesh.name, cheats=Cheats(_MESH_CHEATS, _play_mesh, "through a relaying hub"))
    register_attacks(SECAGG.name, cheats=Cheats(_SECAGG_CHEATS, _play_secagg, "a cheating server or client"))
    for outer in (PIPELINE, RRBA):
        register_attacks(outer.name, cheats=Cheats(_SECAGG_CHEATS, _play_through, "inside its inner SecAgg+"))
    register_attacks(PRIO3.name, cheats=Cheats(_PRIO3_CHEATS, _play_prio3, "a cheating leader"))
    register_attacks(SECAGG.name, recover=f"{here}._secagg_recovery:recover_secagg",
                     offline=f"{here}._offline:secagg_offline", plants=f"{here}._broken:SECAGG_PLANTS",
                     coalition=f"{here}._coalitions:secagg_coalition", poison=("count", "pipeline"),
                     byzantine=f"{here}._byzantine:SECAGG_CHEATERS")  # fmt: skip
    register_attacks(PRIO3.name, poison=("count", "pipeline"))
    register_attacks(PIPELINE.name, plants=f"{here}._broken:PIPELINE_PLANTS")


_register_builtin()
