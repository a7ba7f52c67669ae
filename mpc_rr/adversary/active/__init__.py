"""Active adversaries: a cheating server, relay or client, and clients that poison a sum.

The passive attacks (:mod:`mpc_rr.adversary`: what an eavesdropper, a curious
aggregator or a coalition learns) read what an honest run shows.  Here the
adversary deviates, and every attack plays against our roles and against a
clearly named broken variant (one protection switched off), so the report shows
that the attack works and that ours stops it.

* :mod:`~mpc_rr.adversary.active._cheats` -- SecAgg+'s cheating server and client
  roles and the broken variants (Bonawitz et al. CCS 2017, active adversary);
* :mod:`~mpc_rr.adversary.active._cheat_runs` -- :func:`cheat`: seeded trials over any
  in-process runner, the :class:`CheatReport` (detected, culprits, suspects, inputs
  recovered, totals moved);
* :mod:`~mpc_rr.adversary.active._cheat_through` -- the same cheats inside the
  pipeline's secure-sum dependence and RRBA's secure tally;
* :mod:`~mpc_rr.adversary.active._mesh_cheats`, ``_mesh_cheat_runs`` -- the full
  mesh's relays, board and cheating parties (:func:`mesh_cheat`);
* :mod:`~mpc_rr.adversary.active._prio3_cheats` -- a prio3 leader isolating a
  client (:func:`prio3_cheat`);
* :mod:`~mpc_rr.adversary.active._poison`, ``_poison_pipeline`` -- malicious
  clients' inputs against a secure sum and through the pipeline (what validity
  proofs stop).

Over real deployments (one process per party, a hostile hub or party process):
``scenarios/workloads/hostile_hub.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core import lazy_exports

__all__ = [
    "CHEAT_PROTOCOLS",
    "CLIENT_STRATEGIES",
    "MESH_CHEATS",
    "MESH_PROTOCOLS",
    "PIPELINE_CHEATS",
    "PIPELINE_POISON_STRATEGIES",
    "POISON_STRATEGIES",
    "PRIO3_CHEATS",
    "SERVER_STRATEGIES",
    "BlamingClient",
    "CheatReport",
    "CheatingClient",
    "CheatingServer",
    "KeySubstitutingRelay",
    "PipelinePoisonResult",
    "PoisonResult",
    "TrustingClient",
    "TrustingMeshParty",
    "TrustingServer",
    "cheat",
    "cheat_strategies",
    "mesh_cheat",
    "mesh_relay",
    "pipeline_cheat",
    "poison_attack",
    "poison_dependence",
    "prio3_cheat",
    "relay_run",
    "rrba_cheat",
    "unmask_input",
]

_HOME = {
    "BlamingClient": "mpc_rr.adversary.active._cheats",
    "CHEAT_PROTOCOLS": "mpc_rr.adversary.active._cheat_runs",
    "CLIENT_STRATEGIES": "mpc_rr.adversary.active._cheats",
    "CheatReport": "mpc_rr.adversary.active._cheat_runs",
    "CheatingClient": "mpc_rr.adversary.active._cheats",
    "CheatingServer": "mpc_rr.adversary.active._cheats",
    "KeySubstitutingRelay": "mpc_rr.adversary.active._mesh_cheats",
    "MESH_CHEATS": "mpc_rr.adversary.active._mesh_cheat_runs",
    "MESH_PROTOCOLS": "mpc_rr.adversary.active._mesh_cheat_runs",
    "PIPELINE_CHEATS": "mpc_rr.adversary.active._cheat_through",
    "PIPELINE_POISON_STRATEGIES": "mpc_rr.adversary.active._poison_pipeline",
    "POISON_STRATEGIES": "mpc_rr.adversary.active._poison",
    "PRIO3_CHEATS": "mpc_rr.adversary.active._prio3_cheats",
    "PipelinePoisonResult": "mpc_rr.adversary.active._poison_pipeline",
    "PoisonResult": "mpc_rr.adversary.active._poison",
    "SERVER_STRATEGIES": "mpc_rr.adversary.active._cheats",
    "TrustingClient": "mpc_rr.adversary.active._cheats",
    "TrustingMeshParty": "mpc_rr.adversary.active._mesh_cheats",
    "TrustingServer": "mpc_rr.adversary.active._cheats",
    "cheat": "mpc_rr.adversary.active._cheat_runs",
    "cheat_strategies": "mpc_rr.adversary.active._cheat_runs",
    "mesh_cheat": "mpc_rr.adversary.active._mesh_cheat_runs",
    "mesh_relay": "mpc_rr.adversary.active._mesh_cheats",
    "pipeline_cheat": "mpc_rr.adversary.active._cheat_through",
    "poison_attack": "mpc_rr.adversary.active._poison",
    "poison_dependence": "mpc_rr.adversary.active._poison_pipeline",
    "prio3_cheat": "mpc_rr.adversary.active._prio3_cheats",
    "relay_run": "mpc_rr.adversary.active._mesh_cheats",
    "rrba_cheat": "mpc_rr.adversary.active._cheat_through",
    "unmask_input": "mpc_rr.adversary.active._cheats",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.adversary.active._cheat_runs import (
        CHEAT_PROTOCOLS,
        CheatReport,
        cheat,
        cheat_strategies,
    )
    from mpc_rr.adversary.active._cheat_through import (
        PIPELINE_CHEATS,
        pipeline_cheat,
        rrba_cheat,
    )
    from mpc_rr.adversary.active._cheats import (
        CLIENT_STRATEGIES,
        SERVER_STRATEGIES,
        BlamingClient,
        CheatingClient,
        CheatingServer,
        TrustingClient,
        TrustingServer,
        unmask_input,
    )
    from mpc_rr.adversary.active._mesh_cheat_runs import (
        MESH_CHEATS,
        MESH_PROTOCOLS,
        mesh_cheat,
    )
    from mpc_rr.adversary.active._mesh_cheats import (
        KeySubstitutingRelay,
        TrustingMeshParty,
        mesh_relay,
        relay_run,
    )
    from mpc_rr.adversary.active._poison import (
        POISON_STRATEGIES,
        PoisonResult,
        poison_attack,
    )
    from mpc_rr.adversary.active._poison_pipeline import (
        PIPELINE_POISON_STRATEGIES,
        PipelinePoisonResult,
        poison_dependence,
    )
    from mpc_rr.adversary.active._prio3_cheats import (
        PRIO3_CHEATS,
        prio3_cheat,
    )
