"""Every `faceteval` command shown in README.md and docs/ is one the real command line takes: each is
parsed by the CLI's own commands (every option, choice and number checked as when it runs), nothing
run. Files a command names need not exist here; anything else click refuses fails the test."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from faceteval._cli._app import cli, optional_values
from tests.support.markdown import ROOT, tokens

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
PLACEHOLDER = "..."
"""What the docs write for the rest of a command (``--model ...``): left out, or a value as given."""
SHELL = frozenset({">", ">>", "|", "&&", "||", ";", "2>", "2>&1", "<"})
"""Where the shell takes over from the command (a redirection, a pipe, the next command)."""
MISSING_FILE = re.compile(r"(File|Path|Directory) '.*' does not exist")


def commands(path: Path) -> Iterator[tuple[int, list[str]]]:
    """(line, argv after ``faceteval``) of each command in the page's code blocks, continuation lines
    joined; a block's lines that are not commands (output, other programs) are skipped."""
    for token in tokens(path):
        if token.type != "fence" or token.info.strip() in ("python", "toml", "json", "yaml", "jsonl"):
            continue
        assert token.map is not None
        lines = token.content.splitlines()
        k = 0
        while k < len(lines):
            start, line = k, lines[k]
            while line.rstrip().endswith("\\") and k + 1 < len(lines):
                k += 1
                line = line.rstrip()[:-1] + " " + lines[k].strip()
            k += 1
            text = line.strip().removeprefix("$ ")
            if text.startswith("faceteval "):
                argv = shlex.split(text, comments=True)[1:]
                ends = [k for k, arg in enumerate(argv) if arg in SHELL]
                yield token.map[0] + start + 2, argv[: ends[0]] if ends else argv


def _shown() -> list[tuple[str, list[str]]]:
    return [(f"{path.relative_to(ROOT)}:{line}", argv) for path in PAGES for line, argv in commands(path)]


SHOWN = _shown()


def parse(argv: list[str]) -> None:
    """Parse ``argv`` as the ``faceteval`` command would, down to its last subcommand; nothing is run.

    Raises:
        click.UsageError: A flag, value or argument the command refuses.
    """
    args = optional_values([a for k, a in enumerate(argv) if a != PLACEHOLDER or _takes_value(argv, k)])
    ctx = cli.make_context("faceteval", list(args), resilient_parsing=False)
    command: click.Command = cli
    rest = [*ctx._protected_args, *ctx.args]
    while isinstance(command, click.Group) and rest:
        name, *rest = rest
        sub = command.get_command(ctx, name)
        if sub is None:
            raise click.UsageError(f"no such command {name!r}")
        ctx = sub.make_context(name, rest, parent=ctx, resilient_parsing=False)
        command, rest = sub, [*ctx._protected_args, *ctx.args]


def _takes_value(argv: list[str], k: int) -> bool:
    """Whether ``...`` at ``argv[k]`` stands for an option's value (it follows an option that is not a
    flag)."""
    return k > 0 and argv[k - 1].startswith("--") and "=" not in argv[k - 1]


def test_the_pages_show_many_commands() -> None:
    pages = {where.split(":")[0] for where, _ in SHOWN}
    assert len(SHOWN) >= 60 and {"README.md", "docs/cli.md", "docs/batch-clusters.md"} <= pages, pages


@pytest.mark.parametrize(("where", "argv"), SHOWN, ids=[where for where, _ in SHOWN])
def test_every_command_in_the_docs_is_one_the_cli_takes(
    where: str, argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no faceteval.toml of this checkout's: the command as a user types it
    try:
        parse(argv)
    except click.exceptions.Exit:
        pass  # --help, --version
    except click.UsageError as exc:
        if not MISSING_FILE.search(exc.format_message()):
            pytest.fail(f"{where}: faceteval {shlex.join(argv)}\n  {exc.format_message()}")


def test_a_command_with_a_flag_that_does_not_exist_is_caught() -> None:
    with pytest.raises(click.UsageError, match="No such option: --input"):
        parse(["judge", "--input", "pairs.jsonl", "--out", "j.jsonl"])
    with pytest.raises(click.UsageError, match="no such command 'run'"):
        parse(["batch", "run"])
    with pytest.raises(click.UsageError, match="No such option: --bogus"):
        parse(["judge", "pairs.jsonl", "--bogus"])
