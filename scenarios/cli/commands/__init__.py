"""The subcommands of ``mpc-rr``: one module each, exposing ``register(subparsers)``."""
