"""HD-Eval's commands: ``hdeval decompose|train|apply|experiment|report`` and ``criteria show``
(registered from the family's spec)."""
