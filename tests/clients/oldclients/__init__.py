"""Drivers for released platform clients (run in their own interpreter path, see test_old_clients)."""
