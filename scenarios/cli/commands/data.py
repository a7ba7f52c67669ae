"""``mpc-rr data``: the data sets shipped with mpc-rr, their provenance, licence and checksum.

Examples::

    mpc-rr data list
    mpc-rr data info adult
    mpc-rr data info alarm --json
    mpc-rr schema infer "$(mpc-rr data path survey_10000)" --ordinal A
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, Any

from scenarios.cli.options import HelpFormatter, add_json, human_bytes

if TYPE_CHECKING:
    from mpc_rr.data import ShippedFile

_OVERRIDE = "MPC_RR_DATA"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "data",
        help="the data sets shipped with mpc-rr: list, provenance, licence, checksum, path",
        description=(
            "The data sets the commands name (adult, the bnlearn networks, their samples) ship "
            f"inside the package, gzip-compressed, each checked against its SHA-256. {_OVERRIDE}="
            "DIR uses the files of DIR (the same file names) in their place."
        ),
        formatter_class=HelpFormatter,
    )
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    ls = verbs.add_parser(
        "list", help="one line per shipped data set", formatter_class=HelpFormatter,
        description="Name, kind, records, attributes, size and licence of every shipped data set.",
    )  # fmt: skip
    add_json(ls, "print a JSON list of the manifest's entries instead of a table")
    ls.set_defaults(func=_list)
    info = verbs.add_parser(
        "info", help="everything the manifest says of one data set", formatter_class=HelpFormatter,
        description="Title, format, records, attributes, size, licence, citation, source, "
        "SHA-256 and the path the commands read.",
    )  # fmt: skip
    info.add_argument("name", metavar="NAME", help="a data set's name or file name (see: data list)")
    add_json(info, "print the manifest's entry (and the path read) as JSON")
    info.set_defaults(func=_info)
    path = verbs.add_parser(
        "path", help="print the path of a data set's uncompressed file", formatter_class=HelpFormatter,
        description=f"The file the commands read for NAME: ${_OVERRIDE}/FILE if {_OVERRIDE} is "
        "set, else the shipped copy, decompressed once into the cache folder and checked.",
    )  # fmt: skip
    path.add_argument("name", metavar="NAME", help="a data set's name or file name (see: data list)")
    add_json(path, 'print {"name", "file", "path", "override"} as JSON instead of the path alone')
    path.set_defaults(func=_path)


def _records(f: ShippedFile) -> str:
    return f"{f.records:,}" if f.records is not None else "(sampled)"


def _list(args: argparse.Namespace) -> int:
    from mpc_rr.data import shipped

    files = shipped()
    if args.json:
        print(json.dumps([f.to_json() for f in files], indent=2))
        return 0
    rows = [("name", "kind", "records", "attributes", "size", "licence", "file")]
    rows += [(f.name, f.kind, _records(f), str(f.attributes), human_bytes(f.size), f.licence, f.file)
             for f in files]  # fmt: skip
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    right = {2, 3, 4}
    for r in rows:
        cells = [c.rjust(w) if k in right else c.ljust(w) for k, (c, w) in enumerate(zip(r, widths, strict=True))]
        print("  ".join(cells).rstrip())
    print()
    print("mpc-rr data info NAME: provenance, licence, citation and SHA-256 of one data set.")
    env = os.environ.get(_OVERRIDE)
    if env:
        print(f"{_OVERRIDE}={env}: the commands read the files there instead of the shipped ones.")
    return 0


def _entry(args: argparse.Namespace) -> tuple[ShippedFile, str]:
    from mpc_rr.data import data_file, shipped_file

    f = shipped_file(args.name)
    return f, str(data_file(f.file))


def _info(args: argparse.Namespace) -> int:
    f, path = _entry(args)
    env = os.environ.get(_OVERRIDE)
    read = f"{path} ({_OVERRIDE}, not checked)" if env else f"{path} (checked against sha256)"
    if args.json:
        doc: dict[str, Any] = {**f.to_json(), "path": path, "override": bool(env)}
        print(json.dumps(doc, indent=2))
        return 0
    lines = [
        ("title", f.title),
        ("kind", f.kind),
        ("file", f"{f.file} ({f.size:,} bytes; shipped as {f.shipped})"),
        ("records", _records(f)),
        ("attributes", f"{f.attributes}" + (" nodes" if f.kind == "network" else " columns")),
        ("format", f.format),
        ("licence", f"{f.licence} ({f.licence_url})"),
        ("", f.licence_note),
        ("citation", f.citation),
        ("source", f.source),
        ("sha256", f.sha256),
        ("path", read),
    ]
    print(f.name)
    for key, value in lines:
        print(f"  {key:<11} {value}")
    return 0


def _path(args: argparse.Namespace) -> int:
    f, path = _entry(args)
    if args.json:
        print(json.dumps({"name": f.name, "file": f.file, "path": path,
                          "override": bool(os.environ.get(_OVERRIDE))}))  # fmt: skip
    else:
        print(path)
    return 0
