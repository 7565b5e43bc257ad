"""The neural level: it plays every preset legally, the same seed plays the same match, it
needs neither jax nor optax, and ``basra analyze --engine neural`` judges with it.

The shipped weights may change (they are trained apart from the code): nothing here
depends on their values, only on their being a network that plays every rules family.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from basra.bots import BOT_LEVELS, make_bot
from basra.bots.neural import NeuralBot
from basra.match import Match
from basra.observe import observe
from basra.record import Player, match_record
from basra.rules import PRESETS, make_rules
from basra.state import legal_moves
from basra.study.analysis import (
    ENGINES,
    analysis_document,
    analyze_match,
    check_engine,
    decision_points,
    evaluate,
)

GAMES = [(name, players) for name, found in PRESETS.items() for players in found.players]
GAME_IDS = [f"{name}/{players}" for name, players in GAMES]


def neural_match(variant: str, players: int, seed: int, deals: int = 2) -> Match:
    """``deals`` deals (or the whole match, if shorter) with the neural level at every
    seat, each move one of the seat's legal moves and played through the checked play."""
    match = Match(make_rules(variant, players), seed, variant=variant)
    bots = [make_bot("neural", seed * 10 + seat) for seat in range(players)]
    while not match.is_over and len(match.deals) <= deals:
        if not match.deal_in_progress:
            break
        seat = match.state.to_play
        view = observe(match, seat)
        move = bots[seat].choose(view)
        assert move in view.legal_moves
        if match.rules.family != "pisti":  # a pile capture names only the cards seen
            assert move in legal_moves(match.state)
        match.play(move)  # checked
    return match


def test_neural_is_a_level_between_greedy_and_the_expert() -> None:
    assert BOT_LEVELS.index("greedy") < BOT_LEVELS.index("neural") < BOT_LEVELS.index("expert")
    bot = make_bot(" Neural ", 3)
    assert isinstance(bot, NeuralBot) and bot.name == "neural"


@pytest.mark.parametrize(("variant", "players"), GAMES, ids=GAME_IDS)
def test_the_neural_level_plays_every_preset_legally(variant: str, players: int) -> None:
    match = neural_match(variant, players, seed=players)
    assert sum(len(deal.plays) for deal in match.deals) >= 48


def test_the_same_seed_plays_the_same_match() -> None:
    names = [Player(f"n{seat}", "bot") for seat in range(3)]
    for variant in ("egyptian", "pisti"):
        first = match_record(neural_match(variant, 3, seed=5, deals=3), names)
        again = match_record(neural_match(variant, 3, seed=5, deals=3), names)
        assert first == again
        other = neural_match(variant, 3, seed=6, deals=3)  # other deals, still legal play
        assert match_record(other, names)["deals"] != first["deals"]


def test_other_bot_seeds_still_play_legally_on_the_same_deal() -> None:
    for bot_seed in (0, 1, 99):
        match = Match(make_rules("classic", 4), seed=21, variant="classic")
        bots = [make_bot("neural", bot_seed + seat) for seat in range(4)]
        while match.deal_in_progress:
            view = observe(match, match.state.to_play)
            move = bots[view.seat].choose(view)
            assert move in view.legal_moves
            match.play(move)


def test_the_estimates_rank_every_legal_move_best_first() -> None:
    match = Match(make_rules("egyptian", 2), seed=4, variant="egyptian")
    for _ in range(30):
        view = observe(match, match.state.to_play)
        estimates = NeuralBot(1).estimates(view)
        assert sorted(e.move for e in estimates) == sorted(view.legal_moves)
        values = [e.value for e in estimates]
        assert values == sorted(values, reverse=True)
        match.play(view.legal_moves[0])


