"""Start one OS process per party: forks of this process or of a pre-imported server, or fresh interpreters.

:func:`parties.procs.run_processes` runs ``mpc-rr party ARGV`` once per party.
Three ways to start those processes, chosen with ``launch=``:

* ``"exec"``: ``python -m parties.party_main ARGV`` -- a new interpreter per
  party, exactly what a user starts on a host of its own.  Every process pays
  the interpreter and its imports (trio, numpy, ssl, cryptography, msgspec,
  the protocol: ~0.5 s of CPU), and m processes on 2 cores pay it m times.
* ``"fork"``: this process imports those modules once and forks one child
  per party (:mod:`multiprocessing`'s ``fork`` context); the child runs the
  same :func:`parties.party_main.main` (ARGV).  Only where forking is safe
  (:func:`fork_is_safe`: Linux, no other thread in this process -- a fork
  copies only the calling thread, so a lock another thread held would stay
  locked in the child); a :class:`UsageError` otherwise.
* ``"fork-server"``: the standard library's :mod:`multiprocessing` fork
  server, preloaded with those modules, forks the parties.  Safe from a
  process with threads; costs a second interpreter and its imports once per
  runner (~0.14 s more than ``"fork"`` for a 4-party run here).
* ``"auto"`` (default): ``"fork"`` where it is safe, else ``"fork-server"``.

Whichever fork, each party is its own OS process with its own memory,
sockets, TLS context and keys.  Fork safety: keys, masks and shares come
from the OS CSPRNG or OpenSSL (which reseeds in a forked child), simulation
noise from the seed given to the party; nothing random is drawn at import
time (``tests/parties/test_launch.py`` checks that forked parties advertise distinct
keys, for both forks).

All return a handle with the subset of :class:`subprocess.Popen` the runner
uses: ``wait(timeout)`` (raises :class:`subprocess.TimeoutExpired`),
``poll()``, ``send_signal(sig)``, ``kill()`` and ``returncode``.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import threading
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from mpc_rr.core import UsageError

__all__ = [
    "LAUNCHES",
    "PartyProcess",
    "fork_is_safe",
    "launch_party",
    "preload_modules",
    "resolve_launch",
    "sigint_held",
    "start_launcher",
]

LAUNCHES = ("auto", "fork", "fork-server", "exec")

_COMMON_PRELOAD = (
    "numpy",
    "numpy.random",
    "secrets",
    "trio",
    "ssl",
    "msgspec",
    "cryptography.hazmat.primitives.asymmetric.x25519",
    "parties.party_main",
    "parties.node",
    "parties.launch",
    "transports.tcp",
    "transports.pki",
)


class PartyProcess(Protocol):
    """What the runner needs of a started party process (a subset of ``Popen``)."""

    @property
    def returncode(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def poll(self) -> int | None: ...

    def send_signal(self, sig: int) -> None: ...

    def kill(self) -> None: ...


def preload_modules(protocol: str) -> list[str]:
    """Modules the fork server imports once: the party command, the runtime, the protocol's roles."""
    from mpc_rr.core._registry import BUILTIN

    target = BUILTIN.get(protocol)
    return [*_COMMON_PRELOAD, *([target.partition(":")[0]] if target else [])]


def fork_is_safe() -> bool:
    """Linux and no other thread in this process: a plain ``fork`` cannot inherit a held lock."""
    return sys.platform == "linux" and threading.active_count() == 1


def resolve_launch(launch: str) -> str:
    """``launch`` with ``"auto"`` made concrete (``"fork"`` where it is safe, else ``"fork-server"``)."""
    if launch not in LAUNCHES:
        raise UsageError(f"launch must be one of {LAUNCHES}, got {launch!r}")
    if launch == "auto":
        return "fork" if fork_is_safe() else "fork-server"
    if launch == "fork" and not fork_is_safe():
        raise UsageError(
            "launch 'fork' needs Linux and a process without other threads (this one runs "
            f"{threading.active_count()} threads on {sys.platform}); use 'fork-server' or 'auto'"
        )
    return launch


def launch_party(
    launch: str,
    argv: list[str],
    log: Path,
    *,
    listen: socket.socket | None = None,
    preload: list[str] | None = None,
    python: str = sys.executable,
    entry: Sequence[str] | None = None,
) -> PartyProcess:
    """Start ``mpc-rr party ARGV`` (``argv`` without ``party``) with stderr to ``log``.

    ``listen``: a bound, listening socket the party (the hub) serves; it is
    handed to the child and the child gets ``--listen-fd``.  The caller may
    close its own copy once this returns.  ``entry``: the interpreter arguments that
    run the party instead of ``-m parties.party_main`` (a program taking the same
    flags, e.g. a hostile party in tests), always in a fresh interpreter.
    """
    launch = "exec" if entry is not None else resolve_launch(launch)
    if launch == "exec":
        return _exec(argv, log, listen, python, entry or _ENTRY)
    if launch == "fork":
        return _fork_here(argv, log, listen)
    return _fork(argv, log, listen, preload or [])


_ENTRY = ("-m", "parties.party_main")


