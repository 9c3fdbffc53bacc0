"""The durable add queue: events and their records, cancellation, admission control.

The workers that run queued adds are :mod:`memorist.kernel.core.add_worker`.
"""
