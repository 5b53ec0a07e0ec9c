"""The ``faceteval`` command group: configuration precedence and error handling live here."""

from __future__ import annotations

import functools
import importlib
import json
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click

from faceteval._cli import starting
from faceteval._cli._console import err_console, escape, neutral_out
from faceteval._cli._family_commands import add_family_subcommands, family_commands, load_family_command
from faceteval._util.documents import read_toml
from faceteval._util.text import did_you_mean
from faceteval._version import __version__
from faceteval.errors import BatchIncomplete, BatchPending, BatchUnanswered, FacetevalError

CONFIG_FILE = "faceteval.toml"
DATA_DIR_KEYS = ("data-dir", "data_dir")
"""faceteval.toml's top-level setting of the data directory of every command that reads benchmarks."""
TEMPLATES_KEY = "templates"
"""faceteval.toml's top-level setting of the prompt templates of every command that renders prompts."""

F = TypeVar("F", bound=Callable[..., Any])


class ConfigFileError(click.ClickException):
    """A faceteval.toml that cannot be used: a usage error (exit status 2), its file and key named."""

    exit_code = 2


def _default_map() -> dict[str, Any]:
    """Defaults from ``faceteval.toml`` in the working directory: one table per command.

    Precedence, resolved by click: built-in defaults < faceteval.toml < environment < flags.
    """
    path = Path(CONFIG_FILE)
    if not path.is_file():
        return {}
    try:
        data = read_toml(path)
    except FacetevalError as exc:  # read before any command runs: its one line, as click prints it
        raise ConfigFileError(str(exc)) from exc
    defaults: dict[str, Any] = {}
    _data_dir_setting(data, path)
    _templates_setting(data, path)
    for name, table in data.items():
        if name in DATA_DIR_KEYS or (name == TEMPLATES_KEY and not isinstance(table, dict)):
            continue  # a [templates] table is the templates command's
        if name == "prices":
            _check_prices(table, path)
            continue
        command = cli.get_command(None, name)
        if command is None or not isinstance(table, dict):
            known = ", ".join(f"[{c}]" for c in [*cli.list_commands(None), "prices"])
            raise ConfigFileError(f"{path}: [{name}] is not a command's table; the tables are {known}")
        defaults[name] = _command_defaults(command, table, f"{path}: [{name}]")
    return defaults


def _check_prices(table: Any, path: Path) -> None:
    """A usage error unless ``[prices]`` is a table of prices (its entry named), as ``--prices`` is."""
    if not isinstance(table, dict):
        raise ConfigFileError(
            f'{path}: prices must be a table ([prices] with "provider:model" = {{input, output}})'
        )
    from faceteval.llm import PriceTable  # only for a file that has prices

    try:
        PriceTable.from_mapping(table, source=f"{path} [prices]")
    except FacetevalError as exc:
        raise ConfigFileError(str(exc)) from exc


def _command_defaults(command: click.Command, table: dict[str, Any], where: str) -> dict[str, Any]:
    """A command's table of faceteval.toml keyed as click wants it: by parameter, not option, name.

    Keys are option names (``cache``, ``base-url`` or ``base_url``, ``no-trace``); a group's table
    holds its subcommands' tables. An unknown key is an error rather than a setting that does nothing.
    """
    options: dict[str, tuple[str, bool]] = {}  # option name -> (parameter name, whether it negates)
    params: dict[str, click.Option] = {}
    for param in command.params:
        if isinstance(param, click.Option) and param.name is not None:
            params[param.name] = param
            options.update({opt.lstrip("-"): (param.name, False) for opt in param.opts})
            options.update({opt.lstrip("-"): (param.name, True) for opt in param.secondary_opts})
    subcommands = command.commands if isinstance(command, click.Group) else {}
    defaults: dict[str, Any] = {}
    for key, value in table.items():
        option = options.get(key.replace("_", "-"))
        if key in subcommands and isinstance(value, dict):
            defaults[key] = _command_defaults(subcommands[key], value, f"{where[:-1]}.{key}]")
        elif option is not None:
            name, negates = option
            value = _config_value(params[name], value, f"{where} {key}")
            defaults[name] = not value if negates else value
        else:
            hint = did_you_mean(key, [*options, *subcommands], limit=1)
            raise ConfigFileError(f"{where} has no option {key!r}{hint}")
    return defaults


