"""``mpc-rr schema``: infer a schema from your own CSV file, and check a file against one.

Examples::

    mpc-rr schema infer survey.csv --ordinal A > schema.toml
    mpc-rr schema infer people.csv --columns age,sex,region --ordinal age > schema.toml
    mpc-rr schema check survey.csv --schema schema.toml
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpc_rr.data import DEFAULT_MAX_CATEGORIES
from scenarios.cli.options import HelpFormatter, add_json, int_at_least, output_file

if TYPE_CHECKING:
    import numpy as np


def _names(text: str) -> list[str]:
    names = [v.strip() for v in text.split(",") if v.strip()]
    if not names:
        raise argparse.ArgumentTypeError(f"expected comma-separated column names, got {text!r}")
    return names


def _reading_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("reading the CSV file")
    g.add_argument(
        "--delimiter", default=",", help="field separator (default: %(default)r; '\\t' for TSV)"
    )
    g.add_argument(
        "--encoding",
        default="utf-8-sig",
        help="text encoding (default: UTF-8, with or without BOM; e.g. latin-1)",
    )
    hdr = g.add_mutually_exclusive_group()
    hdr.add_argument(
        "--names",
        type=_names,
        default=None,
        help="the file has no header: these are its column names, in order",
    )
    hdr.add_argument(
        "--no-header",
        action="store_true",
        help="the file has no header: columns are named 1, 2, ... by position",
    )
    g.add_argument(
        "--skip-lines",
        type=int_at_least(0),
        default=0,
        help="lines to skip before the header or first record (default: %(default)s)",
    )
    g.add_argument(
        "--allow-control", action="store_true",
        help="accept NUL bytes and line breaks inside values (refused by default: a damaged "
        "file or an unterminated quote)",
    )  # fmt: skip


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "schema",
        help="infer a schema (TOML) from a CSV file, or check a file against one",
        description="Schemas for your own data: attributes, ordered categories, ordinal or nominal.",
        formatter_class=HelpFormatter,
    )
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")

    inf = verbs.add_parser(
        "infer",
        help="write the schema of a CSV file as TOML (to stdout, or --out)",
        description=(
            "Read FILE, keep --columns (default: all), and write a schema a person can read and "
            "edit: one [[attribute]] per column with its categories (numbers in numeric order, "
            "then text in text order) and their record counts as comments. Categories of an "
            "ordinal attribute must be in their real order: check and edit them."
        ),
        formatter_class=HelpFormatter,
    )
    inf.add_argument("file", type=Path, metavar="FILE.csv", help="the CSV file to read")
    inf.add_argument(
        "--columns", type=_names, default=None, help="columns to keep, e.g. age,sex (default: all)"
    )
    inf.add_argument(
        "--ordinal", type=_names, default=[], help="columns whose categories are ordered"
    )
    inf.add_argument(
        "--max-categories",
        type=int_at_least(1),
        default=DEFAULT_MAX_CATEGORIES,
        help="refuse a column with more distinct values than this (default: %(default)s)",
    )
    inf.add_argument("--out", type=output_file, default=None, help="write here instead of stdout")
    add_json(inf, "print the schema as JSON instead of TOML (--out still writes TOML)")
    _reading_options(inf)
    inf.set_defaults(func=_infer)

    chk = verbs.add_parser(
        "check",
        help="load a CSV file with a schema and report what was read",
        description="Encode FILE with --schema, as the pipeline will, and print per-attribute counts.",
        formatter_class=HelpFormatter,
    )
    chk.add_argument("file", type=Path, metavar="FILE.csv", help="the CSV file to check")
    chk.add_argument("--schema", type=Path, required=True, help="schema TOML (see: schema infer)")
    add_json(chk, "print JSON instead of a table")
    _reading_options(chk)
    chk.set_defaults(func=_check)


def _header(args: argparse.Namespace) -> bool | list[str]:
    if args.names is not None:
        return list(args.names)
    return not args.no_header


def _delimiter(args: argparse.Namespace) -> str:
    return "\t" if args.delimiter in ("\\t", "tab") else str(args.delimiter)


def _infer(args: argparse.Namespace) -> int:
    from mpc_rr.data import ConstantColumnWarning, infer_schema, read_csv_columns, schema_to_toml

    t0 = time.perf_counter()
    data = read_csv_columns(
        args.file,
        args.columns,
        header=_header(args),
        delimiter=_delimiter(args),
        encoding=args.encoding,
        skip_lines=args.skip_lines,
        allow_control=args.allow_control,
    )
    delim = _delimiter(args)
    names = list(data.names) if hasattr(data, "names") else []
    if len(names) == 1:  # one column whose name holds another delimiter: the wrong --delimiter
        other = next((d for d in (",", ";", "\t", "|") if d != delim and d in names[0]), None)
        if other is not None:
            from mpc_rr.core import UsageError

            shown = "tab" if other == "\t" else other
            raise UsageError(
                f"{args.file}: with --delimiter {args.delimiter!r} the file has one column named "
                f"{names[0][:60]!r}, which holds {shown!r}: the file is probably delimited by "
                f"{shown!r}; pass --delimiter '{shown}'"
            )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConstantColumnWarning)
        schema = infer_schema(data, ordinal=args.ordinal, max_categories=args.max_categories)
    for w in caught:
        print(f"mpc-rr schema: warning: {w.message}", file=sys.stderr)
    text = schema_to_toml(schema, data=data, source=args.file.name)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
    if args.json:
        counts = [
            [dict(zip(data.values[j], data.counts(j).tolist(), strict=True)).get(c, 0) for c in a.categories]
            for j, a in enumerate(schema.attributes)
        ]
        print(json.dumps({
            "file": str(args.file),
            "records": data.n,
            "attributes": [
                {"name": a.name, "kind": "ordinal" if a.ordinal else "nominal",
                 "categories": list(a.categories), "counts": c}
                for a, c in zip(schema.attributes, counts, strict=True)
            ],
        }, indent=1))  # fmt: skip
    elif args.out is None:
        sys.stdout.write(text)
    print(
        f"schema infer: {len(schema)} attributes, {data.n:,} records from {args.file} "
        f"in {time.perf_counter() - t0:.2f} s" + (f"; wrote {args.out}" if args.out else ""),
        file=sys.stderr,
    )
    return 0


def _check(args: argparse.Namespace) -> int:
    from mpc_rr.data import load_csv, load_schema

    schema = load_schema(args.schema)
    t0 = time.perf_counter()
    data = load_csv(
        args.file,
        schema,
        header=_header(args),
        delimiter=_delimiter(args),
        encoding=args.encoding,
        skip_lines=args.skip_lines,
        allow_control=args.allow_control,
    )
    seconds = time.perf_counter() - t0
    out: dict[str, Any] = {
        "dataset": data.name,
        "file": str(args.file),
        "schema": str(args.schema),
        "records": data.n,
        "seconds": seconds,
        "attributes": [
            {
                "name": a.name,
                "kind": "ordinal" if a.ordinal else "nominal",
                "categories": len(a.categories),
                "unused_categories": [
                    c for c, k in zip(a.categories, counts, strict=True) if k == 0
                ],
            }
            for a, counts in zip(schema.attributes, _counts(data.codes, schema.sizes), strict=True)
        ],
        "domain_size": schema.domain_size,
    }
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    print(
        f"{data.name}: {data.n:,} records, {len(schema)} attributes, "
        f"joint domain {schema.domain_size:,} cells ({seconds:.2f} s)"
    )
    for a in out["attributes"]:
        unused = a["unused_categories"]
        note = f"; not seen: {unused}" if unused else ""
        print(f"  {a['name']}: {a['kind']}, {a['categories']} categories{note}")
    return 0


def _counts(codes: np.ndarray, sizes: tuple[int, ...]) -> list[list[int]]:
    import numpy as np

    return [np.bincount(codes[:, j], minlength=s).tolist() for j, s in enumerate(sizes)]
