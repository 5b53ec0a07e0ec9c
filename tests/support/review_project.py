"""A small review project and a real `faceteval review serve` process for the review tests (or the app
served from a thread of the test, with a clock the test sets)."""

from __future__ import annotations

import asyncio
import html
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from faceteval.review import OVERALL, Draft, Item, ReviewStore
from tests.support.processes import SRC, stop, wait_until, wait_until_answering

HOSTILE = '<script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2"> Bees make honey.'


def build_project(path: Path) -> ReviewStore:
    """One task, two criteria (one on 1-3), three outputs; the second output holds script."""
    store = ReviewStore.open(path)
    store.add_task(
        "eli5",
        "Answer Reddit questions so a five-year-old understands.",
        [
            ("Clarity", "Use simple and easy-to-understand language.", (1.0, 5.0)),
            ("Accuracy", "Answers should be factually correct.", (1.0, 3.0)),
        ],
    )
    outputs = [
        ("q1", "How is perfume made?", "People squeeze flowers and keep the smell in oil."),
        ("q2", "How do bees make honey?", HOSTILE),
        ("q3", "Why is the sky blue?", "Sunlight bounces off the air, and blue bounces most."),
    ]
    items = [Item(i, "eli5", q, o, system="turbo") for i, q, o in outputs]
    drafts = []
    for item_id, _, _ in outputs:
        drafts += [
            Draft(
                item_id,
                "Clarity",
                4,
                "The answer is clear.",
                "squeeze flowers",
                ("The answer uses simple words.", "It gives a concrete example.", "A child could follow it."),
            ),
            Draft(
                item_id,
                "Accuracy",
                2,
                "Mostly right.",
                "",
                ("The facts are mostly right.", "One detail is vague."),
            ),
            Draft(item_id, OVERALL, 4),
        ]
    store.add_items(items, drafts)
    return store


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(project: Path, *options: str) -> Iterator[str]:
    """`faceteval review serve PROJECT [OPTIONS]` in its own process; yields its base URL."""
    with serving(project, *options) as (base, _):
        yield base


@contextmanager
def serving(
    project: Path, *options: str, wrapper: Sequence[str] = ()
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """As `serve`, also yielding the process; ``wrapper`` is a command the server is run by.

    The base URL is on 127.0.0.1 whatever ``--host`` binds (0.0.0.0 holds it too).
    """
    port = free_port()
    command = [sys.executable, "-m", "faceteval", "review", "serve", str(project), "--port", str(port)]
    process = subprocess.Popen(
        [*wrapper, *command, *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(SRC), "PYTHONUNBUFFERED": "1"},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_answering(process, base, "the review server")
        yield base, process
    finally:
        stop(process)


@dataclass(frozen=True)
class Form:
    """A form of a page, as a browser would send it: its action (without its fragment) and its fields."""

    action: str
    fields: dict[str, str]


def page_forms(page: str) -> list[Form]:
    """The forms of ``page`` with their hidden fields and named text areas (as rendered)."""
    out = []
    for attributes, body in re.findall(r"<form([^>]*)>(.*?)</form>", page, flags=re.DOTALL):
        action = re.search(r'action="([^"]*)"', attributes)
        fields = {
            html.unescape(name): html.unescape(value)
            for name, value in re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', body)
        }
        for name, text in re.findall(r'<textarea[^>]*name="([^"]*)"[^>]*>(.*?)</textarea>', body, re.DOTALL):
            fields[html.unescape(name)] = html.unescape(text)
        target = html.unescape(action[1]).split("#")[0] if action else ""  # a browser sends no fragment
        out.append(Form(target, fields))
    return out


@contextmanager
def serve_app(app: Any) -> Iterator[str]:
    """``app`` (an ASGI app) served by uvicorn on 127.0.0.1 from a thread of this process, so that a test
    controls what it was made with (its clock); yields its base URL."""
    import uvicorn

    listening = socket.socket()
    listening.bind(("127.0.0.1", 0))
    listening.listen()
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="on"))
    thread = threading.Thread(target=asyncio.run, args=(server.serve(sockets=[listening]),), daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started or not thread.is_alive(), "the review app answering", timeout=120)
        assert thread.is_alive(), "the review app did not start"
        yield f"http://127.0.0.1:{listening.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)
        listening.close()


@dataclass
class Clock:
    """A clock a test sets: what a server made with it takes as the time (UTC)."""

    now: datetime

    def __call__(self) -> datetime:
        return self.now

    def advance(self, by: timedelta) -> None:
        self.now += by