def _config_value(param: click.Option, value: Any, where: str) -> Any:
    """A faceteval.toml value as its flag would give it: a flag's true or false, else text (or, for a
    repeatable option, a list of texts) that click reads and checks as it reads the command line.

    Raises:
        ConfigFileError: the value is not of the option's kind, or (but for paths, checked when
            the command runs) not one the option takes.
    """
    if param.is_bool_flag:
        if not isinstance(value, bool):
            raise ConfigFileError(f"{where} = {_toml(value)}: expected true or false")
        return value
    if isinstance(value, bool) and param._flag_needs_value:  # a flag with an optional value (--structured)
        return param.flag_value if value else None
    items = value if param.multiple and isinstance(value, list) else [value]
    texts = []
    for item in items:
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            kind = "texts or numbers" if param.multiple else "a text or a number"
            raise ConfigFileError(f"{where} = {_toml(value)}: expected {kind}")
        text = str(item)
        if not isinstance(param.type, click.Path):  # a path may not exist until an earlier command runs
            try:
                param.type.convert(text, param, None)
            except click.BadParameter as exc:
                raise ConfigFileError(f"{where} = {_toml(value)}: {exc.message}") from exc
        texts.append(text)
    return texts if param.multiple else texts[0]


def _toml(value: Any) -> str:
    """``value`` as faceteval.toml spells it (near enough for a message; a date as it is).

    Examples:
        >>> _toml("hot"), _toml(float("inf")), _toml([1, float("nan")])
        ('"hot"', 'inf', '[1, nan]')
    """
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, list):
        return f"[{', '.join(map(_toml, value))}]"
    try:
        return json.dumps(value, ensure_ascii=False)
    except TypeError:
        return str(value)


def _data_dir_setting(data: dict[str, Any], path: Path) -> Path | None:
    """The top-level ``data-dir`` of faceteval.toml's ``data``, if it has one."""
    for key in DATA_DIR_KEYS:
        if key in data:
            value = data[key]
            if not isinstance(value, str) or not value:
                raise ConfigFileError(f"{path}: {key} = {_toml(value)}: expected a directory's path")
            return Path(value)
    return None


def _templates_setting(data: dict[str, Any], path: Path) -> str | None:
    """The top-level ``templates`` of faceteval.toml's ``data``, if it has one."""
    value = data.get(TEMPLATES_KEY)
    if isinstance(value, dict):  # the [templates] table of the templates command
        return None
    if value is not None and (not isinstance(value, str) or not value):
        raise ConfigFileError(f"{path}: {TEMPLATES_KEY} = {_toml(value)}: expected a directory's path")
    return value


def config_templates() -> str | None:
    """The ``templates`` of faceteval.toml's top level, if any: the directory of templates that replace
    built-in ones in every command that renders prompts, unless ``--templates`` or the command's own
    table says otherwise."""
    path = Path(CONFIG_FILE)
    return _templates_setting(read_toml(path), path) if path.is_file() else None


def config_data_dir() -> Path | None:
    """The ``data-dir`` of faceteval.toml, if any: where every command reads the benchmarks from,
    unless ``--data-dir``, ``FACETEVAL_DATA_DIR`` or the command's own table says otherwise."""
    path = Path(CONFIG_FILE)
    return _data_dir_setting(read_toml(path), path) if path.is_file() else None


def config_prices() -> dict[str, Any]:
    """The ``[prices]`` table of faceteval.toml, if any (``"provider:model" = {input, output}``)."""
    path = Path(CONFIG_FILE)
    if not path.is_file():
        return {}
    prices = read_toml(path).get("prices", {})
    return prices if isinstance(prices, dict) else {}


