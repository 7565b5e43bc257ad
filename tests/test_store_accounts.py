"""Accounts in the store (``basra.store``): users, sessions and wrong passwords, written
through the one writer queue and committed before the caller goes on.

Runs on a fresh SQLite file, and on PostgreSQL too when ``BASRA_TEST_POSTGRES_URL``
names a database (``tests/conftest.py`` starts one when PostgreSQL is installed); tests
there use fresh names and delete their rows afterwards.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy import delete, event, select

from basra.players.accounts import name_key, token_hash
from basra.store import Store, StoredUser
from basra.store.schema import login_failures_table, sessions_table, users_table
from tests.support.stores import BACKENDS, store_url, with_store

DAY = 24 * 3600 * 1000
NOW = 1_700_000_000_000


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return store_url(request.param, tmp_path)



@pytest.fixture()
def new_name(url: str) -> Iterator[Callable[[str], str]]:
    """Fresh names (a prefix and random letters); their rows are deleted after the test."""
    keys: list[str] = []

    def make(prefix: str = "p") -> str:
        name = prefix + uuid.uuid4().hex[:10]
        keys.append(name_key(name))
        return name

    yield make

    async def clean(store: Store) -> None:
        async with store.engine.begin() as conn:
            ids = select(users_table.c.id).where(users_table.c.name_key.in_(keys))
            await conn.execute(delete(sessions_table).where(sessions_table.c.user_id.in_(ids)))
            await conn.execute(delete(users_table).where(users_table.c.name_key.in_(keys)))
            await conn.execute(delete(login_failures_table).where(
                login_failures_table.c.name_key.in_(keys)))

    if keys:
        with_store(url, clean)


async def sign_up(store: Store, name: str, session: str = "s", now: int = NOW,
                  days: int = 30) -> StoredUser | None:
    return await store.accounts.create(name, name_key(name), "$argon2id$fake", now=now,
                                       session_hash=token_hash(session + name),
                                       expires_at=now + days * DAY)


def test_an_account_is_created_with_its_first_session(url: str,
                                                      new_name: Callable[[str], str]) -> None:
    name = new_name("Amira")

    async def work(store: Store) -> None:
        user = await sign_up(store, name)
        assert user is not None and (user.name, user.name_key) == (name, name_key(name))
        assert user.created_at == NOW and user.password_hash == "$argon2id$fake"
        assert await store.accounts.find(name_key(name.upper())) == user
        assert await store.accounts.find_by_session(token_hash("s" + name), NOW + 1) == user
        assert await store.accounts.find_by_session(token_hash("s" + name), NOW + 30 * DAY) is None
        assert await store.accounts.find_by_session(token_hash("unknown"), NOW) is None

    with_store(url, work)


def test_a_name_key_is_taken_once(url: str, new_name: Callable[[str], str]) -> None:
    name = new_name("Omar")

    async def work(store: Store) -> None:
        first = await sign_up(store, name)
        assert first is not None
        assert await sign_up(store, name.upper(), session="other") is None
        assert await store.accounts.find_by_session(token_hash("other" + name.upper()), NOW) is None

    with_store(url, work)


def test_sign_ups_at_once_for_one_name_make_one_account(
        url: str, new_name: Callable[[str], str]) -> None:
    """Queued together, committed together: exactly one of them gets the name."""
    name = new_name("Sara")
    commits: list[int] = []

    async def work(store: Store) -> None:
        event.listen(store.engine.sync_engine, "commit", lambda _conn: commits.append(1))
        if store.writer.sync_engine is not None:
            event.listen(store.writer.sync_engine, "commit", lambda _conn: commits.append(1))
        made = await asyncio.gather(*(sign_up(store, variant, session=str(i)) for i, variant
                                      in enumerate([name, name.upper(), name.lower()] * 3)))
        assert sum(user is not None for user in made) == 1
        assert made[0] is not None and made[0].name == name
        assert len(commits) <= 2  # one batch (two if the first was alone in its own)

    with_store(url, work)


def test_a_lost_answer_of_a_committed_sign_up_is_not_a_taken_name(
        url: str, new_name: Callable[[str], str]) -> None:
    """A retried change finds its own account (the commit went through before)."""
    name = new_name("Lina")

    async def work(store: Store) -> None:
        first = await sign_up(store, name)
        again = await sign_up(store, name)  # the same session: the same sign-up
        assert first is not None and again == first

    with_store(url, work)


def test_a_log_in_adds_a_session_ends_the_replaced_and_expired_ones_and_rehashes(
        url: str, new_name: Callable[[str], str]) -> None:
    name, other = new_name("Hana"), new_name("Zaid")

    async def work(store: Store) -> None:
        user = await sign_up(store, name, session="a", days=1)
        stale = await sign_up(store, other, session="b", days=1)
        assert user is not None and stale is not None
        await store.accounts.add_login_failure(user.name_key, now=NOW, forget_before=0,
                                               lock_ms=lambda _n: 0)
        later = NOW + 2 * DAY  # both first sessions expired
        await store.accounts.start_session(user.id, token_hash("c"), expires_at=later + DAY,
                                           now=later, name_key=user.name_key,
                                           password_hash="$argon2id$new",
                                           replaces=token_hash("a" + name))
        found = await store.accounts.find(user.name_key)
        assert found is not None and found.password_hash == "$argon2id$new"
        assert await store.accounts.find_by_session(token_hash("c"), later) == found
        async with store.engine.connect() as conn:
            left = set((await conn.execute(select(sessions_table.c.token_hash).where(
                sessions_table.c.user_id.in_([user.id, stale.id])))).scalars())
            failures = (await conn.execute(select(login_failures_table).where(
                login_failures_table.c.name_key == user.name_key))).all()
        assert left == {token_hash("c")}  # the expired sessions of every account went
        assert failures == []  # a right password clears the wrong ones
        await store.accounts.end_session(token_hash("c"))
        await store.accounts.end_session(token_hash("never was"))
        assert await store.accounts.find_by_session(token_hash("c"), later) is None

    with_store(url, work)


def test_wrong_passwords_count_lock_and_are_forgotten(url: str,
                                                      new_name: Callable[[str], str]) -> None:
    key = name_key(new_name("Nour"))  # no account needs to have the name

    def lock(failures: int) -> int:
        return 0 if failures < 3 else 1000 * 2 ** (failures - 3)

    async def work(store: Store) -> None:
        untils = [await store.accounts.add_login_failure(key, now=NOW + i, forget_before=0,
                                                         lock_ms=lock) for i in range(5)]
        assert untils == [0, 0, NOW + 2 + 1000, NOW + 3 + 2000, NOW + 4 + 4000]
        assert await store.accounts.login_locked_until(key, NOW + 5) == NOW + 4 + 4000
        assert await store.accounts.login_locked_until(key, NOW + 4 + 4000) == 0
        assert await store.accounts.login_locked_until(name_key("nobody here"), NOW) == 0
        # A day later with no wrong password in between: counted from one again.
        later = NOW + DAY
        assert await store.accounts.add_login_failure(key, now=later,
                                                      forget_before=later - DAY + 10,
                                                      lock_ms=lock) == 0

    with_store(url, work)


def test_accounts_outlive_the_store(url: str, new_name: Callable[[str], str]) -> None:
    name = new_name("Rami")
    user = with_store(url, lambda store: sign_up(store, name))

    async def read(store: Store) -> tuple[StoredUser | None, StoredUser | None]:
        return (await store.accounts.find(name_key(name)),
                await store.accounts.find_by_session(token_hash("s" + name), NOW))

    assert with_store(url, read) == (user, user)
