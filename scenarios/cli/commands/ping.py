"""``mpc-rr ping``: a smoke test of the runtime with the plaintext-sum protocol.

``--parties N`` clients (ids 1..N) each send a small vector to the hub
(party 0), which returns the sum.  ``ok`` is true when every party got the
plaintext sum computed directly from the same seed and nobody reported an
error.  Prints the cost report (``--json``: one JSON object with at least
``ok``, ``parties``, ``messages``, ``bytes``, ``wall_s``, ``max_rss_bytes``
(this process's peak; with ``--hub-process`` also ``hub_max_rss_bytes``)).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from mpc_rr.core import UsageError
from mpc_rr.secure_sum.plainsum import SPEC as PLAINSUM
from scenarios.cli.options import (
    HelpFormatter,
    add_json,
    add_seed,
    int_at_least,
    output_file,
    positive_float,
    wire_summary,
)

if TYPE_CHECKING:
    from mpc_rr.core import Transcript


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "ping",
        help="smoke-test the runtime: a plaintext sum through the hub",
        description=__doc__,
        formatter_class=HelpFormatter,
    )
    p.add_argument(
        "--transport", choices=["memory", "tcp"], default="memory",
        help="memory: in-memory transport; tcp: TCP (+ mutual TLS) on 127.0.0.1",
    )  # fmt: skip
    p.add_argument("--parties", type=int_at_least(1), default=10, help="number of clients (hub not counted)")
    p.add_argument("--cells", type=int_at_least(1, 1 << 20), default=4, help="vector length")
    add_seed(p, "the clients' vectors")
    p.add_argument("--processes", action="store_true", help="tcp: one OS process per party")
    p.add_argument(
        "--launch", choices=["auto", "fork", "fork-server", "exec"], default="auto",
        help="--processes: fork the parties from this process (auto: where it is safe) or from a "
        "server that imported everything once, or start a fresh interpreter per party (what "
        "each host pays on its own)",
    )  # fmt: skip
    p.add_argument(
        "--hub-process", action="store_true",
        help="tcp: the hub in its own OS process, every client in this one (one socket per "
        "party here instead of two: 10,000 TLS parties fit under 20,000 open files)",
    )  # fmt: skip
    p.add_argument("--plaintext", action="store_true", help="tcp: NO TLS (classroom traces)")
    p.add_argument("--timeout", type=positive_float, default=300.0, help="whole-run limit in seconds")
    p.add_argument("--transcript", type=output_file, default=None, help="write what every party sent to this file")
    add_json(p, "print one JSON object")
    p.set_defaults(func=_run)


def ping(
    transport: str,
    parties: int,
    *,
    cells: int = 4,
    seed: int = 0,
    processes: bool = False,
    launch: str = "auto",
    hub_process: bool = False,
    tls: bool = True,
    timeout: float = 300.0,
    transcript: bool = False,
) -> tuple[dict[str, Any], Transcript | None]:
    """Run the ping; return the report dict (see module docstring) and the transcript."""
    import numpy as np

    from mpc_rr.secure_sum.plainsum import expected_total, make_role

    if parties < 1:
        raise UsageError(f"ping: --parties must be >= 1, got {parties}")
    if processes and transport != "tcp":
        raise UsageError("ping: --processes needs --transport tcp (one OS process per party)")
    if hub_process and (transport != "tcp" or processes):
        raise UsageError("ping: --hub-process needs --transport tcp and no --processes")
    if not tls and transport != "tcp":
        raise UsageError("ping: --plaintext only applies to --transport tcp")
    n = parties + 1
    params = {"cells": cells, "run": "ping"}
    want = expected_total(parties, seed, cells)
    if transport == "tcp" and processes:
        from parties.procs import run_processes

        pr = run_processes(
            PLAINSUM.name, n, seed=seed, params=params, tls=tls, timeout=timeout,
            transcript=transcript, launch=launch,
        )  # fmt: skip
        got = pr.results.values()
        ok = pr.ok and all(np.array_equal(r["total"], want) for r in got)
        costs, errors, trace = pr.costs, pr.errors, pr.transcript
    elif hub_process:
        from parties.procs import run_with_hub_process

        pr = run_with_hub_process(
            PLAINSUM, n, seed=seed, params=params, tls=tls, timeout=timeout, transcript=transcript
        )
        ok = pr.ok and all(np.array_equal(r["total"], want) for r in pr.results.values())
        costs, errors, trace = pr.costs, pr.errors, pr.transcript
    else:
        roles = {i: make_role(i, n, seed, params) for i in range(n)}
        if transport == "memory":
            from parties.runner import run_memory_sync

            res = run_memory_sync(roles, timeout=timeout, transcript=transcript)
        else:
            from parties.tcp_runner import run_tcp_sync

            res = run_tcp_sync(roles, tls=tls, timeout=timeout, transcript=transcript)
        ok = res.ok and all(np.array_equal(r.total, want) for r in res.results().values())
        costs, errors, trace = res.costs, {p: str(e) for p, e in res.errors.items()}, res.transcript
    out = {"ok": bool(ok), **costs.to_json(), "clients": parties, "tls": tls}
    out["parties"] = n
    if "max_rss_bytes" not in out:  # peak memory of this process (with --hub-process: the clients')
        from parties.process_stats import peak_rss_bytes

        out["max_rss_bytes"] = peak_rss_bytes()
    if errors:
        out["errors"] = {str(p): e for p, e in sorted(errors.items())[:20]}
    return out, trace


BYTES_PER_PROCESS = 30 * 2**20
"""Private memory of one forked party process (an interpreter that imported the runtime; what
copy-on-write does not share), a planning figure for the size guard."""


def check_processes(parties: int) -> None:
    """Refuse ``--processes`` with more parties than this machine can hold as OS processes
    (memory, the per-user process limit), with the estimate and what to use instead."""
    import os

    from scenarios.cli.options import available_memory, human_bytes

    n = parties + 1
    need, have = n * BYTES_PER_PROCESS, available_memory()
    try:
        import resource

        nproc = resource.getrlimit(resource.RLIMIT_NPROC)[0]
    except (ImportError, AttributeError, ValueError):
        nproc = -1
    cores = os.cpu_count() or 1
    why = []
    if need > 0.8 * have:
        why.append(f"about {human_bytes(need)} of memory ({human_bytes(have)} available)")
    if 0 <= nproc < n + 64:
        why.append(f"more processes than this user may start (RLIMIT_NPROC {nproc:,})")
    if why:
        raise UsageError(
            f"--processes with --parties {parties:,} starts {n:,} OS processes on {cores} core(s): "
            f"{'; '.join(why)}. Use --hub-process (every client in one process, the hub in its "
            f"own) or fewer --parties"
        )


def _run(args: argparse.Namespace) -> int:
    if args.processes:
        check_processes(args.parties)
    rep, trace = ping(
        args.transport,
        args.parties,
        cells=args.cells,
        seed=args.seed,
        processes=args.processes,
        launch=args.launch,
        hub_process=args.hub_process,
        tls=not args.plaintext,
        timeout=args.timeout,
        transcript=args.transcript is not None,
    )
    if args.transcript is not None and trace is not None:
        trace.meta.update(protocol=PLAINSUM.name, parties=rep["parties"], seed=args.seed)
        trace.save(args.transcript)
    if args.json:
        print(json.dumps(rep))
    else:
        print(
            f"ping over {rep['transport']}: {'OK' if rep['ok'] else 'FAILED'} -- "
            f"{rep['parties']} parties (hub + {rep['clients']}), {rep['messages']} messages, "
            f"{rep['bytes']} bytes, {rep['rounds']} round(s), {rep['wall_s']:.3f} s"
        )
        line = wire_summary(rep)
        if line is not None:
            print(f"  {line}")
        for role, c in rep["per_role"].items():
            print(
                f"  {role:16s} x{c['count']:<6d} sent {c['messages_sent']} msgs / "
                f"{c['bytes_sent']} B, received {c['messages_received']} msgs / "
                f"{c['bytes_received']} B, max wall {c['max_wall_s']:.3f} s"
            )
        for p, e in rep.get("errors", {}).items():
            print(f"  error at party {p}: {e}")
    return 0 if rep["ok"] else 1
