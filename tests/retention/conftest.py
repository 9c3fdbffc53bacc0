"""The retention suite goes through the doors in process: the ``http`` tier (tests/tiers.py)."""

from tests.tiers import mark_directory

pytest_collection_modifyitems = mark_directory(__file__, "routes")
