"""The vector tests start from empty tables, as search by meaning's (see its conftest)."""

from tests.catalog.search.meaning.conftest import empty_catalog  # noqa: F401