def handle_errors(command: F) -> F:
    """Print faceteval errors without a traceback: exit 1 on failure, 130 on Ctrl-C, 4 when a batch round
    waits for a cluster (`faceteval.errors.BatchPending`: its message says what to run), 5 when a batch
    run's rounds gave up on requests no batch answered (`faceteval.errors.BatchIncomplete`: its outputs
    are written; `faceteval.errors.BatchUnanswered`: a command that needs every reply stopped)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except BatchPending as exc:  # not a failure: the message says what to run before running again
            err_console.print(escape(str(exc)))
            sys.exit(exc.exit_code)
        except FacetevalError as exc:
            err_console.print(f"[bold red]error:[/] {escape(str(exc))}")
            sys.exit(exc.exit_code if isinstance(exc, BatchIncomplete | BatchUnanswered) else 1)
        except KeyboardInterrupt:  # before a run began (a run stops itself, with its summary)
            err_console.print("[bold yellow]Interrupted.[/]")
            sys.exit(130)

    return wrapper  # type: ignore[return-value]


COMMANDS = {
    "batch": "_batch_import:batch",
    "calibrate": "_calibrate:calibrate",
    "compare": "_compare:compare",
    "cost": "_cost:cost",
    "datasets": "_datasets:datasets",
    "judge": "_judge:judge",
    "meta-eval": "_metaeval:meta_eval",
    "report": "_report:report",
    "review": "_review:review",
    "templates": "_templates:templates",
    "view": "_view:view",
}
"""The CLI's own commands, each as the module of `faceteval._cli` and the name that define it. A command is
imported the first time it is asked for, so that each pays for its own imports only (``--version``: none)."""


GROUPS_FAMILIES_ADD_TO = ("review",)
"""The CLI's own groups a spec may add commands to (``"review import-coeval"``): only these pay for
loading the method registry when they start."""


class _Group(click.Group):
    """The ``faceteval`` group: its own commands and the method families', each imported when used."""

    def list_commands(self, ctx: click.Context | None) -> list[str]:
        """Every command's name: the CLI's own and the families'."""
        return sorted({*self.commands, *COMMANDS, *family_commands()})

    def get_command(self, ctx: click.Context | None, cmd_name: str) -> click.Command | None:
        """The command ``cmd_name``, imported the first time it is asked for (`faceteval._cli.starting`)."""
        if cmd_name not in self.commands:
            with starting():
                loaded = _own_command(cmd_name) if cmd_name in COMMANDS else _family_command(cmd_name)
            if loaded is not None:
                self.add_command(loaded, cmd_name)
        return self.commands.get(cmd_name)

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        if parent is None:
            args = optional_values(args)
        with _inert_usage_errors():
            extra.setdefault("default_map", _default_map())
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: click.Context) -> Any:
        with _inert_usage_errors():
            return super().invoke(ctx)


OPTIONAL_VALUES: dict[str, frozenset[str]] = {
    "--structured": frozenset({"auto", "json_schema", "json_object", "guided", "format"}),
}
"""Options whose value may be left out, with the values they take (``--structured``: ``auto`` and
`faceteval.llm.SCHEMA_DIALECTS`, which a test holds the same): alone, an option is given ``auto``."""


def optional_values(args: list[str]) -> list[str]:
    """``args`` with each option of `OPTIONAL_VALUES` given alone written with its default value, so
    that the word after it (the input file: ``--structured pairs.jsonl``) is not taken for its value.

    Examples:
        >>> optional_values(["judge", "--structured", "pairs.jsonl"])
        ['judge', '--structured=auto', 'pairs.jsonl']
        >>> optional_values(["judge", "--structured", "guided", "pairs.jsonl", "--", "--structured"])
        ['judge', '--structured', 'guided', 'pairs.jsonl', '--', '--structured']
    """
    out = list(args)
    for k, arg in enumerate(out):
        if arg == "--":
            break
        values = OPTIONAL_VALUES.get(arg)
        if values is not None and (k + 1 == len(out) or out[k + 1] not in values):
            out[k] = f"{arg}=auto"
    return out


@contextmanager
def _inert_usage_errors() -> Iterator[None]:
    """click's errors quote what was given (an unknown argument, a value): shown neutralised here."""
    try:
        yield
    except click.ClickException as exc:
        show_usage_error(exc, neutral_out(sys.stderr))
        raise click.exceptions.Exit(exc.exit_code) from exc


def show_usage_error(exc: click.ClickException, file: Any) -> None:
    """A usage or configuration error as click shows it (the usage and the help hint, for a usage
    error), its last line ``error: MESSAGE`` as every faceteval error's is."""
    ctx = exc.ctx if isinstance(exc, click.UsageError) else None
    if ctx is not None:
        hint = ""
        if ctx.command.get_help_option(ctx) is not None:
            hint = f"Try '{ctx.command_path} {ctx.help_option_names[0]}' for help.\n"
        click.echo(f"{ctx.get_usage()}\n{hint}", file=file, color=ctx.color)
    click.echo(f"error: {exc.format_message()}", file=file, color=ctx.color if ctx is not None else None)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
@click.version_option(__version__, prog_name="faceteval")
def cli() -> None:
    """Judge LLM outputs with LLMs: decomposed into facets, scored separately, aggregated in code.

    Defaults for any command's options can be set in a faceteval.toml in the working directory,
    one table per command (for example [judge] with model = "openai:gpt-4o-mini"), and the data
    directory of every command at its top (data-dir = "path/to/benchmarks").
    """


def _own_command(name: str) -> click.Command:
    module, _, attribute = COMMANDS[name].partition(":")
    command: click.Command = getattr(importlib.import_module(f"{__package__}.{module}"), attribute)
    if isinstance(command, click.Group) and name in GROUPS_FAMILIES_ADD_TO:
        add_family_subcommands(command, name)
    return command


def _family_command(name: str) -> click.Command | None:
    commands = family_commands().get(name)
    return None if commands is None else load_family_command(name, commands)
