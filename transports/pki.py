"""Per-deployment PKI and roster for the TCP transport.

``generate_deployment(n, out)`` (the engine of ``mpc-rr keys init``) writes

* ``ca.pem`` / ``ca.key`` -- a fresh CA for this deployment only (EC P-256);
* ``party-<i>.pem`` / ``party-<i>.key`` for ``i`` in ``0..n-1``: a certificate
  with ``CN=party-<i>`` and ``SAN=URI:urn:mpc-rr:party:<i>`` signed by the CA;
* ``roster.json`` mapping party id -> ``host``, ``port`` and the SHA-256
  fingerprint of its certificate (DER).  Party 0 is the hub; in the hub
  topology only its address is dialled.

The hub accepts a connection only if the TLS handshake verifies the client
certificate against the CA, its fingerprint is in the roster, and the party
id the client claims equals both the roster entry and the id in the
certificate.  Clients check the hub's fingerprint the same way.
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import json
import os
import re
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mpc_rr.core import UsageError

if TYPE_CHECKING:  # certificate parsing and generation load on first use (start-up time)
    from cryptography import x509
    from cryptography.hazmat.primitives.asymmetric import ec

__all__ = [
    "PartyEntry",
    "Roster",
    "cert_party_id",
    "client_context",
    "fingerprint",
    "generate_deployment",
    "server_context",
    "signing_key",
    "signing_keys",
]

ROSTER_VERSION = 1
_CN_RE = re.compile(r"^party-(\d+)$")


@dataclass(frozen=True)
class PartyEntry:
    """Where party ``id`` lives and which certificate it must present."""

    id: int
    host: str
    port: int
    fingerprint: str  # "sha256:<hex>" of the DER certificate ("" in plaintext rosters)


@dataclass
class Roster:
    """All parties of a deployment; ``directory`` holds the PEM files.

    Treat it as read-only once built (:meth:`with_hub_address` makes a copy):
    ``ids`` is computed once and shared by every endpoint built from it.
    """

    parties: dict[int, PartyEntry]
    hub: int = 0
    directory: Path = field(default_factory=lambda: Path("."))

    @functools.cached_property
    def ids(self) -> frozenset[int]:
        """Every party id, one shared set (10,000 endpoints in one process do not get
        10,000 copies of a 10,001-element set: that was 500 KB per TLS party)."""
        return frozenset(self.parties)

    def by_fingerprint(self) -> dict[str, int]:
        return {e.fingerprint: e.id for e in self.parties.values() if e.fingerprint}

    def ca_path(self) -> Path:
        return self.directory / "ca.pem"

    def cert_path(self, pid: int) -> Path:
        return self.directory / f"party-{pid}.pem"

    def key_path(self, pid: int) -> Path:
        return self.directory / f"party-{pid}.key"

    def with_hub_address(self, host: str, port: int) -> Roster:
        """A copy whose hub entry points at ``host:port`` (e.g. after listening on port 0)."""
        parties = dict(self.parties)
        e = parties[self.hub]
        parties[self.hub] = PartyEntry(e.id, host, int(port), e.fingerprint)
        copy = Roster(parties, self.hub, self.directory)
        copy.__dict__["ids"] = self.ids  # same ids: share the one set (cached_property slot)
        return copy

    def to_json(self) -> dict[str, Any]:
        return {
            "version": ROSTER_VERSION,
            "hub": self.hub,
            "ca": "ca.pem",
            "parties": [
                {"id": e.id, "host": e.host, "port": e.port, "fingerprint": e.fingerprint}
                for e in sorted(self.parties.values(), key=lambda e: e.id)
            ],
        }

    def save(self, path: Path | str) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n")
        return path

    @classmethod
    def load(cls, path: Path | str) -> Roster:
        """Read a roster file; PEM files are looked up next to it."""
        path = Path(path)
        try:
            d = json.loads(path.read_text())
        except (OSError, ValueError, RecursionError) as exc:  # not UTF-8, not JSON, nested too deep
            raise UsageError(f"roster {str(path)!r}: cannot read: {exc}") from None
        if not isinstance(d, dict):
            raise UsageError(f"roster {str(path)!r}: expected a JSON object, got {type(d).__name__}")
        if d.get("version") != ROSTER_VERSION:
            raise UsageError(
                f"roster {str(path)!r}: version {d.get('version')!r}, expected {ROSTER_VERSION}"
            )
        parties = {}
        entries = d.get("parties")
        if not isinstance(entries, list) or not entries:
            raise UsageError(f"roster {str(path)!r}: 'parties' must be a non-empty list")
        for k, p in enumerate(entries):
            try:
                e = PartyEntry(int(p["id"]), str(p["host"]), int(p["port"]), str(p["fingerprint"]))
            except (KeyError, TypeError, ValueError, OverflowError) as exc:  # 1e999 is no port
                raise UsageError(
                    f"roster {str(path)!r}: party entry {k} needs integer id and port, host and "
                    f"fingerprint ({type(exc).__name__}: {exc})"
                ) from None
            if e.id < 0 or not 0 <= e.port <= 65535:
                raise UsageError(f"roster {str(path)!r}: party entry {k} has id {e.id}, port {e.port}")
            if e.id in parties:
                raise UsageError(f"roster {str(path)!r}: party {e.id} listed twice")
            parties[e.id] = e
        try:
            hub = int(d.get("hub", 0))
        except (TypeError, ValueError, OverflowError):
            raise UsageError(f"roster {str(path)!r}: hub must be an integer") from None
        if hub not in parties:
            raise UsageError(f"roster {str(path)!r}: hub {hub} is not a listed party")
        return cls(parties, hub, path.parent)


def fingerprint(der: bytes) -> str:
    """``sha256:<hex>`` of a DER certificate."""
    return "sha256:" + hashlib.sha256(der).hexdigest()


def cert_party_id(der: bytes) -> int | None:
    """The party id written in a certificate's CN (``party-<i>``), or ``None``."""
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    cert = x509.load_der_x509_certificate(der)
    cns = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    if len(cns) != 1:
        return None
    m = _CN_RE.match(str(cns[0].value))
    return int(m.group(1)) if m else None


