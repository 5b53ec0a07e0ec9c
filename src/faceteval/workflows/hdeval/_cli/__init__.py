"""HD-Eval's commands: ``hdeval decompose|train|apply|experiment|report`` (`_commands`) and ``criteria
show`` (`_show`), registered from the family's spec."""
