"""Shards in worker processes: starting them, the worker's command loop, frames through files.

* Start methods and the heap: :func:`start_method` forks where that is safe
  (Linux, no other thread) and uses the fork server otherwise; :func:`trim_heap` hands
  the C heap's free pages back to the OS before forking.
* :class:`ProcessPool` (a :class:`~parties.shard_control.ShardPool`): one
  process and one pipe per shard, each process running
  :func:`_worker_main` -- a :class:`~parties.shard_engine.ShardHost` serving
  superstep commands until ``finish``.  What crosses the pipes: each
  worker's picklable :class:`~parties.shard_engine.ShardSpec` at start and
  its pickled :class:`~parties.shard_engine.ShardFinal` at the end (between
  a parent and the workers it started, as ``multiprocessing`` itself does);
  per superstep a MessagePack command, the
  :class:`~parties.shard_engine.StepReport` and the frames.
* Spill files: a frame of at least :data:`SPILL_BYTES` crosses as a file in
  the run's private folder (:func:`spill_dir`, tmpfs where there is one),
  written once and read once; the pipes carry its name.  A folder that
  cannot be written (full, missing) sends the frame through the pipe.

Pipe messages, worker to parent: ``R`` ready, ``S`` + report, ``B`` + u32
destination + frame, ``P`` + u32 destination + spill file name, ``F`` then
the pickled final, ``E`` + a traceback.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import traceback
from typing import Any

import msgspec

from mpc_rr.core import UsageError
from parties.launch import sigint_held
from parties.shard_engine import ShardFinal, ShardHost, ShardSpec, StepReport

__all__ = ["SPILL_BYTES", "ProcessPool", "spill_dir", "start_method", "trim_heap"]


def trim_heap() -> None:
    """Hand the C heap's free pages back to the OS (glibc ``malloc_trim(0)``) before forking.

    A forked worker's allocations reuse the free chunks of the heap it
    inherited; those pages are still shared with the parent, so the first
    write to each copies it (a copy-on-write fault).  After the trim the
    worker faults fresh zero pages instead: allocating 400 MB in a child of a
    parent with a fragmented 1 GB heap took 0.44 s without the trim and
    0.28 s with it (0.15 s from an unfragmented parent).  A parent that ran a
    large simulation before (a benchmark, a notebook) has such a heap.  A
    no-op without glibc.
    """
    import ctypes

    trim = getattr(ctypes.CDLL(None), "malloc_trim", None)  # this process's own symbols
    if trim is not None:  # glibc; elsewhere nothing to trim this way
        trim(0)


SHARD_PRELOAD = ("parties.shard_processes", "parties.shard_direct", "mpc_rr.pipeline")
"""Modules the fork server imports once for shard workers (beside the parties' own)."""


def start_method() -> str:
    """``fork`` where it is safe (Linux, no other thread in this process), else ``forkserver``.

    A forked worker starts in milliseconds with every module already imported
    (a spawned one re-imports numpy, trio, cryptography: ~0.6 CPU-seconds);
    forking a process that runs other threads (Ray's driver, the command line's
    heartbeat, a thread pool) can deadlock the child, so those get the fork
    server: a single-threaded process, started once per process with
    :data:`SHARD_PRELOAD` imported, that forks each worker.  Its workers start
    as spawned ones do (arguments pickled, this process's working folder and
    ``sys.path``; the environment is the server's, from its start, as for
    forked parties in :mod:`parties.launch`) but without the imports after the
    first run: two workers of a 60-party run started in 0.9 s against 4 s
    spawned, on a loaded 2-core machine.
    """
    from parties.launch import fork_is_safe

    return "fork" if fork_is_safe() else "forkserver"



SPILL_BYTES = 1 << 20
"""A frame at least this large crosses between processes as a file in the run's spill folder
(on tmpfs where there is one), not through the pipes: the pipes would carry it twice (worker
to parent, parent to worker) and each end copies it several times; the file is written once
and read once, and the parent only forwards its name."""


def spill_dir() -> str:
    """A fresh private folder for one run's spilled frames (``/dev/shm`` if present)."""
    import tempfile

    shm = "/dev/shm"
    return tempfile.mkdtemp(prefix="mpc-rr-frames-", dir=shm if os.path.isdir(shm) else None)


def _spill(folder: str, name: str, frame: bytes) -> str | None:
    """Write ``frame`` to ``folder/name``; ``None`` if it cannot be written (the caller then
    sends it through the pipe).  A small ``/dev/shm`` -- 64 MB in a default Docker container --
    fills up with two of Adult's ~55 MB frames; a full or missing folder must not end the run."""
    path = os.path.join(folder, name)
    try:
        with open(path, "wb") as fh:
            fh.write(frame)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(path)
        return None
    return path


def _read_spilled(path: str) -> bytes:
    """The frame in ``path``, which is then removed (each spilled frame is read once)."""
    with open(path, "rb") as fh:
        data = fh.read()
    os.unlink(path)
    return data


def _worker_main(
    conn: Any, spec_blob: bytes, spill: str | None = None, spill_bytes: int = SPILL_BYTES
) -> None:
    """Entry point of a worker process: serve superstep commands until ``finish``.

    ``spill``: the folder for frames of at least ``spill_bytes`` (``None``: every frame
    through the pipe).
    """
    import signal

    # a terminal's Ctrl-C reaches the whole process group: the parent stops its workers (it
    # closes their pipes, then terminates them), so a worker never raises KeyboardInterrupt
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _serve(conn, spec_blob, spill, spill_bytes)
    except (EOFError, BrokenPipeError, ConnectionResetError):  # the parent went away (or
        return  # closed our pipe to stop us: an interrupted run)
    except BaseException:
        with contextlib.suppress(OSError):
            conn.send_bytes(b"E" + traceback.format_exc().encode())


def _serve(conn: Any, spec_blob: bytes, spill: str | None, spill_bytes: int) -> None:
    """The worker's command loop (:func:`_worker_main`)."""
    host = ShardHost(pickle.loads(spec_blob))
    conn.send_bytes(b"R")
    enc = msgspec.msgpack.Encoder()
    # (advance_to, frames, indices of the frames that are spill file names)
    cmd_dec = msgspec.msgpack.Decoder(tuple[float | None, list[bytes], list[int]])
    shard, step = host.engine.spec.shard, 0
    while True:
        msg = conn.recv_bytes()
        if msg == b"F":  # the results: a marker, then the pickle (no copy of a large blob)
            blob = pickle.dumps(host.finish(), protocol=pickle.HIGHEST_PROTOCOL)
            conn.send_bytes(b"F")
            conn.send_bytes(blob)
            return
        advance, frames, spilled = cmd_dec.decode(msg)
        del msg
        for i in spilled:
            frames[i] = _read_spilled(frames[i].decode())
        report = host.step(frames, advance)
        del frames
        conn.send_bytes(b"S" + enc.encode(report))
        for dst, frame in sorted(host.take_frames().items()):
            path = None
            if spill is not None and len(frame) >= spill_bytes:
                path = _spill(spill, f"{shard}-{dst}-{step}", frame)
            if path is not None:
                conn.send_bytes(b"P" + dst.to_bytes(4, "little") + path.encode())
            else:
                conn.send_bytes(b"B" + dst.to_bytes(4, "little") + frame)
        step += 1


class ProcessPool:
    """Shards in worker processes, one pipe each (blocking, in the caller's thread).

    A :class:`~parties.shard_control.ShardPool`.  ``method``: the start method
    (default :func:`start_method`).  ``spill``: the run's private folder for
    frames of at least ``spill_bytes`` (default: a fresh :func:`spill_dir`);
    the pool owns it and removes it in :meth:`close`.
    """

    def __init__(
        self,
        specs: list[ShardSpec],
        method: str | None = None,
        *,
        spill: str | None = None,
        spill_bytes: int = SPILL_BYTES,
    ) -> None:
        import multiprocessing as mp

        self.conns: list[Any] = []
        self.procs: list[Any] = []
        self._spill = spill_dir() if spill is None else spill  # removed by close()
        # a frame is its bytes, or the name of the spill file holding them
        self._frames: list[dict[int, bytes | str]] = [{} for _ in specs]
        self._enc = msgspec.msgpack.Encoder()
        self._dec = msgspec.msgpack.Decoder(StepReport)
        try:
            ctx = mp.get_context(method or start_method())
            if ctx.get_start_method() == "fork":
                trim_heap()
            elif ctx.get_start_method() == "forkserver":
                from parties.launch import preload_modules, start_launcher

                # one server per process, shared with forked parties (parties.launch)
                start_launcher("fork-server", [*preload_modules(""), *SHARD_PRELOAD])
            for spec in specs:
                try:
                    blob = pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL)
                except (pickle.PicklingError, TypeError, AttributeError) as exc:
                    raise UsageError(
                        f"the role plan {type(spec.plan).__name__} cannot be sent to a worker "
                        f"process ({exc}); use picklable parameters (e.g. module-level factories)"
                    ) from None
                parent, child = ctx.Pipe(duplex=True)
                proc = ctx.Process(
                    target=_worker_main, args=(child, blob, self._spill, spill_bytes), daemon=True
                )
                with sigint_held():  # until the worker ignores SIGINT itself
                    proc.start()
                child.close()
                self.conns.append(parent)
                self.procs.append(proc)
            for k in range(len(self.conns)):
                self._expect(k, self._recv(k), b"R")
        except BaseException:
            self.close()
            raise

    def _expect(self, k: int, msg: bytes, kind: bytes) -> bytes:
        if msg[:1] == kind:
            return msg[1:]
        if msg[:1] == b"E":
            raise RuntimeError(f"shard worker {k} failed:\n{msg[1:].decode(errors='replace')}")
        raise RuntimeError(f"shard worker {k}: unexpected reply {msg[:20]!r}")

    def _recv(self, k: int) -> bytes:
        try:
            msg: bytes = self.conns[k].recv_bytes()
        except EOFError:
            code = self.procs[k].exitcode
            raise RuntimeError(f"shard worker {k} died (exit code {code})") from None
        return msg

    def step(self, inbound: list[list[Any]], advance_to: float | None) -> list[StepReport]:
        for k, c in enumerate(self.conns):
            frames = [h.encode() if isinstance(h, str) else h for h in inbound[k]]
            spilled = [i for i, h in enumerate(inbound[k]) if isinstance(h, str)]
            c.send_bytes(self._enc.encode((advance_to, frames, spilled)))
        reports = []
        for k in range(len(self.conns)):
            r = self._dec.decode(self._expect(k, self._recv(k), b"S"))
            frames: dict[int, bytes | str] = {}
            for _ in range(sum(1 for d, n in enumerate(r.sizes) if n and d != k)):
                msg = self._recv(k)
                dst = int.from_bytes(msg[1:5], "little")
                frames[dst] = msg[5:].decode() if msg[:1] == b"P" else msg[5:]
            self._frames[k] = frames
            reports.append(r)
        return reports

    def outbound(self, shard: int, dst: int) -> bytes | str:
        return self._frames[shard][dst]

    def finish(self) -> list[ShardFinal]:
        for c in self.conns:
            c.send_bytes(b"F")
        finals = []
        for k in range(len(self.conns)):
            self._expect(k, self._recv(k), b"F")
            finals.append(pickle.loads(self._recv(k)))
        return finals

    def close(self) -> None:
        import shutil
        import time

        for c in self.conns:
            c.close()
        # a worker waiting for a command sees the pipe close and exits at once; one inside a
        # step (the run was interrupted) is stopped: a Ctrl-C must end every worker within 1 s
        deadline = time.monotonic() + 0.5
        for p in self.procs:
            p.join(timeout=max(0.0, deadline - time.monotonic()))
        for p in self.procs:
            if p.is_alive():
                p.terminate()
        for p in self.procs:
            p.join(timeout=0.3)
            if p.is_alive():
                p.kill()
                p.join()
        shutil.rmtree(self._spill, ignore_errors=True)