def _exec(argv: list[str], log: Path, listen: socket.socket | None, python: str,
          entry: Sequence[str] = _ENTRY) -> PartyProcess:  # fmt: skip
    fds: tuple[int, ...] = ()
    if listen is not None:
        fds = (listen.fileno(),)
        argv = [*argv, "--listen-fd", str(listen.fileno())]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with open(log, "wb") as err:  # the child holds its own descriptor
        return subprocess.Popen(
            [python, *entry, *argv],
            stdout=subprocess.DEVNULL, stderr=err, env=env, pass_fds=fds,
        )  # fmt: skip


@contextlib.contextmanager
def sigint_held(*, exec_children: bool = False) -> Iterator[None]:
    """SIGINT kept from the child processes started inside (the fork server, shard workers).

    A terminal's Ctrl-C goes to the whole process group; the children must not be
    interrupted in their start-up or their work (no ``Fatal Python error``, no worker
    traceback): their parent gets the Ctrl-C and stops them.  Forked children inherit
    the mask set here (SIGINT blocked in this thread; a Ctrl-C meanwhile waits for the
    parent until the block ends).  ``exec_children``: children that execute a new
    interpreter (the fork server) get a cleared mask but keep an ignored signal, so
    SIGINT is also ignored while they start -- a Ctrl-C in those milliseconds is lost.
    A no-op where signals cannot be masked.
    """
    mask = getattr(signal, "pthread_sigmask", None)
    if mask is None:
        yield
        return
    old = mask(signal.SIG_BLOCK, {signal.SIGINT})
    handler = signal.signal(signal.SIGINT, signal.SIG_IGN) if exec_children else None
    try:
        yield
    finally:
        if handler is not None:
            signal.signal(signal.SIGINT, handler)
        mask(signal.SIG_SETMASK, old)


_server_preload: list[str] | None = None


def start_launcher(launch: str, preload: list[str]) -> None:
    """Start the fork server now (it imports ``preload`` while the caller goes on).

    ``launch`` is concrete (see :func:`resolve_launch`).  ``"fork"``: import
    ``preload`` here.  Nothing to do for ``"exec"``.  The server lives as long as this process
    and keeps the modules of its first start; a later protocol's other
    modules are imported by each child.
    """
    global _server_preload
    if launch == "fork":  # the children inherit what this process imports now
        _import_all(preload)
        return
    if launch != "fork-server":
        return
    if _server_preload is None:
        _server_preload = list(preload)
        multiprocessing.set_forkserver_preload(_server_preload)
    from multiprocessing import forkserver

    if threading.current_thread() is not threading.main_thread():
        forkserver.ensure_running()  # signal handlers are the main thread's to change
        return
    with sigint_held(exec_children=True):  # the server and what it forks ignore the Ctrl-C
        forkserver.ensure_running()


def _fork(argv: list[str], log: Path, listen: socket.socket | None, preload: list[str]) -> PartyProcess:
    start_launcher("fork-server", preload)
    ctx = multiprocessing.get_context("forkserver")
    proc = ctx.Process(target=_party_main, args=(argv, str(log), listen), daemon=True)
    with _no_main_module():
        proc.start()
    return _Forked(proc)


def _import_all(modules: list[str]) -> None:
    import importlib

    for name in modules:
        importlib.import_module(name)


def _fork_here(argv: list[str], log: Path, listen: socket.socket | None) -> PartyProcess:
    # the runner imported the parties' modules once (start_launcher); a child imports what
    # is missing itself
    ctx = multiprocessing.get_context("fork")
    proc = ctx.Process(target=_party_main, args=(argv, str(log), listen), daemon=True)
    proc.start()  # a fork runs _party_main directly: the caller's main script is not re-run
    return _Forked(proc)


@contextlib.contextmanager
def _no_main_module() -> Iterator[None]:
    """Hide the caller's ``__main__`` from :mod:`multiprocessing` while a child starts.

    multiprocessing re-runs the parent's main script or module in every child
    (so that pickled functions defined there resolve).  A party never needs
    it -- its entry point is :func:`_party_main` here -- and re-running it
    would cost start-up time, repeat any unguarded side effects of the
    caller's script, and fails outright for ``python -`` (``<stdin>``).
    """
    main = sys.modules["__main__"]
    stub = types.ModuleType("__main__")
    stub.__spec__ = None
    sys.modules["__main__"] = stub
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def _party_main(argv: list[str], log: str, listen: socket.socket | None) -> None:
    """The forked child: stdout to /dev/null, stderr to ``log``, then ``mpc-rr party ARGV``."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.dup2(os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), 2)
    if listen is not None:  # this socket object must not close the descriptor the hub serves
        argv = [*argv, "--listen-fd", str(listen.detach())]
    from parties.party_main import main

    sys.exit(main(argv))


class _Forked:
    """A :class:`multiprocessing.Process` behind the ``Popen`` subset the runner uses."""

    def __init__(self, proc: Any) -> None:
        self._proc = proc

    @property
    def returncode(self) -> int | None:
        code: int | None = self._proc.exitcode
        return code

    def wait(self, timeout: float | None = None) -> int:
        self._proc.join(timeout)
        code = self._proc.exitcode
        if code is None:
            raise subprocess.TimeoutExpired(f"party process {self._proc.pid}", timeout or 0.0)
        return int(code)

    def poll(self) -> int | None:
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self._proc.exitcode is None:
            os.kill(self._proc.pid, sig)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)
