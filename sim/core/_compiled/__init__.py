"""The build's helpers: which compiled modules run, and Cython's names for plain Python."""
