"""The Jinja environment of a web app's pages: every value escaped unless a template says otherwise."""

from __future__ import annotations

from urllib.parse import quote

from jinja2 import Environment, PackageLoader, select_autoescape

__all__ = ["page_templates"]


def page_templates(package: str, folder: str = "templates") -> Environment:
    """The templates in ``package``'s ``folder``, autoescaped (HTML, and strings rendered too), with
    the filter ``q`` (a value quoted for a URL's path or query).

    Examples:
        >>> page_templates("faceteval.review").from_string("{{ x }} {{ x|q }}").render(x="<a&b>")
        '&lt;a&amp;b&gt; %3Ca%26b%3E'
    """
    environment = Environment(
        loader=PackageLoader(package, folder),
        autoescape=select_autoescape(default=True, default_for_string=True),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["q"] = lambda value: quote(str(value), safe="")
    return environment
