"""Party actors: bind sans-I/O roles to transport endpoints, and run them (memory, TCP, processes).

The names below are imported on first use (PEP 562): a party process
(``mpc-rr party``) imports :mod:`parties.node` without the memory runner,
which pulls in ``trio.testing`` (and through it pytest).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mpc_rr.core._lazy import lazy_exports

if TYPE_CHECKING:
    from parties.party import Party
    from parties.runner import MemoryRunner, run_memory, run_memory_sync, run_parties
    from parties.runners import LOCAL_TRANSPORTS, TRANSPORTS, runner_for

__all__ = ["LOCAL_TRANSPORTS", "TRANSPORTS", "MemoryRunner", "Party", "run_memory", "run_memory_sync", "run_parties", "runner_for"]

_HOME = {
    "Party": "parties.party",
    "MemoryRunner": "parties.runner",
    "run_memory": "parties.runner",
    "run_memory_sync": "parties.runner",
    "run_parties": "parties.runner",
    "TRANSPORTS": "parties.runners",
    "LOCAL_TRANSPORTS": "parties.runners",
    "runner_for": "parties.runners",
}


__getattr__, __dir__ = lazy_exports("parties", _HOME, globals())
