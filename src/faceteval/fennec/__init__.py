"""Fennec beyond judging: correcting weak responses, judge training data, and bridging datasets."""
