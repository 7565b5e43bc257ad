"""What the tournament API sends: a tournament's summary, standings, games and podium,
computed from what is stored (:mod:`basra.store.tournaments`) by the pure core
(:mod:`basra.players.tournaments`) each time they are asked for.

Standings:

- **arena**: each game's points by rank, doubled while the entrant is on fire
  (:func:`~basra.players.tournaments.arena_points`), summed; ordered by score, then
  rating, then name (entrants with the same score share the rank);
- **Swiss**: :func:`~basra.players.tournaments.swiss_standings` (score, Buchholz,
  Sonneborn-Berger, rating, name); ``results`` has one cell per round: the points, ``"bye"``,
  or None for a round the entrant was not paired in (paused, withdrawn, joined late).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from basra.players.tournaments import (
    Entrant,
    Game,
    SwissRound,
    arena_points,
    on_fire,
    rank_points,
    swiss_standings,
)
from basra.store.tournaments import StoredEntrant, StoredGame, StoredTournament

__all__ = ["game_points", "games_view", "standings", "summary", "swiss_rounds"]


def summary(tournament: StoredTournament, entrants: int) -> dict[str, Any]:
    """A tournament's line in the list (and the head of its own view)."""
    return {
        "id": tournament.id, "name": tournament.name, "kind": tournament.kind,
        "status": tournament.status, "variant": tournament.variant,
        "players": tournament.players, "rated": tournament.rated,
        "minutes": tournament.minutes, "rounds": tournament.rounds,
        "round": tournament.round, "starts_at": tournament.starts_at,
        "ends_at": tournament.ends_at, "entrants": entrants, "winner": tournament.winner,
        "turn_seconds": tournament.turn_seconds,
    }


def game_points(game: StoredGame) -> tuple[float, ...] | None:
    """Each entrant's points by rank in a counted game (None while it is played)."""
    return None if game.ranks is None else rank_points(game.ranks)


def swiss_rounds(games: list[StoredGame]) -> list[SwissRound]:
    """The Swiss rounds whose every game is counted, in order."""
    by_round: dict[int, list[StoredGame]] = defaultdict(list)
    for game in games:
        by_round[game.round].append(game)
    rounds = []
    for number in sorted(by_round):
        played = by_round[number]
        if any(g.ranks is None for g in played if not g.bye):
            break
        rounds.append(SwissRound(
            tuple(Game(g.entrants, g.ranks) for g in played if g.ranks is not None
                  and not g.bye),
            tuple(g.entrants[0] for g in played if g.bye)))
    return rounds


def _shown(value: float) -> float | int:
    """A score as JSON shows it: 2, not 2.0; 1.5 stays."""
    return int(value) if value == int(value) else value


def standings(tournament: StoredTournament, entrants: list[StoredEntrant],
              games: list[StoredGame]) -> list[dict[str, Any]]:
    """The standings, best first (entrants still waiting for a partner left out)."""
    listed = [e for e in entrants if e.status != "invited"]
    playing = {key: game.table_code for game in games
               if game.ranks is None and not game.bye for key in game.entrants}

    def line(entrant: StoredEntrant, rank: int, score: float, results: list[Any],
             fire: bool, played: int, buchholz: float | None = None,
             berger: float | None = None) -> dict[str, Any]:
        return {
            "rank": rank, "key": entrant.key, "name": entrant.name,
            "score": _shown(score), "games": played, "computer": entrant.computer,
            "results": results, "fire": fire,
            "buchholz": None if buchholz is None else _shown(buchholz),
            "sonneborn_berger": None if berger is None else _shown(berger),
            "paused": entrant.status == "paused", "withdrawn": entrant.status == "withdrawn",
            "playing": playing.get(entrant.key),
            "members": [name for _id, name in entrant.members] if len(entrant.members) > 1
            else None,
        }

    if tournament.kind == "swiss":
        rounds = swiss_rounds(games)
        table = swiss_standings(
            [Entrant(e.key, e.name, e.rating) for e in listed], rounds)
        cells: dict[str, list[Any]] = {e.key: [None] * len(rounds) for e in listed}
        for number, played in enumerate(rounds):
            for counted in played.games:
                for key, points in zip(counted.entrants, counted.points(), strict=True):
                    if key in cells:
                        cells[key][number] = _shown(points)
            for key in played.byes:
                if key in cells:
                    cells[key][number] = "bye"
        by_key = {e.key: e for e in listed}
        return [line(by_key[s.key], s.rank, s.score, cells[s.key], False, s.games,
                     s.buchholz, s.sonneborn_berger) for s in table]
    base: dict[str, list[float]] = defaultdict(list)
    for game in sorted((g for g in games if g.ranks is not None),
                       key=lambda g: (g.finished_at or 0, g.id)):
        for key, points in zip(game.entrants, rank_points(game.ranks or ()), strict=True):
            base[key].append(points)
    scored = {e.key: arena_points(base[e.key]) for e in listed}
    order = sorted(listed, key=lambda e: (-sum(scored[e.key]), -e.rating, e.name, e.key))
    lines = []
    for entrant in order:
        score = sum(scored[entrant.key])
        rank = 1 + sum(1 for other in listed if sum(scored[other.key]) > score)
        lines.append(line(entrant, rank, score, [_shown(p) for p in scored[entrant.key]],
                          on_fire(base[entrant.key]), len(base[entrant.key])))
    return lines


def games_view(entrants: list[StoredEntrant], games: list[StoredGame]
               ) -> list[dict[str, Any]]:
    """The games, newest first: their table, round, entrants' names and points."""
    names = {e.key: e.name for e in entrants}
    shown = []
    for game in reversed(games):
        points = game_points(game) if not game.bye else None
        shown.append({
            "table": game.table_code, "round": game.round,
            "players": [names.get(key, key) for key in game.entrants],
            "result": None if points is None else [_shown(p) for p in points],
            "bye": game.bye, "record": game.record_id,
            "url": None if game.table_code is None else f"/t/{game.table_code}",
        })
    return shown
