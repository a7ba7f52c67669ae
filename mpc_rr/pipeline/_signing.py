"""Ed25519 signatures on the clustering broadcast (``cryptography``)."""

from __future__ import annotations

from functools import lru_cache

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

__all__ = ["clustering_payload", "new_signing_key", "public_bytes", "sign", "verify"]


def new_signing_key(seed: bytes | None = None) -> Ed25519PrivateKey:
    """A fresh key (from the OS CSPRNG), or a deterministic one from a 32-byte seed (tests)."""
    if seed is None:
        return Ed25519PrivateKey.generate()
    return Ed25519PrivateKey.from_private_bytes(seed)


def public_bytes(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def clustering_payload(run: str, source: str, clusters: list[list[int]], digest: str) -> bytes:
    """Canonical bytes that the coordinator signs: run id, dependence source, clusters, digest."""
    text = ";".join(",".join(str(i) for i in c) for c in clusters)
    return f"mpc-rr clustering v1|{run}|{source}|{text}|{digest}".encode()


def sign(key: Ed25519PrivateKey, payload: bytes) -> bytes:
    return key.sign(payload)


@lru_cache(maxsize=1024)
def verify(public_key: bytes, signature: bytes, payload: bytes) -> bool:
    """Ed25519 verification.

    Memoized on the exact bytes: verification is a pure function, so when a
    simulation runs thousands of parties in one process the identical
    broadcast is verified once; any altered key, signature or payload is a
    different cache key and is verified afresh.
    """
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, payload)
    except (InvalidSignature, ValueError):
        return False
    return True
