"""Pure renderers of a digest."""
