"""Workloads: one function per job a user runs, each returning a frozen result.

* :mod:`.pipeline` -- the distributed RR-Clusters pipeline on a data set (``mpc-rr run``);
* :mod:`.secure_sum` -- one secure sum checked against the plaintext sum, and the
  Sec. 4.2 / 4.3 computations built on it;
* :mod:`.rrba` -- one RRBA collection, centralized or distributed, summarized;
* :mod:`.adversary` -- real runs with a tap, for the eavesdropper and coalitions;
* :mod:`.data_source`, :mod:`.rrba_data` -- the data a workload runs on (Adult, a CSV, a network).

The command line (:mod:`scenarios.cli`) and the scenario kinds
(:mod:`scenarios.experiments.kinds`) call these; they hold no parsing or printing.
"""
