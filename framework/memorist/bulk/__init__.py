"""Bulk work on a store: ``memorist import`` (file and HTTP), re-embedding."""
