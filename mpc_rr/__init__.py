"""mpc_rr: randomized response and secure aggregation as sans-I/O protocols (the pure library)."""
