"""Progress of a long command on standard error: counted phases with totals and ETA, the rest
as timed lines.

A :class:`Phases` shows one phase at a time.  A phase whose work can be
counted (parties that answered, messages relayed) is, on a terminal, a
``tqdm`` bar closed the moment it is complete (so its rate covers that phase
only); without a terminal (a pipe, a CI or ``nohup`` log, ``make demo > log``)
it is a line when it starts, one at most every ``interval`` seconds with the
count, rate and ETA, and one when it completes.  A phase that cannot be
counted (loading a data set, clustering, estimating) is a line
``"<what> ..."`` completed with ``"done in X s"``.  Without a terminal, a phase
that says nothing for ``heartbeat`` seconds (building 30,000 parties, a phase
whose counts arrive only at its end) gets a ``"<what>: still running, N s"``
line, so a log never looks stuck.  ``enabled=False``: silent.
"""

from __future__ import annotations

import sys
import threading
import time
import weakref
from typing import IO, Any

__all__ = ["Phases", "eta_text", "progress_bar"]


def progress_bar(**kwargs: Any) -> Any:
    """``tqdm(**kwargs)`` without tqdm's monitor thread.

    tqdm starts its monitor (a daemon thread waking every 10 s) in ``__new__``,
    also for a bar that ``__init__`` then disables (``disable=None`` and no
    terminal), and only an *enabled* bar's ``close`` stops it: every command
    run in-process without a terminal (the suite, a notebook) left one
    running, and a thread alive at ``fork`` makes the child unsafe.  The
    monitor only tunes ``miniters`` of stalled bars, which these do not set.
    """
    from tqdm import tqdm

    class _Bar(tqdm):  # type: ignore[type-arg]
        monitor_interval = 0

    return _Bar(**kwargs)


def eta_text(done: int, total: int, elapsed: float, unit: str = "") -> str:
    """``"1,234/5,000 party (25%), 310 party/s, ETA 12 s"`` (rate and ETA once something is done;
    without a ``total``: the count and rate)."""
    u = f" {unit}" if unit else ""
    rate = done / elapsed if done and elapsed > 0 else 0.0
    if total <= 0:
        return f"{done:,}{u}" + (f", {rate:,.0f}{u}/s" if rate else "")
    text = f"{done:,}/{total:,}{u} ({100 * done / total:.0f}%)"
    if rate:
        text += f", {rate:,.0f}{u}/s"
        if done < total:
            text += f", ETA {(total - done) / rate:.0f} s"
    return text


class Phases:
    """One phase at a time (see module docstring)."""

    def __init__(
        self, file: IO[str] | None = None, *, enabled: bool | None = None, interval: float = 10.0,
        heartbeat: float = 15.0,
    ) -> None:  # fmt: skip
        self.file = file if file is not None else sys.stderr
        tty = bool(getattr(self.file, "isatty", lambda: False)())
        self.enabled = enabled is not False
        self.bars = bool(enabled) or (enabled is None and tty)  # else lines
        self.interval = interval
        self._line: tuple[str, float] | None = None
        self._bar: Any = None
        self._bar_key = ""
        self._counted: tuple[str, str, str, float, float] | None = None  # key, desc, unit, t0, last
        self._complete: set[str] = set()
        self.timings: dict[str, float] = {}
        self.heartbeat = heartbeat
        self._said = time.perf_counter()
        self._lock = threading.Lock()
        self._stop: threading.Event | None = None

    def _say(self, text: str, end: str = "\n") -> None:
        if self.enabled:
            with self._lock:
                print(text, end=end, file=self.file, flush=True)
                self._said = time.perf_counter()

    def _open(self) -> tuple[str, float] | None:
        """The phase open now: (what, when it began)."""
        if self._line is not None:
            return self._line
        if self._counted is not None:
            return self._counted[1], self._counted[3]
        return None

    def _watch(self) -> None:
        if self.enabled and not self.bars and self._stop is None and self.heartbeat > 0:
            self._stop = threading.Event()
            threading.Thread(target=_beat, args=(weakref.ref(self), self._stop, self.heartbeat),
                             daemon=True, name="phases-heartbeat").start()  # fmt: skip

    # -- timed lines ----------------------------------------------------------------------
    def start(self, what: str) -> None:
        """Begin an uncounted phase (ends the current one)."""
        self.end()
        self._line = (what, time.perf_counter())
        self._say(f"{what} ...", end="" if self.bars else "\n")
        self._watch()

    def end(self, note: str = "") -> None:
        """End the current phase, bar or line (no-op when none is open)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
            self._bar_key = ""
        self._counted = None
        if self._line is not None:
            what, t0 = self._line
            dt = time.perf_counter() - t0
            self.timings[what] = dt
            self._say(f" done in {dt:.1f} s{note}" if self.bars else f"{what}: done in {dt:.1f} s{note}")
            self._line = None

    # -- counted phases -------------------------------------------------------------------
    def count(self, key: str, done: int, total: int, *, desc: str, unit: str) -> None:
        """Progress of counted phase ``key`` (``total = 0``: not known in advance).

        The phase opens on the first call for ``key`` (ending the previous one)
        and closes as soon as ``done`` reaches a known ``total``.
        """
        if key in self._complete:  # a late report of a finished phase
            return
        if self.bars:
            self._count_bar(key, done, total, desc=desc, unit=unit)
            return
        now = time.perf_counter()
        if self._counted is None or self._counted[0] != key:
            self.end()
            self._counted = (key, desc, unit, now, now)
            self._watch()
            if not (total and done >= total):  # (a phase can be complete at its first report)
                self._say(f"{desc}: started ({eta_text(done, total, 0.0, unit)})")
                return
        k, d, u, t0, last = self._counted
        if total and done >= total:
            took = f", done in {now - t0:.1f} s" if now > t0 else ""
            self._say(f"{desc}: {eta_text(done, total, now - t0, unit)}{took}")
            self.timings[desc] = now - t0
            self._counted = None
            self._complete.add(key)
        elif now - last >= self.interval:
            self._say(f"{desc}: {eta_text(done, total, now - t0, unit)}")
            self._counted = (k, d, u, t0, now)

    def _count_bar(self, key: str, done: int, total: int, *, desc: str, unit: str) -> None:
        if self._bar_key != key:
            self.end()
            self._bar_key = key
            # initial=done: work done before the bar opened does not count towards its rate
            self._bar = progress_bar(total=total or None, initial=done, desc=desc, unit=unit,
                             file=self.file, disable=not self.enabled, mininterval=0.5)  # fmt: skip
        bar = self._bar
        bar.total = total or None
        bar.update(done - bar.n)
        if total and done >= total:
            bar.refresh()
            self.end()
            self._complete.add(key)  # later reports of this phase are ignored

    def close(self) -> None:
        """End the open phase and stop the heartbeat thread."""
        self.end()
        if self._stop is not None:
            self._stop.set()
            self._stop = None

    def __enter__(self) -> Phases:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()  # also when the command is refused mid-way: no heartbeat left running


def _beat(ref: weakref.ref[Phases], stop: threading.Event, every: float) -> None:
    """(a daemon thread, lines mode only) a line when the open phase has been quiet ``every``
    seconds; ends with :meth:`Phases.close` or when the :class:`Phases` is gone (a command that
    raised never closes it, and holds it by ``ref`` only)."""
    while not stop.wait(min(1.0, every)):
        ph = ref()
        if ph is None:
            return
        phase = ph._open()
        now = time.perf_counter()
        if phase is not None and now - ph._said >= every:
            ph._say(f"{phase[0]}: still running, {now - phase[1]:.0f} s")
        del ph
