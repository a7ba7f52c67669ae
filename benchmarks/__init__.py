"""Timed comparisons, side by side in one run: ``python -m benchmarks`` runs them all, ``python -m benchmarks.<name>`` one."""