def _name(cn: str) -> x509.Name:
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "mpc-rr deployment"),
            x509.NameAttribute(NameOID.COMMON_NAME, cn),
        ]
    )


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey) -> None:
    from cryptography.hazmat.primitives import serialization

    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(pem)


def generate_deployment(
    n_parties: int,
    out: Path | str,
    *,
    hub_host: str = "127.0.0.1",
    hub_port: int = 7300,
    hosts: Mapping[int, str] | None = None,
    valid_days: int = 30,
) -> Roster:
    """Create a CA, one key/certificate per party and ``roster.json`` in ``out``.

    Parameters
    ----------
    n_parties:
        Number of parties including the hub (ids ``0..n_parties-1``), >= 2.
    out:
        Directory to write to (created; existing files are overwritten).
    hub_host, hub_port:
        Address of the hub (party 0).  Port ``0`` means "chosen at start-up"
        (tests and the local process runner rewrite the roster).
    hosts:
        Optional host of other parties (informational in the hub topology).
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    n_parties = int(n_parties)
    if n_parties < 2:
        raise UsageError(f"generate_deployment: n_parties must be >= 2, got {n_parties}")
    if not 1 <= int(valid_days) <= 3650:
        raise UsageError(f"generate_deployment: valid_days must be in [1, 3650], got {valid_days}")
    if not 0 <= int(hub_port) <= 65535:
        raise UsageError(f"generate_deployment: hub_port must be in [0, 65535], got {hub_port}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    now = _dt.datetime.now(_dt.UTC) - _dt.timedelta(minutes=5)
    until = now + _dt.timedelta(days=int(valid_days))
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("mpc-rr deployment CA")
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now)
        .not_valid_after(until)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    _write_key(out / "ca.key", ca_key)
    (out / "ca.pem").write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    parties: dict[int, PartyEntry] = {}
    for pid in range(n_parties):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (
            x509.CertificateBuilder()
            .subject_name(_name(f"party-{pid}"))
            .issuer_name(ca_name)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now)
            .not_valid_after(until)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(
                x509.SubjectAlternativeName(
                    [
                        x509.UniformResourceIdentifier(f"urn:mpc-rr:party:{pid}"),
                        x509.DNSName("localhost"),
                    ]
                ),
                critical=False,
            )
            .add_extension(
                x509.ExtendedKeyUsage(
                    [
                        x509.oid.ExtendedKeyUsageOID.CLIENT_AUTH,
                        x509.oid.ExtendedKeyUsageOID.SERVER_AUTH,
                    ]
                ),
                critical=False,
            )
            .sign(ca_key, hashes.SHA256())
        )
        _write_key(out / f"party-{pid}.key", key)
        (out / f"party-{pid}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        host = hub_host if pid == 0 else (hosts or {}).get(pid, hub_host)
        port = int(hub_port) if pid == 0 else 0
        parties[pid] = PartyEntry(
            pid, host, port, fingerprint(cert.public_bytes(serialization.Encoding.DER))
        )
    roster = Roster(parties, 0, out)
    roster.save(out / "roster.json")
    return roster


def _context(purpose: ssl.Purpose, roster: Roster, pid: int) -> ssl.SSLContext:
    """Raises UsageError naming the file when the CA, certificate or key is missing, is not
    what it should be (not PEM, not this party's certificate in the roster) or does not
    match (a key that is not the certificate's)."""
    ca, cert, key = roster.ca_path(), roster.cert_path(pid), roster.key_path(pid)

    def bad(path: Path, what: str) -> UsageError:
        return UsageError(f"party {pid}: TLS file {path}: {what}")

    for f in (ca, cert, key):
        if not f.is_file():
            kind = "is a directory" if f.is_dir() else "missing"
            raise bad(f, f"{kind} (the deployment's files sit next to the roster; "
                         "`mpc-rr keys init` writes them)")  # fmt: skip
    try:
        ctx = ssl.create_default_context(purpose, cafile=str(ca))
    except (OSError, ssl.SSLError, ValueError) as exc:
        raise bad(ca, f"not a readable PEM CA certificate ({exc})") from None
    try:
        der = ssl.PEM_cert_to_DER_cert(cert.read_text(errors="replace"))
    except (OSError, ValueError) as exc:
        raise bad(cert, f"not a readable PEM certificate ({exc})") from None
    if fingerprint(der) != roster.parties[pid].fingerprint:
        raise bad(cert, f"is not party {pid}'s certificate in the roster (fingerprint "
                        f"{fingerprint(der)[:23]}..., roster {roster.parties[pid].fingerprint[:23]}...)")  # fmt: skip
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    try:
        ctx.load_cert_chain(str(cert), str(key))
    except (OSError, ssl.SSLError) as exc:
        raise bad(key, f"not a readable PEM private key of {cert.name} ({exc})") from None
    ctx.verify_mode = ssl.CERT_REQUIRED
    return ctx


def server_context(roster: Roster, pid: int | None = None) -> ssl.SSLContext:
    """TLS 1.3 server context for the hub: requires a client certificate from the CA."""
    return _context(ssl.Purpose.CLIENT_AUTH, roster, roster.hub if pid is None else pid)


def client_context(roster: Roster, pid: int) -> ssl.SSLContext:
    """TLS 1.3 client context for party ``pid`` (hub identity checked by fingerprint)."""
    ctx = _context(ssl.Purpose.SERVER_AUTH, roster, pid)
    ctx.check_hostname = False  # identity = roster fingerprint + CN, checked after the handshake
    return ctx


def signing_key(roster: Roster, pid: int) -> Any:
    """Party ``pid``'s certificate key (ECDSA P-256), refused naming the file if unreadable."""
    from cryptography.hazmat.primitives import serialization

    key_file = roster.key_path(pid)
    try:
        return serialization.load_pem_private_key(key_file.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise UsageError(f"party {pid}: cannot load its key {str(key_file)!r}: {exc}") from None


def signing_keys(roster: Roster, pid: int) -> tuple[Any, dict[int, Any]]:
    """Party ``pid``'s certificate key and every party's certificate public key (ECDSA P-256).

    The protocols sign what they advertise with these (the library takes them
    as an identity: :func:`mpc_rr.secure_sum.install_identity`); each
    certificate read here must match the fingerprint the roster pins, so a
    swapped file is refused naming it.
    """
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    key = signing_key(roster, pid)
    public: dict[int, Any] = {}
    for e in roster.parties.values():
        path = roster.cert_path(e.id)
        try:
            cert = x509.load_pem_x509_certificate(path.read_bytes())
        except (OSError, ValueError) as exc:
            raise UsageError(f"party {pid}: cannot load the certificate {str(path)!r}: {exc}") from None
        der = cert.public_bytes(serialization.Encoding.DER)
        if e.fingerprint and fingerprint(der) != e.fingerprint:
            raise UsageError(f"certificate {str(path)!r} does not match the roster's fingerprint of party {e.id}")
        public[e.id] = cert.public_key()
    return key, public
