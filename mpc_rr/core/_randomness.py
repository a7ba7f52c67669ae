"""Where random draws come from: seeded generators in simulations, a CSPRNG in deployments.

* **Simulations** are reproducible: one scenario seed fans out through
  ``numpy.random.SeedSequence(seed).spawn(n)`` to every party
  (:func:`party_generators`).  Anyone who knows the seed can recompute every
  party's noise, so a seeded run is a *simulation*, and every output says so
  (:func:`noise_source`).
* **Deployments** (a party in its own process, ``mpc-rr party``) draw their
  randomized-response noise from :func:`csprng_generator`: a numpy
  ``Generator`` over the ChaCha20 stream cipher (``randomgen.ChaCha``, 20
  rounds) keyed with 256 bits from the operating system's CSPRNG.  The noise
  is then unpredictable even to someone who knows every public parameter.
  (A PCG64 generator seeded from ``os.urandom`` would not do: PCG's state can
  be recovered from its outputs.)
* Secret shares, masks and keys always come from an
  :class:`~mpc_rr.secure_sum.Entropy` (OS CSPRNG by default).
"""

from __future__ import annotations

import secrets

import numpy as np

__all__ = ["csprng_generator", "noise_source", "party_generators"]


def csprng_generator() -> np.random.Generator:
    """A numpy Generator over ChaCha20 keyed from the OS CSPRNG (not reproducible)."""
    from randomgen import ChaCha

    key = int.from_bytes(secrets.token_bytes(32), "little")
    return np.random.Generator(ChaCha(key=key, rounds=20))


def party_generators(seed: int | np.random.SeedSequence, n: int) -> list[np.random.Generator]:
    """One independent, reproducible generator per data party: children of ``SeedSequence(seed)``."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return [np.random.default_rng(s) for s in ss.spawn(n)]


def noise_source(seed: int | None) -> str:
    """The sentence every output carries about where its noise came from."""
    if seed is None:
        return "deployment: noise from a CSPRNG (ChaCha20 keyed by the OS); not reproducible"
    return (
        f"simulation: every party's noise is derived from seed {seed} and can be recomputed "
        f"by anyone who knows it; do not publish results of real data collected this way"
    )
