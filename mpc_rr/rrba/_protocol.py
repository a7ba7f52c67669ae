"""Distributed RRBA: an Aggregator role and Client roles, blocks as rounds (sans-I/O).

How this protocol works (Imran & Meo, Algorithm 1 with Sec. 4.1.1 blocks)::

    client i (block b)                    aggregator (party 0)
    ------------------                    --------------------
                                          block b opens: plan it (views from
                                          the aggregator's generator), send
    <----- AskBlock(view, subsets, T) --  each of its clients its view's active
                                          subsets and their current tables
    check: my block, a view of the
    public cover, distributions, no
    cell below the public floor;
    answer each subset (Eq. 3)
    ------ Answer(view, cells) -------->  collect; at "all in" or at the block's
                                          deadline leave the silent out (and
                                          count them), tally, update (Eq. 4 or
                                          pooled), stopping rule; block b+1 opens
    <----- Dismiss ---------------------  when the collection ends (clients run
                                          out, or every subset stopped), to the
                                          clients never asked

With ``secure_tally`` a client does not send its cells: the block's clients
and the aggregator run SecAgg+ on the clients' one-hot answers (a vector
over every cell of every table: a 1 in the reported cell of each subset
asked), and the aggregator learns only the block's counts.

The aggregator contacts a client only when its block starts: before that a
client has received nothing and sent nothing, and it waits
``RRBAConfig.client_patience`` deadlines -- the deadlines the blocks before
its own may spend, plus two -- so its wait grows with its block's position,
not with the whole run.  Counted in deadlines of the common step timeout
(a deployment: ``mpc-rr party --step-timeout``), a waiting client wakes up
once per deadline; a simulation of thousands of clients in one process
gives each client one step timeout of that whole wait instead
(:func:`client_step_timeouts` with ``client_patience=1``): one wake-up per
client, whatever the number of blocks and dropouts.

State diagrams: the transition tables of
:class:`~mpc_rr.rrba.RRBAAggregator` (``PLAIN_TALLY_TABLE`` or
``SECURE_TALLY_TABLE``: the block loop, :mod:`._aggregator_role`) and
:class:`~mpc_rr.rrba.RRBAClient` (``CLIENT_TABLE``, :mod:`._client_role`),
each right under its State enum (``state_diagram``).

Randomness: :func:`rrba_roles` gives the aggregator the first child of
``SeedSequence(seed)`` and client ``i`` child ``i - 1`` of the second (the
split of :func:`~mpc_rr.rrba.run_rrba`), so a distributed run with
the same seed reproduces the centralized one bit for bit
(``run_rrba(..., client_rng="per-client")``).  Deployed clients draw from a
CSPRNG instead (:mod:`mpc_rr.rrba._deploy`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mpc_rr.core import COORDINATOR, Role, Runner, RunResult, UsageError
from mpc_rr.core._randomness import noise_source
from mpc_rr.data import Dataset
from mpc_rr.rrba._aggregator_role import BlockProgress, RRBAAggregator
from mpc_rr.rrba._client_role import RRBAClient
from mpc_rr.rrba._config import RRBAConfig
from mpc_rr.rrba._simulate import RRBARun, assemble, client_seeds, seed_parts
from mpc_rr.secure_sum import Entropy

__all__ = ["DistributedRun", "client_step_timeouts", "config_for", "rrba_roles", "run_distributed"]

Wrap = Callable[[int, Role], Role]
"""``wrap(party, role) -> role``: e.g. a test double that makes some clients drop out."""


def config_for(data: Dataset, block: int, p: float, **options: object) -> RRBAConfig:
    """The :class:`RRBAConfig` of a run over every record of ``data``."""
    return RRBAConfig(tuple(data.schema.sizes), data.n, block, p, **options)  # type: ignore[arg-type]


def client_step_timeouts(config: RRBAConfig, step_timeout: float) -> dict[int, float]:
    """Per-party step timeouts: ``step_timeout`` for the aggregator, and for client ``i``
    its whole wait, ``client_patience(i)`` deadlines (use with ``client_patience=1``)."""
    if not step_timeout > 0:
        raise UsageError(f"step_timeout must be > 0, got {step_timeout!r}")
    out = {COORDINATOR: float(step_timeout)}
    for i in range(1, config.n_clients + 1):
        out[i] = float(step_timeout) * config.client_patience(i)
    return out


def rrba_roles(
    config: RRBAConfig,
    codes: np.ndarray,
    seed: int | np.random.SeedSequence,
    *,
    parties: Sequence[int] | None = None,
    entropy: Callable[[int], Entropy] | None = None,
    progress: BlockProgress | None = None,
    client_patience: int | None = None,
) -> dict[int, Role]:
    """The aggregator and the clients of one simulated run; client ``i`` holds ``codes[i - 1]``.

    ``parties`` restricts which client roles are built; ``entropy(i)`` is client
    ``i``'s SecAgg+ source (tests pass a seeded one; default the OS CSPRNG);
    ``client_patience`` overrides every client's patience (see
    :func:`client_step_timeouts`).
    """
    c = np.asarray(codes)
    if c.shape != (config.n_clients, len(config.sizes)):
        raise UsageError(
            f"codes must have shape ({config.n_clients}, {len(config.sizes)}), got {c.shape}"
        )
    agg_ss, client_ss = seed_parts(seed)
    roles: dict[int, Role] = {
        COORDINATOR: RRBAAggregator(config, np.random.default_rng(agg_ss), progress=progress)
    }
    ids = list(parties) if parties is not None else list(range(1, config.n_clients + 1))
    root = seed if isinstance(seed, int) else seed.entropy
    noise = noise_source(root if isinstance(root, int) else -1)
    for i, ss in zip(ids, client_seeds(client_ss, np.asarray(ids) - 1), strict=True):
        ent = entropy(i) if entropy is not None else None
        roles[i] = RRBAClient(
            i, config, c[i - 1], np.random.default_rng(ss), entropy=ent, noise=noise,
            patience=client_patience,
        )  # fmt: skip
    return roles


@dataclass
class DistributedRun:
    """A distributed run evaluated against the records (``run``) and what the runner returned."""

    run: RRBARun
    result: RunResult


def run_distributed(
    data: Dataset,
    config: RRBAConfig,
    runner: Runner,
    seed: int | np.random.SeedSequence,
    *,
    wrap: Wrap | None = None,
    entropy: Callable[[int], Entropy] | None = None,
    progress: BlockProgress | None = None,
    client_patience: int | None = None,
) -> DistributedRun:
    """Build the roles over ``data``, run them with ``runner``, evaluate the aggregator's outcome.

    Raises the aggregator's :class:`~mpc_rr.core.ProtocolAbort` if it aborted.
    """
    roles = rrba_roles(
        config, data.codes, seed, entropy=entropy, progress=progress,
        client_patience=client_patience,
    )  # fmt: skip
    if wrap is not None:
        roles = {pid: (r if pid == COORDINATOR else wrap(pid, r)) for pid, r in roles.items()}
    result = runner(roles)
    agg = result.roles[COORDINATOR]
    if agg.error is not None:
        raise agg.error
    run = assemble(
        agg.result, data.codes, client_rng="per-client", transport=runner.name,
        secure_tally=config.secure_tally,
    )  # fmt: skip
    return DistributedRun(run, result)
