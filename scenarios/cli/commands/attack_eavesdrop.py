"""``mpc-rr attack eavesdrop``: what a wire observer learns from a real run, or a recorded one.

Examples::

    mpc-rr attack eavesdrop --protocol secagg --transport tcp --parties 100
    mpc-rr attack eavesdrop --protocol pipeline --transport memory --parties 2000 --p 0.5
    mpc-rr attack eavesdrop --protocol rrba --transport memory --parties 2000 --p 0.5
    mpc-rr secure-sum --protocol secagg --parties 50 --cells 16 --transcript run.bin
    mpc-rr attack eavesdrop --transcript run.bin          # offline, from the file alone

A live run builds the protocol's roles over known inputs, runs them over the
chosen transport with a tap on the network, and hands the tap to the pure
metrics of :mod:`mpc_rr.adversary` (participation, size census, size and
timing leakage with a permutation test, and -- where payloads are readable --
input recovery or Bayes inference).  The inputs only score the attacks.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from mpc_rr.core import UsageError
from mpc_rr.workflows import eavesdrop_protocols
from scenarios.cli.options import (
    HelpFormatter,
    add_json,
    add_seed,
    args_digest,
    int_at_least,
    open_open,
    output_dir,
    probability,
)
from scenarios.workloads.data_source import add_data_option


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "eavesdrop",
        help="what a wire observer learns from a protocol run (live or --transcript FILE)",
        description=(
            "Run a protocol with a tap on the network (or load a recorded transcript) and report "
            "who took part and when, whether message sizes or timing depend on private values, "
            "and what plaintext payloads reveal, each next to its baseline."
        ),
        formatter_class=HelpFormatter,
    )
    p.add_argument("--protocol", choices=eavesdrop_protocols(), default=None,
                   help="protocol of the live run (without it: --transcript FILE, whose protocol "
                        "is read from the file)")  # fmt: skip
    p.add_argument("--transport", choices=("memory", "tcp"), default="memory",
                   help="memory: plaintext payloads on the tap; tcp: TCP + mutual TLS (ciphertext)")  # fmt: skip
    p.add_argument("--parties", type=int_at_least(2), default=100, help="data parties")
    p.add_argument("--cells", type=int_at_least(2), default=16, help="sum protocols: input cells")
    p.add_argument("--p", type=probability, default=0.5, help="pipeline, rrba: keep probability")
    p.add_argument("--mechanism", choices=("cluster", "lambda", "optimized"), default="cluster",
                   help="pipeline: release mechanism")  # fmt: skip
    p.add_argument("--dependence", choices=("rr", "secure-sum", "pairwise-rr"), default="rr",
                   help="pipeline: dependence source")  # fmt: skip
    add_data_option(p, default=None, sources="pipeline: adult|FILE.csv (default adult); rrba: "
                    "survey|alarm|child|adult|FILE.csv (default survey)", what="the parties' records")  # fmt: skip
    p.add_argument("--block", type=int_at_least(1), default=250, help="rrba: clients per block")
    p.add_argument("--secure-tally", action="store_true", help="rrba: block tallies through SecAgg+")
    p.add_argument("--secret-attribute", type=int, default=-1,
                   help="pipeline, rrba: the attribute the size/timing tests predict (default the last)")  # fmt: skip
    p.add_argument("--transcript", type=Path, default=None,
                   help="analyse this recorded run offline (without it: a live run of --protocol)")  # fmt: skip
    p.add_argument("--permutations", type=int_at_least(0), default=200,
                   help="label permutations of the size/timing tests (0: none)")  # fmt: skip
    p.add_argument("--confidence", type=open_open, default=0.95, help="1 - alpha of every interval")
    add_seed(p, "the inputs and the attacks' folds")
    p.add_argument("--out", type=output_dir, default=Path("results"), help="folder for the PNG")
    p.add_argument("--no-plot", action="store_true", help="skip the PNG")
    add_json(p, "print JSON instead of text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from mpc_rr.adversary import check_confidence

    check_confidence(args.confidence)
    data = _records(args)
    if args.transcript is not None:
        from mpc_rr.workflows._attack_reports import offline_report

        out = offline_report(args.transcript, args.protocol, np.random.default_rng(args.seed),
                             confidence=args.confidence)  # fmt: skip
    elif args.protocol is None:
        raise UsageError("give --protocol (a live run) or --transcript FILE (offline)")
    else:
        from mpc_rr.workflows import observed_run
        from mpc_rr.workflows._attack_reports import eavesdrop_report
        from scenarios.workloads.networks import network_for

        obs = observed_run(
            args.protocol, network=network_for(args.transport), parties=args.parties, cells=args.cells,
            seed=args.seed, p=args.p, mechanism=args.mechanism, dependence=args.dependence,
            data=data, block=args.block, secure_tally=args.secure_tally,
        )  # fmt: skip
        out = eavesdrop_report(obs, np.random.default_rng(args.seed + 1),
                               permutations=args.permutations, confidence=args.confidence,
                               secret_attribute=args.secret_attribute)  # fmt: skip
    from scenarios.figures.attacks import eavesdrop_plottable, plot_eavesdrop

    if not args.no_plot and eavesdrop_plottable(out):
        out["plot"] = str(plot_eavesdrop(out, args.out, f"eavesdrop-{args.protocol}-{args_digest(args)}.png"))
    if args.json:
        print(json.dumps(out, indent=2, default=_json_default))
    else:
        _print(out, args.confidence)
    return 0


def _records(args: argparse.Namespace) -> Any:
    """What ``--data`` names for the live run: ``None`` (the protocol's default), a name (Adult, a
    network: the library draws it), or your CSV file's records; refused where no records are used."""
    from scenarios.workloads.data_source import open_source, reading_flags_given, spec_from_args

    flags = reading_flags_given(args)
    if args.data is None:
        if flags:
            raise UsageError(f"{', '.join(flags)}: read a CSV file given with --data FILE.csv")
        return None
    if args.transcript is not None:
        raise UsageError("--data: an offline analysis reads the recorded run (--transcript), not records")
    if args.protocol not in ("pipeline", "rrba"):
        raise UsageError(
            f"--data: --protocol {args.protocol} runs on one-hot inputs over --cells, not on records; "
            "--data applies to --protocol pipeline or rrba"
        )
    spec = spec_from_args(args, option=True, networks=args.protocol == "rrba")
    if not spec.is_file:
        return spec.source
    source = open_source(spec)
    return source.table


