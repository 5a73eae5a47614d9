"""Search by meaning (sors/catalog/search/semantic.py, sors/catalog/vectors/) on worlds of its
own: each test starts from empty tables (the catalog package's shared world would crowd the
nearest neighbours) and `clean` empties them after."""

from __future__ import annotations

import pytest

from tests.conftest import KEEP_TABLES
from tests.factories import reset_tables


@pytest.fixture(autouse=True)
async def empty_catalog(db, clean):
    await reset_tables(db, KEEP_TABLES)
    yield
