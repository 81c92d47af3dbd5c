"""Analysis of a window: pure functions, one module per kind of finding."""
