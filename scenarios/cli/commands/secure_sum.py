"""``mpc-rr secure-sum``: run a secure sum of random one-hot vectors and check it.

Exit status 0 only when the protocol finished and its total equals the plain
sum of the included parties' vectors; 1 when it aborted or was not exact.
The run's size is estimated first (messages, memory) and refused with the
estimate when it cannot fit in this machine's memory.
"""

from __future__ import annotations

import argparse
import json
import sys

from mpc_rr.core import UsageError
from mpc_rr.core._registry import option_flag
from mpc_rr.secure_sum import DEFAULT_SUM, sum_protocol, sum_protocol_names
from mpc_rr.secure_sum.secagg import SPEC as SECAGG
from parties.runners import LOCAL_TRANSPORTS
from scenarios.cli.options import (
    HelpFormatter,
    add_json,
    add_network,
    add_protocol_options,
    add_seed,
    add_shard_flags,
    add_step_timeout,
    available_memory,
    given_options,
    human_bytes,
    int_at_least,
    network_runner_of,
    open_unit,
    output_file,
    runner_choice,
    wire_summary,
)


def register(subparsers: argparse._SubParsersAction) -> None:
    specs = [sum_protocol(n) for n in sum_protocol_names()]
    p = subparsers.add_parser(
        "secure-sum",
        help="secure sum of random one-hot vectors, checked against the plaintext sum",
        description=__doc__,
        formatter_class=HelpFormatter,
    )
    p.add_argument(
        "--protocol", choices=[s.name for s in specs], default=DEFAULT_SUM,
        help="; ".join(f"{s.name}: {s.summary}" for s in specs),
    )  # fmt: skip
    p.add_argument("--parties", type=int_at_least(2), required=True, help="number of data parties n")
    p.add_argument("--cells", type=int_at_least(1), default=1582, help="vector length D")
    p.add_argument(
        "--transport", choices=LOCAL_TRANSPORTS, default="memory",
        help="memory: Party actors over the in-memory transport (virtual time); tcp: TCP + "
        "mutual TLS on 127.0.0.1, one process; harness: synchronous driver, no transport",
    )  # fmt: skip
    add_shard_flags(p)
    add_network(p, "the secure sum")
    add_step_timeout(p)
    p.add_argument(
        "--dropout", type=open_unit, default=0.0,
        help="fraction of parties that crash (independent of a protocol's tolerated dropouts, so "
        "a --dropout above it shows the clean abort)",
    )  # fmt: skip
    steps = sorted({st for s in specs for st in s.steps})
    p.add_argument(
        "--drop-step", choices=steps, default=None,
        help="step at which the dropouts crash, one of the protocol's steps ("
        + "; ".join(f"{s.name}: {', '.join(s.steps)}" for s in specs)
        + "); default: its last",
    )  # fmt: skip
    group = p.add_argument_group("protocol options (each protocol's own; default: the protocol's)")
    flags = add_protocol_options(group, specs)
    add_seed(p, "the inputs, the dropouts and the graph")
    p.add_argument("--transcript", type=output_file, default=None, help="write every wire message to this file")
    add_json(p, "print one JSON object")
    p.set_defaults(func=run, option_flags=flags)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from mpc_rr.secure_sum import memory_estimate, message_count, sum_options
    from mpc_rr.workflows import run_secure_sum
    from parties.pricing import pricing_line
    from parties.runners import runner_for

    priced = network_runner_of(args, args.transport, step_timeout=args.step_timeout,
                               transcript=args.transcript is not None)  # fmt: skip
    name, shard = runner_choice(args) if priced is None else ("memory", {})
    spec = sum_protocol(args.protocol)
    given = given_options(args, args.option_flags)
    sum_options(args.protocol, given, flag=option_flag, where="--protocol")  # refused here, before any work
    if args.drop_step is not None and args.drop_step not in spec.steps:
        raise UsageError(f"--drop-step of {spec.name} must be one of {list(spec.steps)}, got {args.drop_step!r}")
    degree = given.get("degree")
    if degree is not None and degree > args.parties - 1:
        raise UsageError(f"--degree must be at most --parties - 1 = {args.parties - 1}, got {degree}")
    need = memory_estimate(args.protocol, args.parties, args.cells, given)
    have = available_memory()
    msgs = message_count(args.protocol, args.parties, given)
    if need > 0.8 * have:
        lighter = sorted(
            (memory_estimate(n, args.parties, args.cells), n) for n in sum_protocol_names()
            if n != args.protocol and sum_protocol(n).hides_inputs
        )  # fmt: skip
        lighter = [n for est, n in lighter if est < need]
        raise UsageError(
            f"{args.protocol} with {args.parties:,} parties x {args.cells:,} cells needs about "
            f"{human_bytes(need)} ({msgs:,} messages); {human_bytes(have)} are available. "
            f"Use fewer parties or cells" + (f", or --protocol {lighter[0]}" if lighter else "")
        )
    if not args.json:
        print(f"{args.protocol}: {args.parties:,} parties x {args.cells:,} cells: about {msgs:,} "
              f"messages and {human_bytes(need)} of memory", file=sys.stderr)  # fmt: skip
    rng = np.random.default_rng(args.seed)
    x = np.zeros((args.parties, args.cells), np.uint8)
    blocks = [int(b) for b in str(given.get("blocks") or args.cells).strip("()[] ").split(",") if b]
    if sum(blocks) != args.cells:
        raise UsageError(f"--blocks {given.get('blocks')} sum to {sum(blocks)} cells, not --cells {args.cells}")
    start = 0
    for size in blocks:  # one 1 per block (prio3 --blocks: inputs one-hot in each; else one block)
        x[np.arange(args.parties), start + rng.integers(0, size, args.parties)] = 1
        start += size
    rep = run_secure_sum(
        args.protocol, x, seed=args.seed, dropout=args.dropout, drop_step=args.drop_step,
        options=given, one_hot_blocks=tuple(blocks),  # what a validity proof (prio3 auto) proves
        runner=priced or runner_for(
            name, step_timeout=args.step_timeout, transcript=args.transcript is not None, **shard
        ),
    )  # fmt: skip
    if args.transcript is not None and rep.run is not None and rep.run.transcript is not None:
        rep.run.transcript.meta.update(protocol=args.protocol, parties=args.parties, seed=args.seed)
        rep.run.transcript.save(args.transcript)
    out = rep.to_json()
    if priced is not None:
        out["network"] = priced.summary()
    if args.json:
        print(json.dumps(out))
    else:
        status = "EXACT" if rep.exact else f"FAILED ({rep.aborted or 'wrong sum'})"
        c = rep.costs
        dp = c.data_parties()["mean"]
        print(
            f"{rep.protocol}: {rep.parties} parties x {rep.cells} cells over {c.transport}: "
            f"{status}; {rep.inputs_in_sum} of {rep.parties} inputs in the sum"
            + (f" ({len(rep.dropped)} parties dropped out "
               f"{'at step ' + args.drop_step if args.drop_step else 'at the last step'}"
               f"{': after sending their inputs' if rep.inputs_in_sum == rep.parties else ''})" if rep.dropped else "")
            + f", {c.messages} messages, {c.bytes} bytes "
            f"({dp['bytes_sent']:.0f} sent per party), {c.wall_s:.2f} s"
        )
        print(f"input validity: {rep.validity}")
        line = wire_summary(c.to_json())
        if line is not None:
            print(line)
        if priced is not None:
            print(pricing_line(out["network"]))
        if rep.protocol == SECAGG.name:
            pr = rep.params
            print(f"SecAgg+: degree {pr['degree']}, threshold t={pr['threshold']}, tolerates "
                  f"{pr['max_dropped']} dropouts (max_dropout={pr['max_dropout']:.3g}) and "
                  f"coalitions of up to {pr['max_corrupt']:.3g} of the parties")  # fmt: skip
        if rep.aborted:
            print(f"aborted: {rep.aborted}", file=sys.stderr)
    return 0 if rep.exact else 1
