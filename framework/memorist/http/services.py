"""What resources and ``configure_app`` hooks receive: the kernel's plugin context.

Kept under its old name for resources and plugins written against it.
"""

from __future__ import annotations

from ..context import PluginContext

AppServices = PluginContext

__all__ = ["AppServices"]
