"""Fuzz one target with atheris: ``python -m tests.fuzz.run NAME [libFuzzer flags]``.

``--list`` prints the targets; ``--seed NAME|all`` writes a target's seeds into its committed
corpus (``tests/fuzz/corpus/NAME``); ``--replay [NAME ...]`` runs every input of the committed
corpus of the targets named (default: all) once, and prints one JSON object per target
(``inputs``, ``error``: the first finding's traceback or ``null``).  A fuzzing process makes
its runs reproducible first (:func:`tests.fuzz._runs.reproducible`), so an input replays
here as it was found.  Fuzzing reads that corpus and adds what it finds to a
scratch folder (``FUZZ_WORK``, default ``/tmp/mpc-rr-fuzz/NAME``), so the committed corpus
changes only by hand; a finding is written there as ``crash-*`` (copy it into the corpus: the
default tier then replays it as a regression test).  The library is instrumented for
coverage as it is imported (atheris, the ``fuzz`` extra).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

INSTRUMENTED = ("mpc_rr", "transports", "scenarios", "parties")


def _replay(names: list[str]) -> int:
    import json
    import traceback

    from tests.fuzz._targets import corpus_files, targets

    failed = 0
    for name in names or list(targets()):
        files = corpus_files(name)
        error = None
        try:
            one = targets()[name].setup().one
            for path in files:
                try:
                    one(path.read_bytes())
                except Exception:
                    error = f"{path.name}:\n{traceback.format_exc()}"
                    break
        except Exception:
            error = f"setup:\n{traceback.format_exc()}"
        failed += error is not None
        print(json.dumps({"target": name, "inputs": len(files), "error": error}), flush=True)
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    if argv[:1] in (["--seed"], ["--replay"]):
        from tests.fuzz._runs import reproducible

        reproducible()
    if argv[:1] == ["--replay"]:
        return _replay(argv[1:])
    if argv[:1] == ["--list"]:
        from tests.fuzz._targets import targets

        print("\n".join(targets()))
        return 0
    if argv[:1] == ["--seed"]:
        from tests.fuzz._targets import targets, write_seeds

        names = list(targets()) if argv[1:2] == ["all"] else argv[1:2]
        for name in names:
            print(name, write_seeds(name, targets()[name].setup()), "new seeds")
        return 0
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    import atheris

    name, flags = argv[0], argv[1:]
    with atheris.instrument_imports(include=list(INSTRUMENTED)):  # what it imports is covered
        from tests.fuzz._runs import reproducible
        from tests.fuzz._targets import CORPUS, targets

        reproducible()

        target = targets()[name]
        fuzzed = target.setup()
    work = Path(os.environ.get("FUZZ_WORK", f"/tmp/mpc-rr-fuzz/{name}"))
    work.mkdir(parents=True, exist_ok=True)
    folders = [str(work), str(CORPUS / name)]
    atheris.Setup([sys.argv[0], *flags, f"-artifact_prefix={work}/", *folders], fuzzed.one)
    atheris.Fuzz()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
