"""Loaders for the real data sets in the data folder (:func:`data_dir`; read-only, never downloaded).

Adult (UCI, ``adult.data``): the 8 categorical attributes used by
Domingo-Ferrer & Soria-Comas, Section 6.1, with ``?`` counted as a category
(9/16/7/15/6/5/2/2 categories, 1,814,400 joint cells, 32,561 records).
Education and income are ordinal (|Pearson r| between them); the others
nominal (Cramér's V).
"""

from __future__ import annotations

import os
from pathlib import Path

from mpc_rr.core import UsageError
from mpc_rr.data._schema import Attribute, Dataset, Schema, load_csv

__all__ = ["ADULT_COLUMNS", "ADULT_SCHEMA", "data_dir", "load_adult", "load_adult_test"]

ADULT_COLUMNS = (
    "age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
    "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
    "hours-per-week", "native-country", "income",
)  # fmt: skip

ADULT_SCHEMA = Schema(
    (
        Attribute(
            "workclass",
            ("Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
             "State-gov", "Without-pay", "Never-worked", "?"),
        ),
        Attribute(
            "education",
            ("Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th",
             "HS-grad", "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters",
             "Prof-school", "Doctorate"),
            ordinal=True,
        ),
        Attribute(
            "marital-status",
            ("Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
             "Married-spouse-absent", "Married-AF-spouse"),
        ),
        Attribute(
            "occupation",
            ("Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
             "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
             "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
             "Armed-Forces", "?"),
        ),
        Attribute(
            "relationship",
            ("Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"),
        ),
        Attribute("race", ("White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black")),
        Attribute("sex", ("Female", "Male")),
        Attribute("income", ("<=50K", ">50K"), ordinal=True),
    )
)  # fmt: skip


def data_dir() -> Path:
    """``$MPC_RR_DATA`` if set, else the folder ``shared/data`` one level above the project root."""
    env = os.environ.get("MPC_RR_DATA")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parents[2]  # the project root (mpc_rr/data/_datasets.py)
    for base in (here, Path.cwd()):
        cand = base.parent / "shared" / "data"
        if cand.is_dir():
            return cand
    return here.parent / "shared" / "data"


def load_adult(path: str | Path | None = None) -> Dataset:
    """Adult's 8 categorical attributes as a :class:`Dataset` (32,561 records), named
    ``"adult"`` (a file given in Adult's format is named after it)."""
    p = Path(path) if path is not None else data_dir() / "adult.data"
    if not p.exists():
        raise UsageError(
            f"load_adult: {p} not found; set MPC_RR_DATA to the folder holding adult.data"
        )
    # named "adult" (adult.data's stem); another file in Adult's format keeps its own stem
    return load_csv(p, ADULT_SCHEMA, header=ADULT_COLUMNS, name=p.stem or "adult")


def load_adult_test(path: str | Path | None = None) -> Dataset:
    """The other half of Adult (UCI ``adult.test``, 16,281 records), same schema and codes.

    The file starts with a banner line (``|1x3 Cross validator``) and its
    income labels end with a period (``<=50K.``); both are handled here.  A
    held-out sample from the same census for checks that must not be tuned
    on ``adult.data``.
    """
    p = Path(path) if path is not None else data_dir() / "adult.test"
    if not p.exists():
        raise UsageError(
            f"load_adult_test: {p} not found; set MPC_RR_DATA to the folder holding adult.test"
        )
    *rest, income = ADULT_SCHEMA.attributes
    dotted = Attribute(income.name, tuple(f"{c}." for c in income.categories), income.ordinal)
    test = load_csv(p, Schema((*rest, dotted)), header=ADULT_COLUMNS, skip_lines=1)
    return Dataset(ADULT_SCHEMA, test.codes, "adult-test")
