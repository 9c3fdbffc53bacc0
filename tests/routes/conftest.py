"""Tests in ``tests/routes/`` carry the ``routes`` marker (tests/tiers.py, docs/testing.md)."""

from tests.tiers import mark_directory

pytest_collection_modifyitems = mark_directory(__file__, "routes")
