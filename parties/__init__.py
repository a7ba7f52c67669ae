"""Party actors: bind sans-I/O roles to transport endpoints, and run them (memory, TCP, processes)."""

from parties.party import Party
from parties.runner import MemoryRunner, run_memory, run_memory_sync, run_parties

__all__ = ["MemoryRunner", "Party", "run_memory", "run_memory_sync", "run_parties"]
