"""Writers: turn an analysis into sections."""
