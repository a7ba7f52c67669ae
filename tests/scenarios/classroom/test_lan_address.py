"""The live class's join URL: the address of the route the room's phones reach (a UDP connect
looks the route up and sends nothing), not the hostname's loopback entry in /etc/hosts."""

from __future__ import annotations

from typing import ClassVar

import pytest

from scenarios.classroom import serve


class _FakeUdp:
    """A UDP socket whose route lookup answers ``local``; records what was asked of it."""

    calls: ClassVar[list[tuple[str, object]]] = []

    def __init__(self, local: str) -> None:
        self.local = local

    def __enter__(self) -> _FakeUdp:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def connect(self, addr: tuple[str, int]) -> None:
        _FakeUdp.calls.append(("connect", addr))

    def getsockname(self) -> tuple[str, int]:
        return (self.local, 40000)

    def send(self, data: bytes) -> int:  # pragma: no cover - must not happen
        _FakeUdp.calls.append(("send", data))
        return len(data)


def _fake(monkeypatch: pytest.MonkeyPatch, local: str, hostname_addr: str | None) -> None:
    _FakeUdp.calls = []
    monkeypatch.setattr(serve.socket, "socket", lambda *a, **k: _FakeUdp(local))

    def by_name(name: str) -> str:
        if hostname_addr is None:
            raise OSError("no such host")
        return hostname_addr

    monkeypatch.setattr(serve.socket, "gethostbyname", by_name)


def test_the_route_address_wins_over_a_loopback_hostname(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake(monkeypatch, "10.1.2.3", "127.0.1.1")
    assert serve.lan_address() == "10.1.2.3"
    assert _FakeUdp.calls == [("connect", (serve.ROUTE_PROBE, 9))]  # a lookup, nothing sent


def test_without_a_route_the_hostname_then_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    _fake(monkeypatch, "127.0.0.1", "192.168.1.20")
    assert serve.lan_address() == "192.168.1.20"
    _fake(monkeypatch, "127.0.0.1", None)
    assert serve.lan_address() == "127.0.0.1"
    assert serve.is_loopback("127.0.1.1") and serve.is_loopback("localhost")
    assert not serve.is_loopback("10.1.2.3")


def test_the_probe_is_a_documentation_address() -> None:
    import ipaddress

    assert ipaddress.ip_address(serve.ROUTE_PROBE) in ipaddress.ip_network("192.0.2.0/24")
