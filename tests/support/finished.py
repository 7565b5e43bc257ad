"""Finished matches put straight into a store, for the tests of open data (the stream of
a player's matches, ``basra export``): real records of computer play, at tables where
accounts sat, rated or casual, finished at a chosen time."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import update

from basra.bots import make_bot
from basra.match import Match
from basra.observe import observe
from basra.players.accounts import name_key, token_hash
from basra.players.ratings import ranks_from_totals
from basra.record import Player, dumps, match_record
from basra.rules import make_rules
from basra.store import RatedMatch, Store, StoredUser, user_key
from basra.store.schema import records_table

DAY_MS = 86_400_000
NOV_2026 = 1_793_491_200_000
"""2026-11-01 00:00 UTC, in Unix milliseconds."""
DEC_2026 = 1_796_083_200_000
"""2026-12-01 00:00 UTC."""


def played(names: Sequence[str], variant: str = "egyptian", seed: int = 0) -> dict[str, Any]:
    """The record of a whole match the greedy computer played for every seat, under the
    players' names."""
    match = Match(make_rules(variant, len(names)), seed, variant=variant)
    bots = [make_bot("greedy", seed + seat) for seat in range(len(names))]
    while not match.is_over:
        seat = match.state.to_play
        match.play(bots[seat].choose(observe(match, seat)))
    record: dict[str, Any] = json.loads(dumps(match_record(
        match, [Player(name, "human") for name in names])))
    return record


async def accounts(store: Store, *names: str) -> list[StoredUser]:
    """New accounts of these names."""
    made = []
    for name in names:
        user = await store.accounts.create(name, name_key(name), "$argon2id$x",
                                           session_hash=token_hash(name), expires_at=10**13,
                                           now=1)
        assert user is not None, name
        made.append(user)
    return made


async def finish(store: Store, code: str, players: Sequence[StoredUser], at: int, *,
                 rated: bool, variant: str = "egyptian", seed: int = 0) -> int:
    """A table of these accounts whose match finished at ``at`` (Unix milliseconds),
    rated (counted in the ratings) or casual; the record's id."""
    config = {"variant": variant, "players": len(players), "rules": {}, "rated": rated,
              "seats": [{"kind": "human", "level": None} for _ in players]}
    await store.tables.create(
        code, config, seed, seats=[(seat, user.name, f"{seat:064x}")
                                   for seat, user in enumerate(players)],
        status="playing", accounts={seat: user.id for seat, user in enumerate(players)})
    record = played([user.name for user in players], variant, seed)
    counted = None
    if rated:
        rules = make_rules(variant, len(players))
        counted = RatedMatch(f"{variant}-{len(players)}",
                             tuple(user_key(user.id) for user in players), rules.side_of,
                             tuple(ranks_from_totals(record["result"]["totals"],
                                                     record["result"]["winner"])))
    record_id = await store.records.save(code, 1, record, dumps(record), rated=counted)
    assert await store.ratings.is_rated(record_id) is rated
    async with store.engine.begin() as conn:
        await conn.execute(update(records_table).where(records_table.c.id == record_id)
                           .values(finished_at=at))
    return record_id
