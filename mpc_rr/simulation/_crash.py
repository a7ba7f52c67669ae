"""A party that crashes after a given number of sends (a :class:`~mpc_rr.simulation.Crash`)."""

from __future__ import annotations

from mpc_rr.core import DropAt, Role, Send

__all__ = ["CrashAfter"]


class CrashAfter(DropAt):
    """Behaves like ``inner`` until it has sent ``sends`` messages, then crashes.

    The crash strikes wherever the count runs out: before the first send (``0``), between
    two sends of one step (the first ones go out, the rest never do) or right after a step's
    last send (it receives nothing more).  A party that finishes first never crashes.  Like
    :class:`~mpc_rr.core.DropAt`: ``done`` with neither result nor error once crashed.
    """

    def __init__(self, inner: Role, sends: int) -> None:
        super().__init__(inner, ())
        self.budget = int(sends)

    def _filter(self, sends: list[Send]) -> list[Send]:
        if self.crashed:
            return []
        keep = sends[: self.budget]
        self.budget -= len(keep)
        if len(keep) < len(sends) or (self.budget == 0 and not self.inner.done):
            self.crashed = True
            self.finish(None)
        return keep
