"""The web app: tables with friends and computer players over WebSockets.

The server is authoritative: clients send intents, the server checks them with the rules
core and sends every connection only what its seat may see (``docs/web-protocol.md``).

``create_app`` is imported on first use, so that light modules of this package (the rate
limits the ``basra`` command shows in its help) load without the web framework.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import create_app

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
