"""Fennec's commands: ``correct``, ``bridge`` and ``export sft`` (registered from the family's spec)."""
