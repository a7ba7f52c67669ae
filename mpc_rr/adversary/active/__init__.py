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

from mpc_rr.core._lazy import lazy_exports

__all__ = [
    "CLIENT_STRATEGIES",
    "PIPELINE_POISON_STRATEGIES",
    "POISON_STRATEGIES",
    "SERVER_STRATEGIES",
    "CheatReport",
    "CheatingClient",
    "CheatingServer",
    "PipelinePoisonResult",
    "PoisonResult",
    "cheat",
    "cheat_strategies",
    "mesh_cheat",
    "mesh_relay",
    "pipeline_cheat",
    "poison_attack",
    "poison_dependence",
    "prio3_cheat",
    "rrba_cheat",
]

_HOME = {
    "CheatReport": "mpc_rr.adversary.active._cheat_runs",
    "cheat": "mpc_rr.adversary.active._cheat_runs",
    "cheat_strategies": "mpc_rr.adversary.active._cheat_runs",
    "pipeline_cheat": "mpc_rr.adversary.active._cheat_through",
    "rrba_cheat": "mpc_rr.adversary.active._cheat_through",
    "CLIENT_STRATEGIES": "mpc_rr.adversary.active._cheats",
    "CheatingClient": "mpc_rr.adversary.active._cheats",
    "CheatingServer": "mpc_rr.adversary.active._cheats",
    "SERVER_STRATEGIES": "mpc_rr.adversary.active._cheats",
    "mesh_cheat": "mpc_rr.adversary.active._mesh_cheat_runs",
    "mesh_relay": "mpc_rr.adversary.active._mesh_cheats",
    "POISON_STRATEGIES": "mpc_rr.adversary.active._poison",
    "PoisonResult": "mpc_rr.adversary.active._poison",
    "poison_attack": "mpc_rr.adversary.active._poison",
    "PIPELINE_POISON_STRATEGIES": "mpc_rr.adversary.active._poison_pipeline",
    "PipelinePoisonResult": "mpc_rr.adversary.active._poison_pipeline",
    "poison_dependence": "mpc_rr.adversary.active._poison_pipeline",
    "prio3_cheat": "mpc_rr.adversary.active._prio3_cheats",
}

__getattr__, __dir__ = lazy_exports(__name__, _HOME, globals())

if TYPE_CHECKING:
    from mpc_rr.adversary.active._cheat_runs import (
        CheatReport,
        cheat,
        cheat_strategies,
    )
    from mpc_rr.adversary.active._cheat_through import (
        pipeline_cheat,
        rrba_cheat,
    )
    from mpc_rr.adversary.active._cheats import (
        CLIENT_STRATEGIES,
        SERVER_STRATEGIES,
        CheatingClient,
        CheatingServer,
    )
    from mpc_rr.adversary.active._mesh_cheat_runs import (
        mesh_cheat,
    )
    from mpc_rr.adversary.active._mesh_cheats import (
        mesh_relay,
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
        prio3_cheat,
    )
