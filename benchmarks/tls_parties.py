"""Memory and time per TLS party: the hub in this process against the hub in its own process.

Each configuration runs ``mpc-rr ping --transport tcp --parties N --json`` as a
fresh command (one round of a plaintext sum over mutual TLS), interleaved run
by run so load hits both alike:

* ``one process``: the hub and every client in one process (two descriptors
  per party: both ends of each loopback connection);
* ``hub process``: ``--hub-process``, the hub alone, every client in this
  process (one descriptor per party on each side).

KB per party = (peak RSS of the run's processes - the same processes' peak
with 1 party) / N: the memory a party adds, interpreters excluded; ``all in``
counts the interpreters too.  Medians of ``--repeats``.  ``--big N`` adds one
run of N parties with the hub process only (10,000 do not fit in one process
under a hard open-file limit of 20,000: the one-process run is refused up
front and the benchmark says so).

    python -m benchmarks.tls_parties --parties 2000 --repeats 3 --big 10000
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from typing import Any

MODES = {"one process": [], "hub process": ["--hub-process"]}


def ping(n: int, extra: list[str]) -> dict[str, Any]:
    """One ``mpc-rr ping`` of ``n`` TLS parties; its JSON report, or the refusal."""
    out = subprocess.run(
        [sys.executable, "-m", "scenarios.cli", "ping", "--transport", "tcp", "--parties", str(n),
         "--timeout", "900", "--json", *extra],
        capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    if out.returncode == 2:
        return {"refused": out.stderr.strip().splitlines()[-1]}
    if out.returncode != 0:
        raise RuntimeError(f"ping {n} {extra} failed:\n{out.stderr[-2000:]}")
    rep: dict[str, Any] = json.loads(out.stdout)
    rep["rss_total"] = rep["max_rss_bytes"] + (rep.get("hub_max_rss_bytes") or 0)
    return rep


def measure(n: int, repeats: int) -> dict[str, dict[str, float]]:
    base = {mode: ping(1, extra)["rss_total"] for mode, extra in MODES.items()}
    runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in MODES}
    for _ in range(repeats):
        for mode, extra in MODES.items():
            runs[mode].append(ping(n, extra))
    rows = {}
    for mode, rs in runs.items():
        ok = [r for r in rs if "refused" not in r]
        if not ok:
            rows[mode] = {"refused": rs[0]["refused"]}
            continue
        rows[mode] = {
            "kb_per_party": statistics.median((r["rss_total"] - base[mode]) / n / 1000 for r in ok),
            "kb_per_party_all_in": statistics.median(r["rss_total"] / n / 1000 for r in ok),
            "handshake_s": statistics.median(r["handshake_s"] for r in ok),
            "protocol_s": statistics.median(r["wall_s"] for r in ok),
            "ok": all(r["ok"] for r in ok),
        }
    return rows


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parties", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--big", type=int, default=0, help="also N parties, hub process only (0: skip)")
    a = ap.parse_args(argv)
    print(f"TLS parties: the hub in this process vs in its own (load {os.getloadavg()[0]:.1f})")
    report: dict[str, Any] = {"parties": a.parties, "rows": measure(a.parties, a.repeats)}
    sizes = [(a.parties, report["rows"])]
    if a.big:
        report["big"] = {"parties": a.big, "rows": {}}
        base = ping(1, MODES["hub process"])["rss_total"]
        for mode, extra in MODES.items():
            r = ping(a.big, extra)
            report["big"]["rows"][mode] = r if "refused" in r else {
                "kb_per_party": (r["rss_total"] - base) / a.big / 1000,
                "kb_per_party_all_in": r["rss_total"] / a.big / 1000,
                "handshake_s": r["handshake_s"], "protocol_s": r["wall_s"], "ok": r["ok"],
            }  # fmt: skip
        sizes.append((a.big, report["big"]["rows"]))
    print(f"  {'parties':>8} {'mode':12} {'KB/party':>9} {'all in':>7} {'handshakes s':>13} {'protocol s':>11}")
    for n, rows in sizes:
        for mode, r in rows.items():
            if "refused" in r:
                print(f"  {n:>8,} {mode:12} refused up front: {r['refused'][:150]}")
                continue
            print(
                f"  {n:>8,} {mode:12} {r['kb_per_party']:9.0f} {r['kb_per_party_all_in']:7.0f} "
                f"{r['handshake_s']:13.2f} {r['protocol_s']:11.2f}{'' if r['ok'] else '  NOT OK'}"
            )
    r1, r2 = report["rows"]["one process"], report["rows"]["hub process"]
    if "refused" not in r1 and "refused" not in r2 and r1["kb_per_party"] > 0:
        print(
            f"  ratio hub process / one process at {a.parties:,}: KB/party "
            f"{r2['kb_per_party'] / r1['kb_per_party']:.2f}, handshakes "
            f"{r2['handshake_s'] / r1['handshake_s']:.2f}"
        )
    print(f"  load {os.getloadavg()[0]:.1f} at the end (medians of {a.repeats}; target 150 KB/party)")
    return report


if __name__ == "__main__":
    main()
