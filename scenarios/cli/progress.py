"""Progress of a long command on standard error: counted phases as bars, the rest as timed lines.

A :class:`Phases` shows one phase at a time.  A phase whose work can be
counted (parties that answered, messages relayed) is a ``tqdm`` bar that is
closed the moment it is complete, so its rate covers that phase only; a phase
that cannot be counted (loading a data set, clustering and broadcasting,
estimating) is a line ``"<what> ..."`` completed with ``"done in X s"``.
Nothing is shown when standard error is not a terminal (pipes, CI, tests),
unless ``enabled=True``.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

__all__ = ["Phases"]


class Phases:
    """One phase at a time (see module docstring)."""

    def __init__(self, file: IO[str] | None = None, *, enabled: bool | None = None) -> None:
        self.file = file if file is not None else sys.stderr
        if enabled is None:
            enabled = bool(getattr(self.file, "isatty", lambda: False)())
        self.enabled = enabled
        self._line: tuple[str, float] | None = None
        self._bar: Any = None
        self._bar_key = ""
        self._complete: set[str] = set()
        self.timings: dict[str, float] = {}

    # -- timed lines ----------------------------------------------------------------------
    def start(self, what: str) -> None:
        """Begin an uncounted phase (ends the current one)."""
        self.end()
        self._line = (what, time.perf_counter())
        if self.enabled:
            print(f"{what} ...", end="", file=self.file, flush=True)

    def end(self, note: str = "") -> None:
        """End the current phase, bar or line (no-op when none is open)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            self._bar_key = ""
        if self._line is not None:
            what, t0 = self._line
            dt = time.perf_counter() - t0
            self.timings[what] = dt
            if self.enabled:
                print(f" done in {dt:.1f} s{note}", file=self.file, flush=True)
            self._line = None

    # -- counted phases -------------------------------------------------------------------
    def count(self, key: str, done: int, total: int, *, desc: str, unit: str) -> None:
        """Progress of counted phase ``key`` (``total = 0``: not known in advance).

        The bar opens on the first call for ``key`` (ending the previous phase)
        and closes as soon as ``done`` reaches a known ``total``.
        """
        if key in self._complete:  # a late report of a finished phase
            return
        if self._bar_key != key:
            self.end()
            from tqdm import tqdm

            self._bar_key = key
            self._bar = tqdm(total=total or None, desc=desc, unit=unit, file=self.file,
                             disable=not self.enabled, mininterval=0.5)  # fmt: skip
        bar = self._bar
        bar.total = total or None
        bar.n = done
        if total and done >= total:
            bar.refresh()
            self.end()
            self._complete.add(key)  # later reports of this phase are ignored
        elif done % 256 == 0:
            bar.refresh()

    def close(self) -> None:
        self.end()
