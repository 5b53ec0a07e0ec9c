"""Helpers shared by faceteval's packages: internal, never re-exported, importable from any package.

Each module is imported by its own name (``from faceteval._util.text import first_few``); this package
exports nothing. What goes here: a helper that two or more packages need and that belongs to none of
them (the wording of messages, numbers as LLMs write them, reading LLM replies, safe readers of YAML,
TOML, JSON and JSONL files and their records, setting checks, the lazy ``__getattr__`` of a package,
the command's garbage-collector settings). A helper that only one package uses stays in that package.

- `text`: message wording (`first_few`; `plural`, through which every printed count goes: "1 instance";
  `did_you_mean`, the closest names to an unknown one) and text made safe to print to a terminal
  (`neutralise`).
- `numbers`: numbers as LLMs write them and as messages and reports show them (`fmt`, `number`,
  `rounded`).
- `replies`: markdown, code fences, embedded JSON and refusals in LLM replies.
- `checks`: checks shared by settings objects (`whole_number`).
- `documents`: YAML, TOML and UTF-8 text read so that no file can hang, crash or mislead.
- `files`: JSON, JSONL and YAML-or-JSON files read with errors naming the file, line and field.
- `records`: a file's objects read field by field (`Record`).
- `lazy`: a module ``__getattr__`` importing each name from its module on first use.
- `heap`: the garbage-collector settings of the ``faceteval`` command's process.
"""
