"""mnemo inside Obsidian: the companion plugin (``plugin/``, shipped built) and its installer."""
