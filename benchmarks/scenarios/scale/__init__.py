"""The scale scenario: search latency and memory against store size (``benchmarks/scale.py``)."""
