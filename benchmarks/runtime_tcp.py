"""TCP on loopback: N endpoints in one process, each with its own connection to the hub.

Three stacks side by side in the same run, same work pattern (every client
sends one payload to the hub, the hub answers each with a small or equal
payload):

* ``tls``   -- ours: Party actors over the TCP transport with mutual TLS 1.3;
* ``plain`` -- ours with ``tls=False`` (the explicit classroom mode);
* ``bare``  -- raw ``trio`` TCP streams with a 4-byte length prefix, no TLS,
  no codec, no parties (the floor of what trio can do here).

Reported: handshakes/s (connection set-up, TLS included), msgs/s of a round
of ``--small`` byte messages (echoed), and MB/s of a round of ``--big`` byte
messages (client -> hub; the hub answers 16 bytes).  Medians over
``--repeats``.  Also times ``--procs`` parties as separate OS processes
completing one plaintext-sum round over TLS.

    python -m benchmarks.runtime_tcp --parties 1000 --repeats 3 --procs 100
"""

from __future__ import annotations

import argparse
import functools
import json
import statistics
import struct
import time

import trio

from benchmarks._echo import echo_roles
from parties.procs import run_processes
from parties.tcp_runner import run_tcp


async def ours(n: int, size: int, reply: int | None, tls: bool) -> dict[str, float]:
    t0 = time.perf_counter()
    res = await run_tcp(echo_roles(n, size, reply), tls=tls, buffer=64, connect_limit=128)
    total = time.perf_counter() - t0
    if not res.ok:
        raise RuntimeError(f"tcp echo failed: {list(res.errors.values())[:3]}")
    return {
        "handshake_s": res.costs.extra["handshake_s"],
        "round_s": res.costs.wall_s,
        "total_s": total,
        "bytes": res.costs.bytes,
    }


async def bare(n: int, size: int, reply: int | None) -> dict[str, float]:
    head = struct.Struct(">I")
    ans = bytes(size if reply is None else min(reply, size))

    async def read_frame(stream: trio.SocketStream, buf: bytearray) -> bytes:
        while len(buf) < 4 or len(buf) < 4 + head.unpack_from(buf)[0]:
            chunk = await stream.receive_some(1 << 20)
            if not chunk:
                raise EOFError
            buf += chunk
        ln = head.unpack_from(buf)[0]
        data = bytes(buf[4 : 4 + ln])
        del buf[: 4 + ln]
        return data

    async def handler(stream: trio.SocketStream) -> None:
        buf = bytearray()
        try:
            await read_frame(stream, buf)
            await stream.send_all(head.pack(len(ans)) + ans)
            await stream.receive_some(1)  # wait for the client to close
        except (EOFError, trio.BrokenResourceError):
            pass

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(
            functools.partial(trio.serve_tcp, handler, 0, host="127.0.0.1")
        )
        port = listeners[0].socket.getsockname()[1]
        t0 = time.perf_counter()
        streams = []
        limiter = trio.CapacityLimiter(128)

        async def conn() -> None:
            async with limiter:
                streams.append(await trio.open_tcp_stream("127.0.0.1", port))

        async with trio.open_nursery() as cn:
            for _ in range(n):
                cn.start_soon(conn)
        t1 = time.perf_counter()
        payload = bytes(size)

        async def client(s: trio.SocketStream) -> None:
            await s.send_all(head.pack(size) + payload)
            await read_frame(s, bytearray())
            await s.aclose()

        async with trio.open_nursery() as rn:
            for s in streams:
                rn.start_soon(client, s)
        t2 = time.perf_counter()
        nursery.cancel_scope.cancel()
    return {"handshake_s": t1 - t0, "round_s": t2 - t1, "total_s": t2 - t0, "bytes": n * size}


def med(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parties", type=int, default=1000, help="client endpoints (hub extra)")
    ap.add_argument("--small", type=int, default=1024)
    ap.add_argument("--big", type=int, default=1 << 20)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--procs", type=int, default=100, help="OS processes (0 = skip)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    n = a.parties
    rep: dict = {"parties": n, "small": a.small, "big": a.big, "repeats": a.repeats}
    stacks = {
        "tls": lambda size, reply: ours(n, size, reply, True),
        "plain": lambda size, reply: ours(n, size, reply, False),
        "bare": lambda size, reply: bare(n, size, reply),
    }
    for name, fn in stacks.items():
        small = [trio.run(fn, a.small, None) for _ in range(a.repeats)]
        big = [trio.run(fn, a.big, 16) for _ in range(a.repeats)]
        hs = med(small + big, "handshake_s")
        rep[name] = {
            "handshakes_per_s": n / hs,
            "small_round_s": med(small, "round_s"),
            "small_msgs_per_s": 2 * n / med(small, "round_s"),
            "big_round_s": med(big, "round_s"),
            "big_MB_per_s": n * a.big / 1e6 / med(big, "round_s"),
        }
    for k in ("handshakes_per_s", "small_msgs_per_s", "big_MB_per_s"):
        rep[f"ratio_tls_over_bare_{k}"] = rep["tls"][k] / rep["bare"][k]
        rep[f"ratio_tls_over_plain_{k}"] = rep["tls"][k] / rep["plain"][k]
    if a.procs:
        t0 = time.perf_counter()
        pr = run_processes("plainsum", a.procs + 1, seed=1, params={"cells": 4}, timeout=600)
        rep["procs"] = {
            "parties": a.procs + 1,
            "ok": pr.ok,
            "wall_s": time.perf_counter() - t0,
            "messages": pr.costs.messages,
            "errors": list(pr.errors.values())[:3],
        }
    if a.json:
        print(json.dumps(rep))
        return rep
    print(f"{n} client endpoints + hub on loopback, median of {a.repeats} (2 shared cores)")
    print(f"{'stack':6s} {'handshakes/s':>13s} {'1 KiB msgs/s':>13s} {'1 MiB MB/s':>11s}")
    for name in stacks:
        r = rep[name]
        print(
            f"{name:6s} {r['handshakes_per_s']:13,.0f} {r['small_msgs_per_s']:13,.0f} "
            f"{r['big_MB_per_s']:11,.1f}"
        )
    for k in ("handshakes_per_s", "small_msgs_per_s", "big_MB_per_s"):
        print(
            f"ratio tls/bare {k}: {rep[f'ratio_tls_over_bare_{k}']:.2f}   "
            f"tls/plain: {rep[f'ratio_tls_over_plain_{k}']:.2f}"
        )
    if a.procs:
        p = rep["procs"]
        print(
            f"{p['parties']} OS processes, one plaintext-sum round over TLS: "
            f"{'OK' if p['ok'] else 'FAILED'} in {p['wall_s']:.1f} s ({p['messages']} messages)"
        )
    return rep


if __name__ == "__main__":
    main()
