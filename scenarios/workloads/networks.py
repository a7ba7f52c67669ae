"""Observed runs on a real transport: the memory network or TCP + mutual TLS, with a tap.

:func:`mpc_rr.workflows.observed_run` runs on an ``ObservedNetwork``; the
library's default is the harness (its transcript is what a relay reads).
:func:`network_for` gives the command line's: a runner of ``parties.runners``
with a :class:`~transports.tap.Tap` on the wire -- plaintext payloads on the
memory network, TLS ciphertext on TCP.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from mpc_rr.core import Runner, RunResult, Transcript, UsageError
from mpc_rr.workflows import HarnessNetwork, ObservedNetwork
from parties.runners import runner_for
from transports.tap import Tap

__all__ = ["NETWORKS", "TappedNetwork", "network_for"]

NETWORKS = ("harness", "memory", "tcp")


@dataclass
class TappedNetwork:
    """A transport (``memory`` or ``tcp``) with a tap recording what crosses it."""

    name: str
    tap: Tap = field(default_factory=Tap)

    def runner(self, step_timeout: float | Mapping[int, float]) -> Runner:
        return runner_for(self.name, step_timeout=step_timeout, tap=self.tap)

    def observed(self, result: RunResult) -> Transcript:
        return self.tap


def network_for(transport: str) -> ObservedNetwork:
    """The observed network of ``transport`` (a fresh tap for each call)."""
    if transport not in NETWORKS:
        raise UsageError(f"transport must be one of {NETWORKS}, got {transport!r}")
    return HarnessNetwork() if transport == "harness" else TappedNetwork(transport)
