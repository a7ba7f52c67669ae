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
* :mod:`scenarios.classroom` -- teaching traces.

Layers point down only: scenarios -> parties -> transports -> mpc_rr
(``lint-imports``, run by ``make test``).
"""