def _json_default(o: Any) -> Any:
    if isinstance(o, float) and math.isinf(o):
        return "inf"
    if hasattr(o, "tolist"):
        return o.tolist()
    raise TypeError(f"not JSON-able: {type(o).__name__}")


def _fmt_ci(ci: Any) -> str:
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "n/a"


def _print(out: dict[str, Any], confidence: float) -> None:
    lvl = f"{100 * confidence:g}%"
    head = out.get("transcript") or f"{out['protocol']} over {out['transport']}"
    print(f"eavesdropper: {head}; observer: {out['observer']}")
    part = out["participation"]
    print(f"  who took part: {part['data_parties_seen']} data parties seen sending "
          f"({part['events']:,} events, {part['bytes']:,} bytes, span {part['span_s']:.3f} s on the "
          f"recorder's clock)")  # fmt: skip
    if part["steps"]:
        print(f"  steps seen (plaintext labels): {part['steps']}")
    cen = out["size_census"]
    verdict = ("one size at every position: sizes carry nothing" if cen["constant"]
               else "sizes vary at some positions (see size test)")  # fmt: skip
    print(f"  size census: distinct sizes per send position {cen['distinct_sizes_per_position'][:12]} "
          f"-> {verdict}")  # fmt: skip
    for key in ("size", "timing"):
        r = out.get(key)
        if r:
            pp = r.get("permutation_p")
            print(f"  {key} vs {out.get('secret', 'private value')}: success {r['success']:.3f} "
                  f"{_fmt_ci(r['ci'])} vs baseline {r['baseline']:.3f}; MI {r['mutual_information_bits']:.3f} "
                  f"bits; permutation p {pp if pp is None else round(pp, 3)}; "
                  f"{'LEAKS' if r['leaks'] else 'no leak'}")  # fmt: skip
    c = out.get("content")
    if c is None:
        print(f"  payloads: {out['plaintext_payloads']} readable, {out['undecodable_events']:,} not "
              f"(ciphertext beneath TLS). A relay hub that terminates TLS reads what "
              f"--transport memory shows.")  # fmt: skip
    elif "success_per_attribute" in c:
        how = (f"p = {c['p']:g}, {c['groups']} groups asked alike; attacker's prior: the public tables"
               if out["protocol"] == "rrba"
               else f"{c['mechanism']} release, p = {c['p']:g}, dependence {c['dependence']}")  # fmt: skip
        print(f"  payloads: {c['kind']} ({how}):")
        print(f"    {'attribute':<15} {'prior':>7} {'Bayes':>7} {'attacker':>9}")
        for a, b, s, e in zip(c["attributes"], c["baseline_per_attribute"], c["success_per_attribute"],
                              c["attacker_estimated_prior"], strict=True):  # fmt: skip
            print(f"    {a:<15} {b:>7.3f} {s:>7.3f} {e:>9.3f}")
        print(f"    mean: Bayes-optimal {c['success']:.3f} {_fmt_ci(c['ci'])} ({lvl}) vs prior "
              f"{c['baseline']:.3f}")  # fmt: skip
    else:
        print(f"  payloads: {c['kind']}: {c['recovered']} inputs determined by the payloads")
        if c.get("scored", True) and "success" in c:
            print(f"    success {c['success']:.3f} {_fmt_ci(c['ci'])} vs baseline {c['baseline']:.3f} "
                  f"(guessing the largest cell of the sum)")  # fmt: skip
    if "plot" in out:
        print(f"  plot: {out['plot']}")
