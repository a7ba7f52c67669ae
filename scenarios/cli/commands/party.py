"""``mpc-rr party``: run one party of a named protocol over TCP (one process per party).

The command is the party process entry point of :mod:`parties.party_main`
(its flags and its run), registered under ``mpc-rr``.
"""

from __future__ import annotations

import argparse

from parties import party_main
from parties.cli_args import HelpFormatter


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "party", help=party_main.HELP, description=party_main.DESCRIPTION, formatter_class=HelpFormatter
    )
    party_main.add_arguments(p)
    p.set_defaults(func=party_main.run)
