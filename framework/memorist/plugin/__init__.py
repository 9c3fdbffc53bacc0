"""The plugin system: hook specifications, the plugin manager, the provider registry and slots,
and the provider contracts plugins implement.

Plugins import none of it directly: :mod:`memorist.plugin_api` is their one door.
"""
