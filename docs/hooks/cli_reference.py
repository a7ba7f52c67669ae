"""MkDocs hook: the command-line reference page, generated from ``mpc-rr``'s own parser.

At every build it imports :func:`scenarios.cli.build_parser`, walks every command and
subcommand, and adds the page ``reference/cli.md`` (one section per command: its
``--help`` text as argparse prints it). Nothing is written to ``docs/``, so the page cannot
drift from the flags the commands take.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator

from mkdocs.structure.files import File, Files

PAGE = "reference/cli.md"


def _subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen: set[int] = set()
            for name, sub in action.choices.items():
                if id(sub) in seen:  # an alias of a command already listed
                    continue
                seen.add(id(sub))
                yield name, sub


def _walk(parser: argparse.ArgumentParser, depth: int = 2) -> Iterator[str]:
    for _name, sub in _subcommands(parser):
        yield f"{'#' * depth} `{sub.prog}`\n"
        yield "```text\n" + sub.format_help().rstrip() + "\n```\n"
        yield from _walk(sub, min(depth + 1, 4))


def render() -> str:
    """The whole page, from the parser ``mpc-rr`` runs with."""
    from scenarios.cli import build_parser

    # argparse wraps help at the terminal's width: the page's is fixed (the code column's)
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "80"
    try:
        parser = build_parser()
        return _page(parser)
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved


def _page(parser: argparse.ArgumentParser) -> str:
    head = [
        "# Command-line reference\n",
        "Generated at every build from `mpc-rr`'s own parser (`scenarios.cli.build_parser`): "
        "each command's `--help`, as the command prints it. One line per command: "
        "[commands at a glance](commands.md).\n",
        "## `mpc-rr`\n",
        "```text\n" + parser.format_help().rstrip() + "\n```\n",
    ]
    return "\n".join(head + list(_walk(parser)))


def on_files(files: Files, config: object) -> Files:
    files.append(File.generated(config, PAGE, content=render()))  # type: ignore[arg-type]
    return files
