"""Reading the review app's forms: each field checked, with a 4xx that says what is wrong.

A field an annotator fills in that is missing or wrong raises `FieldError` (a 400 naming the field), which
the app shows next to that field on the page the form was on, with what was typed kept.
"""

from __future__ import annotations

import math
import secrets

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request

__all__ = [
    "FORM_KEY",
    "FORM_TOKEN",
    "MAX_TEXT",
    "FieldError",
    "choice",
    "field",
    "form_token",
    "integer",
    "new_form_token",
    "number",
    "read_form",
]

MAX_TEXT = 20_000
"""The longest text a field takes."""
FORM_TOKEN = "form_token"
"""The field holding a form's token, which makes sending the form again do nothing more."""
FORM_KEY = "form"
"""The field naming which form of its page a form is (``revise:3``), to show its errors next to it."""


class FieldError(HTTPException):
    """A field of a form that is missing or wrong: a 400 that names the field (``None``: the whole form)."""

    def __init__(self, name: str | None, detail: str) -> None:
        super().__init__(400, detail)
        self.field = name


def new_form_token() -> str:
    """A new form's token (each form rendered has its own)."""
    return secrets.token_urlsafe(24)


def form_token(form: FormData) -> str:
    """The token a form was rendered with (400 when it has none)."""
    token = field(form, FORM_TOKEN, verbatim=True)
    if not 16 <= len(token) <= 100:
        raise HTTPException(400, f"field {FORM_TOKEN!r} is not a form's token: reload the page")
    return token


async def read_form(request: Request) -> FormData:
    """The request's form (415 when it sends none, 400 when it cannot be read)."""
    if request.headers.get("content-type", "").split(";")[0].strip() not in (
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ):
        raise HTTPException(415, "send a form")
    try:
        return await request.form(max_files=0, max_fields=50)
    except HTTPException:
        raise
    except Exception as exc:  # a body the form parser rejects
        raise HTTPException(400, f"malformed form: {exc}") from None


def field(form: FormData, name: str, *, required: bool = True, verbatim: bool = False) -> str:
    """The field's text, stripped unless ``verbatim`` (an id or name that keys stored rows, as sent)."""
    value = form.get(name)
    if value is None or not isinstance(value, str) or not value.strip():
        if required:
            raise FieldError(name, f"missing field {name!r}")
        return ""
    if len(value) > MAX_TEXT:
        raise FieldError(name, f"field {name!r} is longer than {MAX_TEXT} characters")
    return value if verbatim else value.strip()


def choice(form: FormData, name: str, choices: tuple[str, ...]) -> str:
    """The field's value, one of ``choices``."""
    value = field(form, name)
    if value not in choices:
        raise FieldError(name, f"{name} must be one of {', '.join(choices)}")
    return value


def integer(form: FormData, name: str) -> int:
    """The field as a whole number."""
    try:
        return int(field(form, name))
    except ValueError:
        raise FieldError(name, f"{name} must be a whole number") from None


def number(form: FormData, name: str) -> float:
    """The field as a finite number."""
    try:
        value = float(field(form, name))
    except ValueError:
        raise FieldError(name, f"{name} must be a number") from None
    if not math.isfinite(value):
        raise FieldError(name, f"{name} must be a number")
    return value
