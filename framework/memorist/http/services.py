"""What resources and ``configure_app`` hooks receive: the assembled runtime."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..plugins import Plugins
from ..settings import Settings

if TYPE_CHECKING:
    from ..engine.memory import Memory


@dataclass
class AppServices:
    """The runtime one app serves from. Resources take what they need in ``__init__``."""

    settings: Settings
    plugins: Plugins
    memory: Memory
