"""``python -m memorist.cli``: what the module ran as a script."""

from . import main

main()
