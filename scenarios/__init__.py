"""The top layer: what users run -- the ``mpc-rr`` command line, workloads, experiments,
results, paper reproductions and the classroom.

* :mod:`scenarios.cli` -- the command line: ``main``, shared options, one
  thin module per command (parse, call a workload, print);
* :mod:`scenarios.workloads` -- one function per job (the pipeline on a data
  set, a secure sum, an RRBA collection, adversary runs, audits), returning
  frozen results; the CLI and the scenario kinds call the same functions;
* :mod:`scenarios.experiments` -- studies declared in TOML: spec, kinds, sweep, examples;
* :mod:`scenarios.results` -- the SQLite store, aggregation, provenance and the HTML report;
* :mod:`scenarios.reproduce` -- the papers' experiments (MDRR tables and figures, RRBA, dependence ranking);
* :mod:`scenarios.classroom` -- teaching traces;
* :func:`scenarios.study` -- a results store and the scenarios run into it, from Python.

Layers point down only: scenarios -> parties -> transports -> mpc_rr
(``lint-imports``, run by ``make test``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scenarios.studies import Study, study

__all__ = ["Study", "study"]


def __getattr__(name: str) -> Any:
    """``scenarios.study`` / ``scenarios.Study`` (:mod:`scenarios.studies`), imported on first use so
    the command line's start-up does not pay for the store and the sweep."""
    if name in __all__:
        from scenarios import studies as module

        return getattr(module, name)
    raise AttributeError(f"module 'scenarios' has no attribute {name!r}")
