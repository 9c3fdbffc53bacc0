"""Benchmark scenarios: the parts of each benchmark, below its command line in ``benchmarks/<name>.py``."""
