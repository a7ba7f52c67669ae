"""``mpc-rr classroom``: a protocol run a class can follow message by message.

Runs FULL-MESH (the paper's secure sum, Sec. 4.2), SECAGG (SecAgg+),
PIPELINE (the distributed RR-Clusters pipeline on a class survey), RRBA
(RR block aggregation) -- or any other registered protocol with a lesson, and
any sum protocol -- with 3 to 10 parties in plaintext, in the synchronous
harness, with every share, key, mask and random draw from --seed: a teaching
trace, never a deployment.  Prints a numbered trace (step, sender ->
receiver, message type, size, the values inside), a note at each round,
injected dropouts (--drop ID@STEP) and what the protocol does about them, and
the check against the plain computation.  Same seed, same trace.

Formats: text (terminal, handouts), mermaid (a sequenceDiagram; with
--states also each role's transition table as a stateDiagram-v2), html (one
self-contained page that steps forward and back), json.

Exit status 0 when the result equals the plain computation, 1 when the
protocol aborted (e.g. the full mesh with a dropout: it has no tolerance).

For a live class where the students are the parties, from their own
browsers: ``mpc-rr classroom serve`` (see ``mpc-rr classroom serve --help``).
"""

from __future__ import annotations

import argparse
import json
import sys

from mpc_rr.core import get_protocol
from scenarios.classroom import classroom_protocols, lesson_protocol
from scenarios.cli.options import (
    HelpFormatter,
    add_json,
    add_seed,
    int_at_least,
    output_file,
    positive_float,
    probability,
)
from scenarios.cli.validation import poll_answers


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "classroom",
        help="a protocol run a class can follow message by message (text, mermaid or HTML)",
        description=__doc__,
        formatter_class=HelpFormatter,
    )
    names = classroom_protocols()
    p.add_argument("protocol", choices=names, help="the protocol to run")
    steps = {n: get_protocol(lesson_protocol(n)).steps for n in names}
    step_help = "; ".join(f"{n}: {'|'.join(s)}" for n, s in steps.items() if s)
    p.add_argument("--parties", type=int_at_least(3, 10), default=4, help="data parties (students), 3 to 10")
    p.add_argument("--format", choices=("text", "mermaid", "html", "json"), default=None,
                   help="output format (default: text); mermaid with --states: Markdown with one "
                   "```mermaid block per diagram")  # fmt: skip
    add_seed(p, "the run: every share, key, mask and random draw derives from it")
    p.add_argument(
        "--drop", action="append", default=[], metavar="ID@STEP",
        help=f"party ID crashes instead of sending its STEP message (repeatable; {step_help}); "
        "default: nobody drops",
    )  # fmt: skip
    p.add_argument("--options", type=poll_answers, default="A,B,C,D",
                   help="sum protocols: the answers of the class poll, comma-separated (e.g. Yes,No), "
                        "or how many (3 = A,B,C)")  # fmt: skip
    p.add_argument(
        "--publication", choices=("all-to-all", "board"), default="all-to-all",
        help="full-mesh: how the r_j are published (the paper: all-to-all)",
    )  # fmt: skip
    p.add_argument("--p", type=probability, default=0.7, help="pipeline, rrba: keep probability of randomized response")
    p.add_argument(
        "--cheat", default=None, metavar="STRATEGY",
        help="secagg: the aggregator cheats (e.g. equivocate, key-substitution; every strategy: "
        "mpc-rr attack cheat --help) and the trace shows the moment the honest parties catch it; "
        "cheat: key-substitution (default), equivocate or drop-student",
    )  # fmt: skip
    p.add_argument("--epsilon", type=positive_float, default=None,
                   help="noise: the central epsilon of the noisy total (default 1.0; at delta 1e-6)")  # fmt: skip
    p.add_argument("--states", action="store_true", help="text, mermaid: also print each role's transition table as a state diagram")
    p.add_argument("--out", type=output_file, default=None, help="write to this file (default: standard output)")
    add_json(p, "same as --format json")
    p.set_defaults(func=run)


def _options(args: argparse.Namespace) -> dict[str, object]:
    from mpc_rr.core import UsageError
    from scenarios.classroom import lesson_options

    defaults = {"options": ("A", "B", "C", "D"), "publication": "all-to-all", "p": 0.7, "cheat": None, "epsilon": None}
    applies = lesson_options(args.protocol)
    stray = [f"--{k}" for k, v in defaults.items() if k not in applies and getattr(args, k) != v]
    if stray:
        raise UsageError(f"{', '.join(stray)} do not apply to {args.protocol}")
    return {k: getattr(args, k) for k in applies if getattr(args, k) is not None or k != "epsilon"}


def run(args: argparse.Namespace) -> int:
    from mpc_rr.core import UsageError
    from scenarios.classroom import make_trace
    from scenarios.classroom.render import mermaid, mermaid_markdown, mermaid_states, text
    from scenarios.classroom.trace import to_json

    if args.json and args.format not in (None, "json"):
        raise UsageError(f"--json asks for JSON, --format asks for {args.format}: give one of them")
    fmt = "json" if args.json else args.format or "text"
    if fmt == "mermaid" and args.states and args.out is not None and args.out.suffix == ".mmd":
        raise UsageError(
            "--format mermaid --states writes several diagrams (the sequence, then one state "
            "diagram per role) as a Markdown file of ```mermaid blocks, which mermaid-cli renders "
            f"(mmdc -i FILE.md -o OUT.md); a .mmd file holds one diagram: use --out {args.out.with_suffix('.md')}"
        )
    trace = make_trace(args.protocol, args.parties, seed=args.seed, drops=args.drop, **_options(args))
    if fmt == "text":
        body = text(trace) + ("\n" + mermaid_states(trace) if args.states else "")
    elif fmt == "mermaid" and args.states:
        body = mermaid_markdown(trace)
    elif fmt == "mermaid":
        body = mermaid(trace)
    elif fmt == "html":
        from scenarios.classroom.html import render_html

        body = render_html(trace)
    else:
        body = json.dumps(to_json(trace), indent=1) + "\n"
    if args.out is not None:
        args.out.write_text(body)
        print(f"wrote {args.out} ({len(trace.messages)} messages; "
              f"{'OK' if trace.ok else 'no result equal to the plain computation'})", file=sys.stderr)  # fmt: skip
    else:
        sys.stdout.write(body)
    return 0 if trace.ok else 1
