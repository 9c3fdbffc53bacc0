"""Tests in ``tests/http/`` carry the ``http`` marker (tests/tiers.py, docs/testing.md)."""

from tests.tiers import mark_directory

pytest_collection_modifyitems = mark_directory(__file__, "http")
