"""Party actors: bind sans-I/O roles to transport endpoints; runners; cost reports."""

from parties.costs import CostReport, PartyStats
from parties.party import Party
from parties.registry import ProtocolSpec, get_protocol, register_protocol
from parties.runner import RunResult, run_memory, run_memory_sync, run_parties

__all__ = [
    "CostReport",
    "Party",
    "PartyStats",
    "ProtocolSpec",
    "RunResult",
    "get_protocol",
    "register_protocol",
    "run_memory",
    "run_memory_sync",
    "run_parties",
]
