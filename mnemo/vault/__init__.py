"""The vault tier: the person's Obsidian vault, read and indexed whole, written only where mnemo
owns a note (frontmatter ``mnemo_id``) and only through the safe writer."""
