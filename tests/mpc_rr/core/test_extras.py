"""``require_extra``: an optional extra's module, or a usage error with the command that installs it."""

from __future__ import annotations

import sys

import pytest

from mpc_rr.core import MissingExtra, UsageError, require_extra


def test_an_installed_module_is_returned() -> None:
    assert require_extra("json", "none") is sys.modules["json"]


def test_a_missing_module_is_refused_with_the_exact_pip_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "segno", None)  # as if segno were not installed
    with pytest.raises(MissingExtra) as err:
        require_extra("segno", "classroom", needed_for="the live class")
    assert str(err.value) == "the live class needs segno, which is not installed: pip install 'mpc-rr[classroom]'"
    assert isinstance(err.value, UsageError) and (err.value.module, err.value.extra) == ("segno", "classroom")


def test_a_missing_submodule_names_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "no_such_package_xyz", None)
    with pytest.raises(MissingExtra, match=r"^this needs no_such_package_xyz, which is not installed: pip install 'mpc-rr\[ray\]'$"):
        require_extra("no_such_package_xyz.sub", "ray")
