"""Pieces of ``benchmarks/search_stages.py``: a fresh LoCoMo store, and the stages of one add."""
