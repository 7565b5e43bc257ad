"""The web app: tables with friends and computer players over WebSockets.

The server is authoritative: clients send intents, the server checks them with the rules
core and sends every connection only what its seat may see (``docs/web-protocol.md``).
"""

from .app import create_app

__all__ = ["create_app"]
