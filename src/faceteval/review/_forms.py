"""Reading the review app's forms: each field checked, with a 4xx that says what is wrong."""

from __future__ import annotations

import math
import secrets

from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request

__all__ = [
    "FORM_TOKEN",
    "MAX_TEXT",
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
            raise HTTPException(400, f"missing field {name!r}")
        return ""
    if len(value) > MAX_TEXT:
        raise HTTPException(400, f"field {name!r} is longer than {MAX_TEXT} characters")
    return value if verbatim else value.strip()


def choice(form: FormData, name: str, choices: tuple[str, ...]) -> str:
    """The field's value, one of ``choices``."""
    value = field(form, name)
    if value not in choices:
        raise HTTPException(400, f"{name} must be one of {', '.join(choices)}")
    return value


def integer(form: FormData, name: str) -> int:
    """The field as a whole number."""
    try:
        return int(field(form, name))
    except ValueError:
        raise HTTPException(400, f"{name} must be a whole number") from None


def number(form: FormData, name: str) -> float:
    """The field as a finite number."""
    try:
        value = float(field(form, name))
    except ValueError:
        raise HTTPException(400, f"{name} must be a number") from None
    if not math.isfinite(value):
        raise HTTPException(400, f"{name} must be a number")
    return value
