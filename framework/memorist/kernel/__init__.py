"""Composition: settings + plugins -> the running system.

:class:`memorist.kernel.core.core.Kernel` builds what every door uses; :mod:`.context` is what
plugins are handed; :mod:`.runtime` swaps the serving engine on reconfiguration;
:mod:`.add_worker` runs the queued adds.
"""
