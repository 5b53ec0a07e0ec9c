"""faceteval's pytest plugin: the ``faceteval_llm`` fixture, and the options that name its model.

Installing faceteval registers it (entry point ``pytest11``, named ``faceteval``); unused, it only adds
its options and ini keys, all named ``faceteval``, and reads nothing until a test asks for the fixture.
``-p no:faceteval`` leaves it out; with plugin autoloading off, ``-p faceteval`` loads it.

Options (each also an environment variable and an ini key; the flag wins, then the variable):

- ``--faceteval-model SPEC`` (``FACETEVAL_MODEL``, ``faceteval_model``): the judge, ``provider:model``.
- ``--faceteval-base-url URL`` (``FACETEVAL_BASE_URL``, ``faceteval_base_url``): its endpoint.
- ``--faceteval-endpoint-id NAME`` (``FACETEVAL_ENDPOINT_ID``, ``faceteval_endpoint_id``): the
  endpoint's name in the cache's keys in place of its URL (`faceteval.LLM.from_spec`'s ``endpoint_id``).
- ``--faceteval-cache PATH`` (``FACETEVAL_CACHE``, ``faceteval_cache``): a SQLite response cache;
  a later run answers every request it holds from it, with no call (and no server) needed.

A test that asks for ``faceteval_llm`` when no model is named errors, saying how to name one: a gate
that skipped itself would pass in CI without judging anything.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING

import pytest

from faceteval.errors import FacetevalError
from faceteval.testing._settings import (
    BASE_URL_ENV,
    CACHE_ENV,
    ENDPOINT_ID_ENV,
    MODEL_ENV,
    Settings,
    open_llm,
)

if TYPE_CHECKING:  # loaded when a test asks for the fixture: a run that does not, pays nothing for them
    from faceteval import LLM, SQLiteCache

_SETTINGS = {
    "model": ("SPEC", MODEL_ENV, "The model to judge with, provider:model (openai:gpt-4o-mini)."),
    "base_url": ("URL", BASE_URL_ENV, "Its endpoint: an OpenAI-compatible server (vLLM, Ollama...)."),
    "endpoint_id": (
        "NAME",
        ENDPOINT_ID_ENV,
        "The endpoint's name in the response cache's keys in place of its URL (a server on another port "
        "keeps its cached replies).",
    ),
    "cache": ("PATH", CACHE_ENV, "A SQLite response cache: later runs replay the judgments from it."),
}


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--faceteval-model``, ``--faceteval-base-url``, ``--faceteval-endpoint-id``,
    ``--faceteval-cache`` and their ini keys."""
    group = parser.getgroup("faceteval", "faceteval: judge outputs with an LLM (faceteval.testing)")
    for name, (metavar, env, text) in _SETTINGS.items():
        group.addoption(
            f"--faceteval-{name.replace('_', '-')}",
            dest=f"faceteval_{name}",
            metavar=metavar,
            default=None,
            help=f"{text} Default: ${env}, else the ini key faceteval_{name}.",
        )
        parser.addini(f"faceteval_{name}", f"faceteval: {text}", type="string", default="")


def faceteval_settings(config: pytest.Config) -> Settings:
    """The model, endpoint and cache the options, environment and ini of ``config`` name."""
    flags = {name: config.getoption(f"faceteval_{name}") for name in _SETTINGS}
    ini = {name: str(config.getini(f"faceteval_{name}")) for name in _SETTINGS}
    ini_dir = config.inipath.parent if config.inipath is not None else None
    return Settings.resolve(flags, os.environ, ini, ini_dir)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Say which model judges, when one is named (nothing otherwise)."""
    settings = faceteval_settings(config)
    return [settings.describe()] if settings.model else []


def _open(config: pytest.Config) -> tuple[LLM, SQLiteCache | None] | str:
    """The LLM and cache ``config`` names, or why there is none (a message to fail with)."""
    try:
        return open_llm(faceteval_settings(config))
    except FacetevalError as error:
        return str(error)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Show a faceteval error (an unreachable server, a bad cache) in a test that judges as one line,
    as the command line does; ``--tb=long`` keeps the traceback."""
    report: pytest.TestReport = yield
    excinfo = call.excinfo
    if (
        report.failed
        and excinfo is not None
        and excinfo.errisinstance(FacetevalError)
        and "faceteval_llm" in getattr(item, "fixturenames", ())
        and item.config.getoption("tbstyle", "auto") == "auto"
    ):
        report.longrepr = f"{excinfo.typename}: {excinfo.value}"
    return report


@pytest.fixture(scope="session")
def faceteval_llm(pytestconfig: pytest.Config) -> Iterator[LLM]:
    """The LLM the options name, for `faceteval.testing.assert_prefers` and `assert_score`.

    One for the session, with the response cache, if one is named, open until the session ends.
    Without a model named, a test that uses it errors with how to name one.
    """
    opened = _open(pytestconfig)
    if isinstance(opened, str):
        pytest.fail(opened, pytrace=False)
    llm, cache = opened
    try:
        yield llm
    finally:
        if cache is not None:
            cache.close()
