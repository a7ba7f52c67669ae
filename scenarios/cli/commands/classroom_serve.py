"""``mpc-rr classroom serve``: a live class where the students are the parties, from their browsers.

One process on the teacher's machine serves a student page (the join URL,
printed with its QR code; a phone browser is enough) and a teacher page (its
URL carries a key: keep it to yourself) over HTTP and WebSocket.  Each
student's answer stays in the browser: for FULL-MESH (Sec. 4.2 with the board)
it is split into shares mod n+1, each encrypted to its receiver with
WebCrypto (X25519, AES-GCM) and relayed; for SECAGG (SecAgg+) it is masked and
its mask keys Shamir-shared (a third of the class may leave mid-round); for
RR-SURVEY the coin is flipped in the browser and only the randomized answer
is sent.  The lessons: CHEAT (the teacher page picks what a cheating SecAgg+
server plays; each page shows what its own checks caught), NOISE (each page
adds its share of Skellam noise to its answer; --epsilon), PRIO3 (the --bots
vote with the library's validity proofs, two of them invalidly, and are
rejected and named; the pages watch: they do not prove).  The server runs the
aggregator (or board) and the --bots simulated students with the library's
own roles.  The teacher page shows who joined, every message, who dropped,
the result and every byte the server received.

--once runs one round and exits printing its outcome (--json: one JSON
object); --auto-start N starts a round as soon as N students (bots included)
are in, otherwise the teacher starts each round from the page.

Exit status: 0 a round ended with a result (or Ctrl-C), 1 it aborted,
2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys

from scenarios.classroom import LIVE_PROTOCOLS
from scenarios.cli.options import (
    HelpFormatter,
    add_json,
    add_seed,
    int_at_least,
    positive_float,
    probability,
)
from scenarios.cli.validation import poll_answers


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "classroom-serve",
        help="a live class: students are the parties from their browsers (also `classroom serve`)",
        description=__doc__,
        formatter_class=HelpFormatter,
    )
    p.add_argument("--protocol", choices=LIVE_PROTOCOLS, default=LIVE_PROTOCOLS[0], help="what the class runs")
    p.add_argument("--port", type=int_at_least(0, 65535), default=8000, help="TCP port (0: any free port)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default: every interface, for the LAN)")
    p.add_argument("--https", action="store_true", help="serve HTTPS/WSS with a fresh self-signed certificate (phones on the LAN need it: WebCrypto)")
    p.add_argument("--public-host", default=None, help="host name or address printed in the join URL (default: this machine's)")
    p.add_argument("--question", default="Did you sleep more than 7 hours last night?", help="the question on the students' page")
    p.add_argument("--options", type=poll_answers, default="Yes,No",
                   help="the answers, comma-separated (2 to 8), or how many (3 = A,B,C)")  # fmt: skip
    p.add_argument("--p", type=probability, default=0.5, help="rr-survey: probability that a student's true answer is kept")
    p.add_argument("--epsilon", type=positive_float, default=1.0, help="noise: the central epsilon of the noisy total (at delta 1e-6)")
    p.add_argument("--bots", type=int_at_least(0, 200), default=0, help="simulated students (the library's roles) in every round")
    p.add_argument("--drop-bot", default=None, metavar="STEP", help="the last bot crashes instead of sending its STEP message (full-mesh: keys|shares|publish; secagg: keys|shares|masked|unmask)")
    p.add_argument("--max-students", type=int_at_least(1, 500), default=40, help="refuse browsers beyond this many")
    p.add_argument("--auto-start", type=int_at_least(1, 700), default=None, metavar="N", help="start a round when N students (bots included) are in")
    p.add_argument("--step-timeout", type=positive_float, default=20.0, help="seconds the server waits for a step before dropouts count")
    p.add_argument("--once", action="store_true", help="run one round, print its outcome and exit")
    add_seed(p, "the bots' answers and coins")
    add_json(p, "with --once: print the outcome as one JSON object")
    p.set_defaults(func=run, command="classroom serve")


def run(args: argparse.Namespace) -> int:
    import trio

    from mpc_rr.core import UsageError, require_extra

    for module in ("hypercorn.trio", "segno"):  # the live class's extra, checked before any work
        require_extra(module, "classroom", needed_for="the live class")
    from scenarios.classroom.live import Lesson
    from scenarios.classroom.serve import ServeOptions, serve

    options = args.options
    lesson = Lesson(args.protocol, args.question, options, args.p, args.seed, args.drop_bot, args.epsilon)
    if args.json and not args.once:
        raise UsageError("--json needs --once (a class that runs until Ctrl-C prints its log)")
    if args.once and args.auto_start is None and args.bots == 0:
        raise UsageError("--once needs --auto-start N or --bots (who starts the round?)")
    auto = args.auto_start if args.auto_start is not None else (args.bots if args.once else None)
    opts = ServeOptions(args.host, args.port, args.bots, args.max_students, args.step_timeout,
                        auto, args.once, None, args.public_host, args.https)  # fmt: skip
    err = sys.stderr

    def log(line: str) -> None:
        print(line, file=err, flush=True)

    outcome = trio.run(lambda: serve(lesson, opts, out=err if args.json else sys.stdout, log=log))
    if outcome is None:
        return 0
    if args.json:
        print(json.dumps(outcome))
    else:
        if outcome.get("ok"):
            print(f"total: {dict(zip(outcome['options'], outcome['total'], strict=True))} "
                  f"over {outcome['count']} students in {outcome['seconds']} s")  # fmt: skip
            if "epsilon" in outcome:  # the noise lesson: a noisy total
                print(f"the total is noisy: epsilon {outcome['epsilon']} at delta {outcome['delta']:g} "
                      f"(noise spread {outcome['noise_sd']} per option)")  # fmt: skip
            if "estimate" in outcome:
                print(f"estimated true counts: {outcome['estimate']} (95% CI {outcome['ci']})")
        else:
            print(f"aborted: {outcome['error']}")
    return 0 if outcome.get("ok") else 1
