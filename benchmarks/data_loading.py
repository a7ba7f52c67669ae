"""Loading your own CSV: a 200,000 x 42 file, 8 columns kept.

Run: ``python -m benchmarks.data_loading [--rows N] [--repeat R] [--candidates]``.

The file is generated here (seeded, in a temporary folder, never committed):
42 columns -- 14 categorical (2..39 levels), 14 integer, 14 decimal, one of
the categorical columns holding quoted values with commas ("Portland, OR").
The 8 kept columns are categorical.  Each loader runs in a fresh process, so
its peak RSS (``VmHWM``) is its own; printed next to the RSS after the
imports, medians over ``--repeat`` runs, interleaved.

* ``before``: the loader of ``main`` before this change (every field of every
  row kept as Python lists, then encoded), reproduced verbatim below.
* ``after``: :func:`mpc_rr.data.load_csv` (stdlib ``csv``, streaming,
  kept columns only, coded per chunk).
* ``--candidates``: pyarrow.csv and polars reading the same columns, if
  installed (they are not dependencies; see docs/data.md for the choice).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

KEEP = ("col00", "col03", "col05", "col06", "col09", "col12", "col15", "col18")
TOWNS = ('"Springfield, IL"', '"Portland, OR"', "Berlin", '"Paris, TX"')


def generate(path: Path, rows: int = 200_000, cols: int = 42, seed: int = 0) -> Path:
    """Write a seeded ``rows`` x ``cols`` CSV with a header to ``path``."""
    rng = np.random.default_rng(seed)
    columns: list[list[str]] = []
    for j in range(cols):
        if j == 5:
            columns.append(np.asarray(TOWNS)[rng.integers(0, len(TOWNS), rows)].tolist())
        elif j % 3 == 0:
            k = int(rng.integers(2, 40))
            labels = np.asarray([f"level-{j}-{i:02d}" for i in range(k)])
            columns.append(labels[rng.integers(0, k, rows)].tolist())
        elif j % 3 == 1:
            columns.append(rng.integers(0, 100_000, rows).astype(str).tolist())
        else:
            columns.append([f"{x:.4f}" for x in rng.random(rows) * 1000])
    with path.open("w", newline="") as fh:
        fh.write(",".join(f"col{j:02d}" for j in range(cols)) + "\n")
        fh.writelines(",".join(r) + "\n" for r in zip(*columns, strict=True))
    return path


_CHILD = r"""
import csv, json, resource, sys, time
import numpy as np
method, path, keep = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
def rss():  # peak RSS of this process image (VmHWM; ru_maxrss would include the parent's)
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
# the schema (categories of the kept columns) is known in advance, as it is to a user
cats = json.loads(sys.argv[4])
if method == "after":
    from mpc_rr.data import Attribute, Schema, load_csv
    schema = Schema(tuple(Attribute(k, tuple(cats[k])) for k in keep))
elif method == "before":
    from mpc_rr.data import Attribute, Dataset, Schema
    from mpc_rr.data._schema import encode_columns
    schema = Schema(tuple(Attribute(k, tuple(cats[k])) for k in keep))
    def load_csv(path, schema):  # the list-of-rows reader (the baseline), verbatim but for the imports
        with open(path, newline="") as fh:
            reader = csv.reader(fh, delimiter=",", skipinitialspace=True)
            rows = [[f.strip() for f in r] for r in reader if r and any(f.strip() for f in r)]
        names, rows = rows[0], rows[1:]
        width = len(names)
        for i, r in enumerate(rows):
            if len(r) != width:
                raise ValueError(f"record {i} has {len(r)} fields, expected {width}")
        cols = {name: [r[k] for r in rows] for k, name in enumerate(names)}
        return encode_columns(cols, schema)
elif method == "pyarrow":
    import pyarrow as pa, pyarrow.csv as pc, pyarrow.compute as pcc
    def load_csv(path, schema):
        opts = pc.ConvertOptions(include_columns=keep, column_types={k: pa.string() for k in keep})
        t = pc.read_csv(path, convert_options=opts)
        out = []
        for k in keep:
            d = pcc.dictionary_encode(t.column(k)).combine_chunks()
            look = np.array([cats[k].index(v) for v in d.dictionary.to_pylist()])
            out.append(look[d.indices.to_numpy()])
        return np.stack(out, axis=1)
    schema = None
elif method == "polars":
    import polars as pl
    def load_csv(path, schema):
        df = pl.read_csv(path, columns=keep, infer_schema=False)
        out = []
        for k in keep:
            e = pl.Enum(cats[k])
            out.append(df[k].cast(e).to_physical().to_numpy())
        return np.stack(out, axis=1)
    schema = None
base = rss()
t = time.perf_counter()
data = load_csv(path, schema)
seconds = time.perf_counter() - t
codes = getattr(data, "codes", data)
print(json.dumps({"seconds": seconds, "peak_mb": rss(), "import_mb": base,
                  "checksum": int(np.asarray(codes, dtype=np.int64).sum())}))
"""


def _categories(path: Path) -> dict[str, list[str]]:
    from mpc_rr.data import read_csv_columns
    from mpc_rr.data._schema_io import category_order

    cols = read_csv_columns(path, KEEP)
    return {k: list(category_order(v)) for k, v in zip(cols.names, cols.values, strict=True)}


def _run(method: str, path: Path, cats: dict[str, list[str]]) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, method, str(path), ",".join(KEEP), json.dumps(cats)],
        check=True,
        capture_output=True,
        text=True,
    )
    result: dict[str, float] = json.loads(out.stdout)
    return result


def _available(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.data_loading")
    ap.add_argument("--rows", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--candidates", action="store_true", help="also pyarrow and polars")
    args = ap.parse_args(argv if argv is not None else [])
    methods = ["before", "after"]
    if args.candidates:
        methods += [m for m in ("pyarrow", "polars") if _available(m)]
    with tempfile.TemporaryDirectory() as tmp:
        path = generate(Path(tmp) / "wide.csv", rows=args.rows)
        size_mb = path.stat().st_size / 2**20
        cats = _categories(path)
        runs: dict[str, list[dict[str, float]]] = {m: [] for m in methods}
        for _ in range(args.repeat):
            for m in methods:
                runs[m].append(_run(m, path, cats))
    sums = {int(r["checksum"]) for rs in runs.values() for r in rs}
    print(
        f"load {args.rows:,} x 42 CSV ({size_mb:.0f} MB), keep 8 columns; "
        f"median of {args.repeat} fresh processes; same codes from every loader: {len(sums) == 1}"
    )
    before = statistics.median(r["seconds"] for r in runs["before"])
    for m in methods:
        sec = statistics.median(r["seconds"] for r in runs[m])
        peak = statistics.median(r["peak_mb"] for r in runs[m])
        imp = statistics.median(r["import_mb"] for r in runs[m])
        print(
            f"  {m:<8} {sec:6.2f} s  peak RSS {peak:6.0f} MB (after imports {imp:4.0f} MB, "
            f"+{peak - imp:4.0f} MB)  time vs before {sec / before:5.2f}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
