"""Estimated joint distributions as products of independent factors.

RR-Independent estimates one marginal per attribute; RR-Clusters one joint
distribution per cluster; attributes in different factors are taken as
independent.  :class:`FactorModel` holds the factors and answers marginals on
any attribute subset without ever forming the full joint table (Adult's joint
domain has 1,814,400 cells).  :class:`WeightedRecords` is the estimate that
RR-Adjustment produces: the randomized records with weights.
"""

from __future__ import annotations

import math
import string
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from mpc_rr.core import UsageError

__all__ = ["FactorModel", "WeightedRecords"]


@dataclass(frozen=True)
class FactorModel:
    """``factors[k]`` is a distribution over the attributes ``groups[k]`` (shape = their sizes)."""

    sizes: tuple[int, ...]
    groups: tuple[tuple[int, ...], ...]
    factors: tuple[np.ndarray, ...]

    def __post_init__(self) -> None:
        seen = sorted(i for g in self.groups for i in g)
        if seen != list(range(len(self.sizes))):
            raise UsageError(
                f"FactorModel: groups {self.groups} must partition 0..{len(self.sizes) - 1}"
            )
        for g, f in zip(self.groups, self.factors, strict=True):
            if f.shape != tuple(self.sizes[i] for i in g):
                raise UsageError(f"FactorModel: factor for {g} has shape {f.shape}")

    def marginal(self, attrs: Sequence[int]) -> np.ndarray:
        """Distribution over ``attrs`` (in the given order), shape = their sizes."""
        attrs = [int(a) for a in attrs]
        if len(set(attrs)) != len(attrs):
            raise UsageError(f"marginal: repeated attributes {attrs}")
        letters = {a: string.ascii_letters[k] for k, a in enumerate(sorted(set(attrs)))}
        arrays: list[np.ndarray] = []
        subscripts: list[str] = []
        for g, f in zip(self.groups, self.factors, strict=True):
            keep = [a for a in g if a in letters]
            if not keep:
                continue
            axes_drop = tuple(k for k, a in enumerate(g) if a not in letters)
            arrays.append(f.sum(axis=axes_drop) if axes_drop else f)
            subscripts.append("".join(letters[a] for a in keep))
        spec = ",".join(subscripts) + "->" + "".join(letters[a] for a in attrs)
        result: np.ndarray = np.einsum(spec, *arrays)
        return result


@dataclass(frozen=True)
class WeightedRecords:
    """Weighted records (RR-Adjustment output, or raw randomized data with equal weights)."""

    sizes: tuple[int, ...]
    codes: np.ndarray
    weights: np.ndarray

    def marginal(self, attrs: Sequence[int]) -> np.ndarray:
        attrs = [int(a) for a in attrs]
        dims = tuple(self.sizes[a] for a in attrs)
        idx = np.ravel_multi_index(tuple(self.codes[:, attrs].T), dims)
        m = np.bincount(idx, weights=self.weights, minlength=math.prod(dims))
        result: np.ndarray = (m / m.sum()).reshape(dims)
        return result
