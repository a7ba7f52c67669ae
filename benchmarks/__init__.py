"""Benchmarks (``python -m benchmarks.<name>``): ours next to a baseline, medians, ratios."""
