"""Which model the pytest plugin's ``faceteval_llm`` fixture judges with: from flags, environment, ini."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from faceteval.errors import ConfigError

if TYPE_CHECKING:
    from faceteval import LLM, SQLiteCache

MODEL_ENV = "FACETEVAL_MODEL"
BASE_URL_ENV = "FACETEVAL_BASE_URL"
ENDPOINT_ID_ENV = "FACETEVAL_ENDPOINT_ID"
CACHE_ENV = "FACETEVAL_CACHE"

NO_MODEL = f"""faceteval_llm: no model to judge with; name one in any of these ways:
  pytest --faceteval-model openai:gpt-4o-mini  (a local server: add --faceteval-base-url http://127.0.0.1:8000/v1)
  export {MODEL_ENV}=openai:gpt-4o-mini  (and {BASE_URL_ENV}=...)
  faceteval_model = openai:gpt-4o-mini  in pytest.ini, or under [tool.pytest.ini_options] in pyproject.toml
With --faceteval-cache PATH ({CACHE_ENV}, faceteval_cache), later runs replay the judgments from PATH."""


@dataclass(frozen=True, slots=True)
class Settings:
    """The model, endpoint and response cache the fixture uses.

    Attributes:
        model: A model spec (``openai:gpt-4o-mini``); None when none was given anywhere.
        base_url: An OpenAI-compatible (or Anthropic) endpoint; None: the provider's default.
        endpoint_id: A name for the endpoint in the cache's keys in place of its URL (a local server
            that moves to another port keeps its cached replies); None: the URL.
        cache: The SQLite response cache; None: no cache, every judgment calls the model.
    """

    model: str | None = None
    base_url: str | None = None
    cache: Path | None = None
    endpoint_id: str | None = None

    @classmethod
    def resolve(
        cls,
        flags: Mapping[str, str | None],
        env: Mapping[str, str],
        ini: Mapping[str, str | None],
        ini_dir: Path | None,
    ) -> Settings:
        """Each setting from its flag, else its environment variable, else its ini key.

        A relative cache path in the ini file is taken from the ini file's directory, others from
        the working directory.

        Examples:
            >>> Settings.resolve({"model": None}, {"FACETEVAL_MODEL": "openai:m"}, {"cache": "c.db"},
            ...                  Path("/project"))
            Settings(model='openai:m', base_url=None, cache=PosixPath('/project/c.db'), endpoint_id=None)
        """
        model = flags.get("model") or env.get(MODEL_ENV) or ini.get("model") or None
        base_url = flags.get("base_url") or env.get(BASE_URL_ENV) or ini.get("base_url") or None
        endpoint_id = flags.get("endpoint_id") or env.get(ENDPOINT_ID_ENV) or ini.get("endpoint_id") or None
        cache_path = flags.get("cache") or env.get(CACHE_ENV)
        cache: Path | None = Path(cache_path) if cache_path else None
        if cache is None and (from_ini := ini.get("cache")):
            cache = Path(from_ini) if ini_dir is None else ini_dir / from_ini
        return cls(model=model, base_url=base_url, cache=cache, endpoint_id=endpoint_id)

    def describe(self) -> str:
        """One line for pytest's report header."""
        from faceteval._util.urls import redact_url  # here: loading the plugin loads next to nothing

        endpoint = f" at {redact_url(self.base_url)}" if self.base_url else ""
        endpoint += f" (cached as endpoint {self.endpoint_id})" if self.endpoint_id else ""
        cache = f", replies cached in {self.cache}" if self.cache else ", no response cache"
        return f"faceteval: judging with {self.model}{endpoint}{cache}"


def open_llm(settings: Settings) -> tuple[LLM, SQLiteCache | None]:
    """The LLM ``settings`` name, with its response cache (for the caller to close), if any.

    Raises:
        ConfigError: No model is named, or its spec or endpoint is not valid.
        StoreError: The cache cannot be opened.
    """
    if settings.model is None:
        raise ConfigError(NO_MODEL)
    from faceteval import LLM, SQLiteCache

    cache = SQLiteCache(settings.cache) if settings.cache is not None else None
    try:
        llm = LLM.from_spec(
            settings.model, base_url=settings.base_url, cache=cache, endpoint_id=settings.endpoint_id
        )
        return llm, cache
    except BaseException:
        if cache is not None:
            cache.close()
        raise
