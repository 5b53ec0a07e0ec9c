"""The CLI's consoles print text from outside inert: no control character of it reaches the terminal."""

from __future__ import annotations

import importlib
import io
import json
import logging
import logging.config
import pkgutil
import re
import sys
import warnings

import pytest
import rich.console
from rich.progress import Progress, TextColumn
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

import faceteval._cli
import faceteval.methods
from faceteval._cli._console import Console, NeutralLogFilter, escape, json_lines_out, neutral_log_config

PAYLOAD = "\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\x9b2J\u202eevil\u202c\rover\x7f"
SHOWN = r"\x1b]0;pwned\x07\x1b[2J\x1b[31mred\x1b[0m\x9b2J\u202eevil\u202c\x0dover\x7f"
INJECTED = ("\x1b]0;pwned", "\x1b[2J", "\x1b[31mred")
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
OWN_STYLING = re.compile(r"\x1b\[[0-9;]*m")


def colour_console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="standard", width=300, highlight=False)
    return console, out


def assert_inert(printed: str) -> None:
    """Only rich's own styling is raw; every injected sequence is shown as text."""
    assert not any(sequence in printed for sequence in INJECTED), repr(printed)
    assert not RAW.search(OWN_STYLING.sub("", printed)), repr(printed)


def test_markup_text_and_plain_strings_are_printed_inert_with_rich_styling_kept() -> None:
    console, out = colour_console()

    console.print(f"[red]failed:[/] {escape(PAYLOAD)}")  # the call site escapes
    console.print(f"[red]failed:[/] {PAYLOAD}")  # a call site that forgot

    printed = out.getvalue()
    assert_inert(printed)
    assert "\x1b[31mfailed:" in printed  # rich's own styling is unaffected
    assert printed.count(SHOWN) == 2


def test_table_cells_titles_trees_and_text_objects_are_printed_inert() -> None:
    console, out = colour_console()
    table = Table(title=PAYLOAD)
    table.add_column("id")
    table.add_row(PAYLOAD)
    tree = Tree(PAYLOAD)
    tree.add(PAYLOAD)

    console.print(table)
    console.print(tree)
    console.print(Text(PAYLOAD, style="bold"))  # built elsewhere: neutralised as it is rendered
    console.print({"id": PAYLOAD})

    assert_inert(out.getvalue())
    assert SHOWN in out.getvalue()


def test_a_progress_description_is_printed_inert() -> None:
    console, out = colour_console()
    with Progress(TextColumn("[progress.description]{task.description}"), console=console) as progress:
        progress.add_task(escape(PAYLOAD), total=1)
        progress.add_task(PAYLOAD, total=1)
        progress.refresh()

    assert all(sequence not in out.getvalue() for sequence in INJECTED), repr(out.getvalue())
    assert "\x9b" not in out.getvalue() and "\u202e" not in out.getvalue()


def test_escape_escapes_markup_as_well() -> None:
    console, out = colour_console()

    console.print(f"[red]x[/] {escape('[bold]not bold[/bold] ' + PAYLOAD)}")

    assert "[bold]not bold[/bold]" in out.getvalue()
    assert_inert(out.getvalue())


def test_every_console_of_the_cli_is_one_that_neutralises() -> None:
    consoles = {}
    families = pkgutil.walk_packages(faceteval.methods.__path__, "faceteval.methods.")
    modules = [
        *pkgutil.iter_modules(faceteval._cli.__path__, "faceteval._cli."),
        *(module for module in families if "._cli" in module.name),  # the families' commands
    ]
    for module in modules:
        loaded = importlib.import_module(module.name)
        for name, value in vars(loaded).items():
            if isinstance(value, rich.console.Console):
                consoles[f"{module.name}.{name}"] = value
    assert len(consoles) >= 10
    assert [name for name, console in consoles.items() if not isinstance(console, Console)] == []


def test_warnings_are_printed_inert(capsys: pytest.CaptureFixture[str]) -> None:
    from faceteval._cli import _show_warnings

    logger = logging.getLogger("faceteval")
    handlers = list(logger.handlers)
    try:
        _show_warnings()
        logging.getLogger("faceteval.store").warning("the response cache %s is unreadable", PAYLOAD)
    finally:
        logger.handlers[:] = handlers
        logger.propagate = True

    printed = capsys.readouterr().err
    assert "warning: the response cache " + SHOWN in printed
    assert not RAW.search(printed.replace("\n", ""))


def test_a_traceback_another_librarys_log_and_a_python_warning_are_printed_inert(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from faceteval._cli import _neutralise_fallbacks

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # each restored after the test
    monkeypatch.setattr(warnings, "showwarning", warnings.showwarning)
    monkeypatch.setattr(logging.root, "handlers", [])  # pytest's own, which would take every record
    last_resort = logging.lastResort
    assert last_resort is not None
    filters = list(last_resort.filters)
    try:
        _neutralise_fallbacks()
        try:
            raise ValueError(PAYLOAD)
        except ValueError as exc:
            sys.excepthook(type(exc), exc, exc.__traceback__)
        logging.getLogger("some.library").warning("odd reply: %s", PAYLOAD)
        warnings.showwarning(UserWarning(f"feature {PAYLOAD}"), UserWarning, "model.py", 7)
    finally:
        last_resort.filters[:] = filters

    printed = capsys.readouterr().err
    assert f"ValueError: {SHOWN}" in printed and f"odd reply: {SHOWN}" in printed
    assert f"model.py:7: UserWarning: feature {SHOWN}" in printed
    assert not RAW.search(printed.replace("\n", ""))


def test_the_review_servers_log_is_printed_inert(capsys: pytest.CaptureFixture[str]) -> None:
    config = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"plain": {"format": "%(levelname)s %(message)s"}},
        "handlers": {
            "stderr": {"class": "logging.StreamHandler", "formatter": "plain", "stream": "ext://sys.stderr"}
        },
        "loggers": {"faceteval-test.server": {"handlers": ["stderr"], "level": "INFO", "propagate": False}},
    }
    logging.config.dictConfig(neutral_log_config(config))
    logger = logging.getLogger("faceteval-test.server")
    try:
        logger.info('%s - "GET %s HTTP/1.1" %d', "127.0.0.1", "/" + PAYLOAD, 404)
        try:
            raise ValueError(PAYLOAD)
        except ValueError:
            logger.exception("Exception in ASGI application")
    finally:
        logger.handlers.clear()

    printed = capsys.readouterr().err
    assert f'INFO 127.0.0.1 - "GET /{SHOWN} HTTP/1.1" 404' in printed
    assert f"ValueError: {SHOWN}" in printed
    assert not RAW.search(printed.replace("\n", ""))


def test_the_filter_leaves_a_record_as_any_formatter_expects_it() -> None:
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, "%(a)s and %(b)d", None, None)
    record.args = {"a": PAYLOAD, "b": 3}

    assert NeutralLogFilter().filter(record)
    assert record.getMessage() == f"{SHOWN} and 3"


def test_json_lines_for_a_terminal_mean_the_same_and_hold_nothing_it_acts_on() -> None:
    line = json.dumps({"id": PAYLOAD, "text": "café \u2066x\u2069"}, ensure_ascii=False) + "\n"
    out = io.StringIO()

    json_lines_out(out).write(line)

    assert json.loads(out.getvalue()) == json.loads(line)
    assert not RAW.search(out.getvalue().rstrip("\n"))
    assert "café" in out.getvalue()