def test_the_shipped_weights_play_without_jax_or_optax() -> None:
    script = textwrap.dedent("""
        import sys
        sys.modules["jax"] = None
        sys.modules["optax"] = None
        from basra.bots import make_bot
        from basra.match import Match
        from basra.observe import observe
        from basra.rules import make_rules
        for variant in ("egyptian", "pasur", "pisti", "xeri"):
            match = Match(make_rules(variant, 2), seed=1, variant=variant)
            bot = make_bot("neural", 1)
            while match.deal_in_progress:
                view = observe(match, match.state.to_play)
                match.play(bot.choose(view))
        assert "jax" not in [m for m in sys.modules if sys.modules[m] is not None]
        print("played")
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "played"


# -- analysis by the network ----------------------------------------------------------------


def neural_record(variant: str = "egyptian", seed: int = 2) -> dict[str, Any]:
    match = neural_match(variant, 2, seed, deals=1)
    return match_record(match, [Player("Amira", "human"), Player("neural", "bot")])


def test_the_neural_engine_values_moves_by_the_network() -> None:
    match = neural_match("egyptian", 2, seed=3, deals=1)
    sampled = exact = 0
    for _, _, view, _ in decision_points(match):
        evaluation = evaluate(view, engine="neural")
        if evaluation.exact:  # every card known: the solver, whatever the engine
            assert evaluation.samples == 1
            assert evaluation == evaluate(view, samples=2, engine="master")
            exact += 1
            continue
        sampled += 1
        assert evaluation.samples == 0
        network = {e.move: e.value for e in NeuralBot().estimates(view)}
        assert {v.move: v.value for v in evaluation.moves} == network
        assert all(v.loss_error == 0 and v.basra_risk == 0 for v in evaluation.moves)
    assert sampled > 10 and exact > 0


def test_an_unknown_engine_is_refused_by_name() -> None:
    assert ENGINES == ("master", "neural")
    with pytest.raises(ValueError, match="unknown analysis engine 'oracle'"):
        check_engine("oracle")
    match = neural_match("egyptian", 2, seed=3, deals=1)
    with pytest.raises(ValueError, match="'oracle'"):
        analyze_match(match, engine="oracle")


def test_the_analysis_document_names_its_engine() -> None:
    record = neural_record("pisti")
    from basra.record import replay

    decisions = analyze_match(replay(record), engine="neural", jobs=2)
    document = analysis_document(record, decisions, engine="neural")
    assert document["settings"]["engine"] == "neural"
    assert document["decisions"] and all(
        d["samples"] == 0 or d["exact"] for d in document["decisions"])
    assert analysis_document(record, decisions)["settings"]["engine"] == "master"


def basra(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "basra", *args], capture_output=True,
                          text=True, timeout=300)


def test_analyze_command_with_the_neural_engine(tmp_path: Path) -> None:
    path = tmp_path / "match.json"
    path.write_text(json.dumps(neural_record()), encoding="utf-8")
    result = basra("analyze", str(path), "--engine", "neural", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["settings"]["engine"] == "neural"
    assert {p["seat"] for p in document["players"]} == {0, 1}
    table = basra("analyze", str(path), "--engine", "NEURAL", "--all")
    assert table.returncode == 0, table.stderr
    assert "accuracy" in table.stdout and "by the neural network" in table.stdout
    bad = basra("analyze", str(path), "--engine", "oracle")
    assert bad.returncode == 2
    assert "'oracle'" in bad.stderr and "--engine" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_simulate_and_arena_seat_the_neural_level() -> None:
    simulated = basra("simulate", "--variant", "xeri", "--players", "2", "--matches", "2",
                      "--seed", "1", "--bots", "neural,greedy", "--json")
    assert simulated.returncode == 0, simulated.stderr
    summary = json.loads(simulated.stdout)
    assert summary["bots"] == ["neural", "greedy"] and summary["unfinished"] == 0
    arena = basra("arena", "--variant", "egyptian", "--bots", "neural,expert", "--matches",
                  "2", "--json")
    assert arena.returncode == 0, arena.stderr
    assert "neural" in arena.stdout
    help_text = " ".join(basra("play", "--help").stdout.split())
    assert "greedy, neural, expert, master" in help_text
