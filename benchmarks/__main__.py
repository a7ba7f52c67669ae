"""Run every benchmark module of this package that defines ``main()``.

``python -m benchmarks [MODULE ...]`` runs the named modules only, each with its
default options (the module names are not passed on as its arguments).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import benchmarks


def main() -> int:
    only = set(sys.argv[1:])
    for mod in sorted(
        m.name for m in pkgutil.iter_modules(benchmarks.__path__) if not m.name.startswith("_")
    ):
        if only and mod not in only:
            continue
        print(f"\n##### benchmarks.{mod}", flush=True)
        m = importlib.import_module(f"benchmarks.{mod}")
        if hasattr(m, "main"):
            m.main([])
    return 0


if __name__ == "__main__":
    sys.exit(main())
