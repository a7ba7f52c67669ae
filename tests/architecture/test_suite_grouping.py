"""`make test` distributes the suite with ``--dist loadgroup``: the tests of one
``xdist_group`` (a module with an expensive module fixture: the report's store, Ray, the
browser) run on one worker, so the fixture is built once.

With pytest 9.2 and pytest-xdist 3.8 the group mark silently stopped taking effect
(pytest-xdist issue #1386): every such fixture was rebuilt on both workers, about 50 s of
the suite under load.  pyproject.toml pins pytest below 9.2; this test fails if the grouping
is lost again.
"""

from __future__ import annotations

import pytest


@pytest.mark.xdist_group("suite-grouping")
def test_an_xdist_group_reaches_the_scheduler(request: pytest.FixtureRequest) -> None:
    if not getattr(request.config.option, "loadgroup", False):
        pytest.skip("runs under pytest-xdist with --dist loadgroup (make test)")
    # the scheduler groups by this suffix of the node id; without it, groups are ignored
    assert request.node.nodeid.endswith("@suite-grouping"), (
        f"{request.node.nodeid!r}: pytest-xdist's loadgroup did not mark the test's group; "
        f"is pytest >= 9.2 installed (pytest-xdist issue #1386)? `pip install 'pytest<9.2'`"
    )
