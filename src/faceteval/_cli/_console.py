"""The console for messages on stderr (errors, warnings, summaries), shared by every command."""

from rich.console import Console

err_console = Console(stderr=True, highlight=False, soft_wrap=True, emoji=False)
