"""The in-process Python doors: :mod:`.memory` (``memorist.Memory``, mem0's calls and
dictionaries) and :mod:`.engine` (``memorist.Engine``, the typed API).
"""
