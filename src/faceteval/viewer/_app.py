"""The run viewer: a Starlette app of server-rendered pages over the runs it was given.

It serves loopback alone, behind the protections of every faceteval web app (`faceteval._web`): a
Host check, and a Content-Security-Policy that allows no script at all. It needs none: the pages are
rendered on the server with every text escaped (inputs, model replies, file names), and its filters
are GET forms. It only reads: no request writes anything but the index of a run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from faceteval._web import allowed_hosts, is_loopback, page_templates, protections
from faceteval.errors import ConfigError, FacetevalError, StoreError
from faceteval.viewer._catalog import Catalog, Changing, fresh
from faceteval.viewer._filters import AGREEMENTS, CONSISTENCIES, FilterError, Filters
from faceteval.viewer._lines import RunGone
from faceteval.viewer._opened import OpenedRun
from faceteval.viewer._pages import item_context, run_context, runs_context
from faceteval.viewer._runs import Run
from faceteval.viewer._summary import number_text, shown

__all__ = ["DEFAULT_HOST", "PAGE_SIZE", "create_app"]

DEFAULT_HOST = "127.0.0.1"
PAGE_SIZE = 50
"""Rows of a run's table on one page."""
MAX_PAGE_SIZE = 500

_templates = page_templates("faceteval.viewer")
_templates.filters["num"] = lambda value: "—" if value is None else number_text(value)
_templates.filters["show"] = shown
_templates.globals["AGREEMENTS"] = AGREEMENTS
_templates.globals["CONSISTENCIES"] = CONSISTENCIES


def create_app(paths: Sequence[Path], *, index_folder: Path, host: str = DEFAULT_HOST) -> Starlette:
    """The viewer of the runs in ``paths`` (files, or directories searched for runs), served on
    ``host``, a loopback address, keeping the indexes of the runs' lines in ``index_folder``.

    Raises:
        ConfigError: ``host`` is not a loopback address (the viewer has no sign-in).
    """
    if not is_loopback(host):
        raise ConfigError(
            f"the viewer serves this machine alone (it has no sign-in), not {host}: bind 127.0.0.1, and "
            "from another machine reach it through an SSH tunnel (ssh -L 8090:127.0.0.1:8090 HOST)"
        )
    catalog = Catalog(paths, index_folder)

    def runs_page(request: Request) -> Response:
        runs, problems = catalog.runs()
        return _page("runs.html", **runs_context(runs, problems, catalog.paths))

    def run_page(request: Request) -> Response:
        opened = _opened(request, catalog)
        filters = _filters(request.query_params)
        number, size = _whole(request.query_params, "page", 1), _page_size(request.query_params)
        sweep = opened.run.command == "meta-eval"  # a sweep's (or repeats') runs are listed on its page
        children = [run for run in catalog.runs()[0] if run.parent == opened.run.path] if sweep else []
        context = fresh(opened, lambda: run_context(opened, filters, number, size, children))
        return _page("run.html", **context)

    def item_page(request: Request) -> Response:
        opened = _opened(request, catalog)
        if opened.index is None:
            raise HTTPException(404, f"{opened.run.path} has no items")
        filters = _filters(request.query_params)
        line = _whole(request.query_params, "line", 0)
        context = fresh(opened, lambda: item_context(opened, line, filters))
        if context is None:
            raise HTTPException(404, f"{opened.run.lines} has no item on line {line}")
        template = context.pop("template")
        return _page(template, **context)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            catalog.close()

    handlers: dict[Any, Any] = {  # each takes its own exception type, which Starlette's types do not say
        HTTPException: _error,
        FilterError: _bad_filter,
        RunGone: _gone,
        Changing: _changing,
        StoreError: _store_error,
    }
    return Starlette(
        routes=[
            Route("/", runs_page),
            Route("/run/{run}", run_page),
            Route("/run/{run}/item", item_page),
        ],
        middleware=protections(allowed_hosts(host)),
        exception_handlers=handlers,
        lifespan=lifespan,
    )


def _opened(request: Request, catalog: Catalog) -> OpenedRun:
    run: Run | None = catalog.run(request.path_params["run"])
    if run is None:
        raise HTTPException(404, "no such run here (moved or removed?): see the list of runs")
    return catalog.opened(run)


def _filters(query: Mapping[str, str]) -> Filters:
    return Filters.from_query(query)


def _whole(query: Mapping[str, str], name: str, default: int) -> int:
    value = query.get(name, "").strip()
    if not value:
        return default
    if not value.isdigit() or len(value) > 12:
        raise HTTPException(400, f"{name}: {value!r} is not a whole number")
    return int(value)


def _page_size(query: Mapping[str, str]) -> int:
    size = _whole(query, "size", PAGE_SIZE)
    if not 1 <= size <= MAX_PAGE_SIZE:
        raise HTTPException(400, f"size: from 1 to {MAX_PAGE_SIZE} rows a page, not {size}")
    return size


def _page(template: str, *, status_code: int = 200, **context: Any) -> HTMLResponse:
    return HTMLResponse(_templates.get_template(template).render(**context), status_code=status_code)


async def _error(request: Request, exc: HTTPException) -> Response:
    return _page("error.html", status_code=exc.status_code, message=exc.detail)


async def _bad_filter(request: Request, exc: FilterError) -> Response:
    return _page("error.html", status_code=400, message=str(exc))


async def _gone(request: Request, exc: RunGone) -> Response:
    return _page("error.html", status_code=410, message=str(exc))


async def _changing(request: Request, exc: Changing) -> Response:
    message = f"the run changed while this page was read ({exc}): reload the page"
    return _page("error.html", status_code=409, message=message)


async def _store_error(request: Request, exc: FacetevalError) -> Response:
    return _page("error.html", status_code=500, message=str(exc))
