"""The plaintext sum (the reference protocol): its parameters are checked."""

from __future__ import annotations

import pytest

from mpc_rr.core import UsageError
from mpc_rr.secure_sum.plainsum import make_role


@pytest.mark.parametrize("cells", [-1, 0, 2.5, True, "3"])
def test_plainsum_refuses_a_bad_vector_length(cells: object) -> None:
    with pytest.raises(UsageError, match=r"plainsum: params\['cells'\] must be an int >= 1"):
        make_role(1, 3, 0, {"cells": cells})
