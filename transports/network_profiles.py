"""Heterogeneous network profiles for the memory transport: per-party RTTs and access rates.

A :class:`NetworkProfile` describes a population of parties rather than one
link. Each data party draws, from the caller's seeded generator, a
round-trip time to the network core and an uplink and a downlink rate, all
log-uniform between the profile's bounds (rates and delays of access links
spread over orders of magnitude, so their logarithms are the natural
scale). A fraction ``stragglers`` of the parties is then made
``straggler_slowdown`` times slower: their rates are divided by it and their
RTT is multiplied by it. Party 0, the hub or aggregator of every protocol
here, gets the profile's ``server_*`` values (a data-centre host).

A link ``(src, dst)`` then has one-way latency ``(rtt[src] + rtt[dst]) / 2``
(each end's half-RTT to the core), jitter ``jitter`` times that latency,
``src``'s uplink and ``dst``'s downlink (:class:`~transports.memory.LinkModel`
serializes payloads on them). Rates are in bytes per second, times in seconds.

The three built-in profiles (:data:`PROFILES`) are round figures, not a
measurement of any particular network: ``lan`` is one switched gigabit
segment; ``wan`` is fixed broadband (RTT 20-100 ms, 10-100 Mbit/s up,
50-200 Mbit/s down, 2 % stragglers 10x slower); ``mobile`` is a cellular
population (RTT 40-300 ms, 1-10 Mbit/s up, 5-50 Mbit/s down, 10 % stragglers
10x slower, jitter 20 % of the latency).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

from mpc_rr.core import UsageError
from transports.memory import LinkModel

__all__ = ["PROFILES", "NetworkProfile", "load_profile", "profile_links"]

_MBIT = 1e6 / 8  # bytes per second in one Mbit/s


@dataclass(frozen=True)
class NetworkProfile:
    """A population of access links (see the module docstring); seconds and bytes/s."""

    name: str
    rtt: tuple[float, float]
    uplink: tuple[float, float]
    downlink: tuple[float, float]
    jitter: float = 0.0
    loss: float = 0.0
    stragglers: float = 0.0
    straggler_slowdown: float = 10.0
    server_rtt: float = 0.001
    server_uplink: float = 1000 * _MBIT
    server_downlink: float = 1000 * _MBIT

    def __post_init__(self) -> None:
        where = f"network profile {self.name!r}"
        for name in ("rtt", "uplink", "downlink"):
            lo, hi = getattr(self, name)
            if not (math.isfinite(lo) and math.isfinite(hi) and 0 <= lo <= hi):
                raise UsageError(f"{where}: {name} must be [low, high] with 0 <= low <= high, got {[lo, hi]}")
            if name != "rtt" and lo <= 0:
                raise UsageError(f"{where}: {name} rates must be > 0 bytes/s, got {[lo, hi]}")
        for name in ("jitter", "server_rtt"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise UsageError(f"{where}: {name} must be finite and >= 0, got {v!r}")
        for name in ("loss", "stragglers"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise UsageError(f"{where}: {name} must be a fraction in [0, 1], got {v!r}")
        for name in ("straggler_slowdown", "server_uplink", "server_downlink"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v > 0):
                raise UsageError(f"{where}: {name} must be finite and > 0, got {v!r}")


PROFILES: dict[str, NetworkProfile] = {
    "lan": NetworkProfile(
        "lan", rtt=(0.0002, 0.001), uplink=(1000 * _MBIT, 1000 * _MBIT),
        downlink=(1000 * _MBIT, 1000 * _MBIT), server_rtt=0.0002,
    ),
    "wan": NetworkProfile(
        "wan", rtt=(0.020, 0.100), uplink=(10 * _MBIT, 100 * _MBIT),
        downlink=(50 * _MBIT, 200 * _MBIT), jitter=0.05, stragglers=0.02,
    ),
    "mobile": NetworkProfile(
        "mobile", rtt=(0.040, 0.300), uplink=(1 * _MBIT, 10 * _MBIT),
        downlink=(5 * _MBIT, 50 * _MBIT), jitter=0.2, stragglers=0.10,
    ),
}  # fmt: skip
"""The built-in profiles, by the name ``--network`` takes."""


def load_profile(spec: str | Path) -> NetworkProfile:
    """A built-in profile by name, or one read from a TOML file.

    The file has a ``[network]`` table with the fields of
    :class:`NetworkProfile` (``rtt``, ``uplink``, ``downlink`` as two-element
    arrays; rates in bytes per second, or with the suffix ``_mbit`` in Mbit/s,
    e.g. ``uplink_mbit = [1, 10]``); ``base = "wan"`` starts from a built-in
    profile and overrides what the file gives.
    """
    text = str(spec)
    if text in PROFILES:
        return PROFILES[text]
    path = Path(text)
    if path.suffix != ".toml":
        raise UsageError(f"network: {text!r} is neither a profile ({', '.join(PROFILES)}) nor a .toml file")
    try:
        doc = tomllib.loads(path.read_text())
    except OSError as exc:
        raise UsageError(f"network: cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"network: {path} is not valid TOML: {exc}") from None
    table = doc.get("network")
    if not isinstance(table, dict):
        raise UsageError(f"network: {path} has no [network] table")
    table = dict(table)
    base_name = table.pop("base", None)
    if base_name is not None and base_name not in PROFILES:
        raise UsageError(f"network: {path}: base {base_name!r} is not one of {', '.join(PROFILES)}")
    known = {f.name for f in fields(NetworkProfile)} - {"name"}
    values: dict[str, object] = {}
    for key, value in table.items():
        name, scale = (key[: -len("_mbit")], _MBIT) if key.endswith("_mbit") else (key, 1.0)
        if name not in known:
            raise UsageError(f"network: {path}: unknown field {key!r}; known: {', '.join(sorted(known))}")
        values[name] = _number_or_pair(value, scale, f"{path}: {key}")
    if base_name is None:
        missing = {"rtt", "uplink", "downlink"} - values.keys()
        if missing:
            raise UsageError(f"network: {path}: missing {', '.join(sorted(missing))} (or set base = \"wan\")")
        return NetworkProfile(name=path.stem, **values)  # type: ignore[arg-type]
    return replace(PROFILES[base_name], name=path.stem, **values)  # type: ignore[arg-type]


def _number_or_pair(value: object, scale: float, where: str) -> float | tuple[float, float]:
    if isinstance(value, bool):
        raise UsageError(f"network: {where} must be a number or [low, high], got {value!r}")
    if isinstance(value, int | float):
        return float(value) * scale
    if isinstance(value, list) and len(value) == 2 and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value
    ):
        return (float(value[0]) * scale, float(value[1]) * scale)
    raise UsageError(f"network: {where} must be a number or [low, high], got {value!r}")


def _log_uniform(rng: np.random.Generator, bounds: tuple[float, float], n: int) -> np.ndarray:
    lo, hi = bounds
    if lo == hi or lo <= 0:
        return np.asarray(rng.uniform(lo, hi, n))  # a point, or a range from 0
    return np.asarray(np.exp(rng.uniform(math.log(lo), math.log(hi), n)))


def profile_links(
    profile: NetworkProfile, parties: Iterable[int], rng: np.random.Generator
) -> Callable[[int, int], LinkModel]:
    """The per-link models of ``parties`` drawn from ``profile`` (party 0: the server).

    Draws are made once here, in ascending party order, from ``rng``: one
    seed gives every party the same RTT and rates. The returned callable is
    what :class:`~transports.memory.MemoryNetwork` takes as ``link``.
    """
    ids = sorted(int(p) for p in parties)
    n = len(ids)
    rtt = _log_uniform(rng, profile.rtt, n)
    up = _log_uniform(rng, profile.uplink, n)
    down = _log_uniform(rng, profile.downlink, n)
    slow = rng.random(n) < profile.stragglers
    rtt[slow] *= profile.straggler_slowdown
    up[slow] /= profile.straggler_slowdown
    down[slow] /= profile.straggler_slowdown
    row = {p: i for i, p in enumerate(ids)}
    if 0 in row:
        i = row[0]
        rtt[i], up[i], down[i] = profile.server_rtt, profile.server_uplink, profile.server_downlink
    cache: dict[tuple[int, int], LinkModel] = {}

    def link(src: int, dst: int) -> LinkModel:
        m = cache.get((src, dst))
        if m is None:
            a, b = row[src], row[dst]
            one_way = float(rtt[a] + rtt[b]) / 2
            m = cache[(src, dst)] = LinkModel(
                latency=one_way, jitter=profile.jitter * one_way, loss=profile.loss,
                uplink=float(up[a]), downlink=float(down[b]),
            )  # fmt: skip
        return m

    return link
