"""The README and docs/ stay true to the repository: every link leads somewhere, the README stays a front
door, and the reference pages name every command flag, benchmark and method option there is."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import click
import pytest

from faceteval._cli._app import cli
from faceteval.datasets import benchmarks
from faceteval.methods import method_specs
from tests.support.markdown import ROOT, headings, links, local, section

README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]
README_LIMIT = 11_000
MODEL_OPTIONS = frozenset(
    {
        "--model",
        "--base-url",
        "--api-key",
        "--endpoint-id",
        "--batch",
        "--batch-poll",
        "--batch-window",
        "--batch-dir",
        "--batch-endpoint",
        "--prefix-cache",
        "--concurrency",
        "--timeout",
        "--retries",
        "--max-reply-bytes",
        "--max-retry-after",
        "--rpm",
        "--tpm",
        "--temperature",
        "--max-tokens",
        "--seed",
        "--structured",
        "--cache",
        "--no-cache",
        "--retry-unreadable",
        "--prices",
        "--templates",
        "--trace",
        "--no-trace",
        "--quiet",
        "--otel",
    }
)
"""The flags docs/cli.md describes once, under "Model options", for every command that calls an LLM."""


def test_the_readme_stays_a_front_door() -> None:
    size = len(README.read_bytes())
    assert size < README_LIMIT, f"README.md is {size:,} bytes; move reference text into docs/"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading_that_exist(page: Path) -> None:
    broken = []
    for target in links(page):
        if not local(target):
            continue
        parts = urlsplit(target)
        path = (page.parent / unquote(parts.path)).resolve() if parts.path else page
        if not path.exists():
            broken.append(f"{target}: no {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}")
        elif parts.fragment and path.suffix == ".md":
            anchors = {heading.anchor for heading in headings(path)}
            if parts.fragment not in anchors:
                broken.append(f"{target}: no heading #{parts.fragment} in {path.relative_to(ROOT)}")
        elif parts.fragment:
            broken.append(f"{target}: an anchor into a file that is not Markdown")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_the_layout_of_the_index_names_every_package() -> None:
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    layout = " ".join(text[text.index("Layout: ") :].split("\n\n")[0].split())
    packages = sorted(
        p.name for p in (ROOT / "src" / "faceteval").iterdir() if p.is_dir() and (p / "__init__.py").exists()
    )
    missing = [name for name in packages if f"`{name}`" not in layout]
    assert len(packages) >= 20 and not missing, f"docs/index.md's layout leaves out {missing}"
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    layers = architecture[architecture.index("| layer |") : architecture.index("A method family is")]
    assert not [name for name in packages if f"`{name}`" not in layers], "architecture.md's layers"


def test_every_page_of_docs_is_on_the_map() -> None:
    mapped = {Path(unquote(urlsplit(t).path)).name for t in links(DOCS / "index.md") if local(t)}
    missing = [p.name for p in DOCS.glob("*.md") if p.name != "index.md" and p.name not in mapped]
    assert not missing, f"docs/index.md does not list {missing}"


def _commands(group: click.Group, ctx: click.Context, path: tuple[str, ...] = ()) -> dict[str, set[str]]:
    """Every command below ``group`` by its path (``hdeval train``), with its long flags."""
    found: dict[str, set[str]] = {}
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        sub = click.Context(command, parent=ctx, info_name=name)
        if isinstance(command, click.Group):
            found |= _commands(command, sub, (*path, name))
            continue
        flags = {
            flag
            for param in command.params
            if isinstance(param, click.Option)
            for flag in (*param.opts, *param.secondary_opts)
            if flag.startswith("--") and flag != "--help"
        }
        found[" ".join((*path, name))] = flags
    return found


def test_the_cli_page_names_every_command_and_flag() -> None:
    page = DOCS / "cli.md"
    sections = {h.text: section(page, h) for h in headings(page)}
    problems = []
    for command, flags in _commands(cli, click.Context(cli, info_name="faceteval")).items():
        text = sections.get(f"faceteval {command}")
        if text is None:
            problems.append(f"no section `faceteval {command}`")
            continue
        for flag in sorted(flags - MODEL_OPTIONS):
            if not re.search(rf"(?<![\w-]){flag}(?![\w-])", text):
                problems.append(f"`faceteval {command}` does not name {flag}")
        if "--model" in flags:
            if "(#model-options)" not in text:
                problems.append(f"`faceteval {command}` does not link to the model options")
            for flag in sorted(MODEL_OPTIONS - flags):
                if f"`{flag}`" not in text:
                    problems.append(f"`faceteval {command}` takes no {flag} and does not say so")
    assert not problems, "docs/cli.md: " + "; ".join(problems)


def test_the_benchmarks_page_lists_every_benchmark_with_its_size() -> None:
    text = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    missing = [b.name for b in benchmarks() if f"| `{b.name}` | {b.size:,} |" not in text]
    assert not missing, f"docs/benchmarks.md lacks (or has another size for) {missing}"


def test_the_methods_page_lists_every_method_and_option() -> None:
    text = (DOCS / "methods.md").read_text(encoding="utf-8")
    built_in = [s for s in method_specs() if s.templates and s.templates[0].package.startswith("faceteval.")]
    assert len(built_in) >= 7
    problems = [f"`{spec.name}`" for spec in built_in if f"`{spec.name}`" not in text]
    for spec in built_in:
        for option in spec.options:
            row = f"| `{option.param}` | " + (f"`{option.flag}`" if option.flag else "(none)") + " |"
            if row not in text:
                problems.append(f"{spec.name}'s option {option.param}")
    assert not problems, f"docs/methods.md lacks {problems}"
