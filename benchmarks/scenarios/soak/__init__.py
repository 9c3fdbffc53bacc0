"""The soak scenario: mixed platform traffic, injected faults, then a durability check (``benchmarks/soak.py``)."""
