"""TileLang's carver.roller names that programs import; the roller itself is not here."""
