"""Settings and what may change them: files, ``POST /configure``'s policy, stored
runtime overrides, mem0 configuration translation, provider key origins.
"""
