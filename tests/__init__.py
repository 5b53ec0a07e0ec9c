"""The test suite, a regular package: ``tests.support`` resolves here even where an installed
distribution ships a top-level ``tests`` package of its own (ppi-python does)."""
