"""What the routers take from the app, as FastAPI dependencies (``Depends``).

``create_app`` puts the shared objects on ``app.state`` (``hub``, ``store``,
``seeking``, ``limiter``, ``account_settings``, ``collector``); every router reads them
through these functions, never from a closure.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from starlette.requests import HTTPConnection

from basra.store import Store

from .collector import Collector
from .connections import Account
from .hub import Hub
from .ratelimit import RateLimits
from .sessions import AccountSettings, request_account

__all__ = ["AccountOf", "HubOf", "Limiter", "StoreOf", "account_of", "account_settings",
           "address", "collector_of", "hub_of", "limiter_of", "store_of"]


def hub_of(connection: HTTPConnection) -> Hub:
    """The app's hub."""
    hub: Hub = connection.app.state.hub
    return hub


def store_of(connection: HTTPConnection) -> Store:
    """The app's store."""
    store: Store = connection.app.state.store
    return store


def limiter_of(connection: HTTPConnection) -> RateLimits:
    """The app's rate limits of tables, seats and sockets."""
    limiter: RateLimits = connection.app.state.limiter
    return limiter


def account_settings(connection: HTTPConnection) -> AccountSettings:
    """How accounts work on this server."""
    settings: AccountSettings = connection.app.state.account_settings
    return settings


def collector_of(connection: HTTPConnection) -> Collector | None:
    """The process's garbage collector settings, when ``basra serve`` gave them."""
    collector: Collector | None = connection.app.state.collector
    return collector


def address(connection: HTTPConnection) -> str:
    """The client's address."""
    return connection.client.host if connection.client is not None else ""


async def account_of(request: Request) -> Account | None:
    """The logged-in account of a request, as (id, name), or None for a guest."""
    user = await request_account(store_of(request), request, account_settings(request).clock)
    return None if user is None else (user.id, user.name)


HubOf = Annotated[Hub, Depends(hub_of)]
StoreOf = Annotated[Store, Depends(store_of)]
Limiter = Annotated[RateLimits, Depends(limiter_of)]
AccountOf = Annotated[Account | None, Depends(account_of)]
