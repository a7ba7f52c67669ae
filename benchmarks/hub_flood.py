"""Hub memory under a party that floods without reading.

Party 1 sends ``--frames`` frames of ``--size`` MiB addressed to itself and
never reads; the hub (same process) must not queue them all.  Prints how
many frames the hub accepted before throttling the sender, the process RSS
(hub + one client; the client reuses one payload object) and the bytes the
hub holds.  With ``--stall S`` the hub's ``stall_timeout`` is ``S`` seconds:
the party is then named in ``hub.peer_errors`` and disconnected.

    python -m benchmarks.hub_flood --frames 1024 [--stall 3] [--plain]
"""

from __future__ import annotations

import argparse
import functools
import resource
import tempfile
import time
from pathlib import Path

import trio

from transports.pki import generate_deployment
from transports.tcp import connect_client, open_hub


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize() / 1e6
    except OSError:  # not Linux: peak RSS only
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


async def flood(frames: int, size_mib: int, stall: float | None, tls: bool, idle: float) -> None:
    roster = generate_deployment(2, Path(tempfile.mkdtemp(prefix="mpc-rr-flood-")), hub_port=0)
    payload = bytes(size_mib << 20)
    print(f"RSS at start {_rss_mb():.0f} MB")
    kw = {} if stall is None else {"stall_timeout": stall}
    async with open_hub(roster, host="127.0.0.1", port=0, tls=tls, **kw) as hub:
        r = roster.with_hub_address("127.0.0.1", hub.port)
        c = await connect_client(r, 1, tls=tls)
        sent, ended = 0, "throttled"

        async def sender() -> None:
            nonlocal sent, ended
            try:
                for _ in range(frames):
                    await c.send(1, payload)
                    sent += 1
                ended = "all accepted"
            except Exception as exc:  # the hub disconnected us
                ended = f"stopped: {exc}"

        t0 = time.perf_counter()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(sender)
            last, since = -1, time.perf_counter()
            while ended == "throttled" and time.perf_counter() - since < idle:
                await trio.sleep(0.1)
                if sent != last:
                    last, since = sent, time.perf_counter()
            rss = _rss_mb()
            nursery.cancel_scope.cancel()
        print(
            f"sender: {sent} of {frames} frames of {size_mib} MiB accepted in "
            f"{time.perf_counter() - t0:.1f} s ({ended}); process RSS {rss:.0f} MB"
        )
        queued = getattr(hub, "queued_bytes", None)
        if queued is not None:
            print(f"hub.queued_bytes = {queued / 2**20:.1f} MiB")
        print("hub.peer_errors:", [str(e) for e in hub.peer_errors][:3])
        await c.aclose()


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--frames", type=int, default=200)
    p.add_argument("--size", type=int, default=3, help="MiB per frame")
    p.add_argument("--stall", type=float, default=None, help="hub stall_timeout (s)")
    p.add_argument("--plain", action="store_true", help="no TLS")
    p.add_argument("--idle", type=float, default=2.0, help="stop after this long without progress")
    a = p.parse_args(argv)
    trio.run(functools.partial(flood, a.frames, a.size, a.stall, not a.plain, a.idle))


if __name__ == "__main__":
    main()
