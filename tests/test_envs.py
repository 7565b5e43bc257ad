"""The environments (basra.envs): the action scheme and observation tensor, and each
library's own checks: PettingZoo's api_test and seed_test, Gymnasium's check_env,
OpenSpiel's random_sim_test, and a match played by OpenSpiel's ISMCTS bot."""

from __future__ import annotations

import random
import warnings

import pytest

np = pytest.importorskip("numpy", reason="the envs extra is not installed")

from basra.bots import make_bot  # noqa: E402
from basra.envs.game import (  # noqa: E402
    LAY_DOWN,
    NUM_ACTIONS,
    OBSERVATION_HIGH,
    OBSERVATION_SIZE,
    TAKE,
    ActionError,
    Table,
    action_count,
    move_actions,
)
from basra.rules import make_rules  # noqa: E402
from basra.state import make_move  # noqa: E402

# Each preset at its smallest player count, a partnership game and three-player ones; the
# pile games (tests/test_pile_envs.py has more) at every player count they allow.
PRESETS = [
    ("jawaker", 2), ("egyptian", 2), ("lebanese", 2), ("iraqi", 2), ("six-card", 2),
    ("three-player", 3), ("classic", 2), ("pasur", 2), ("egyptian", 4), ("pasur", 3),
    ("pisti", 2), ("pisti", 3), ("pisti", 4), ("xeri", 2), ("xeri", 4),
]
IDS = [f"{variant}-{players}" for variant, players in PRESETS]


# The action scheme


def test_every_legal_move_is_reached_by_its_actions_and_nothing_else() -> None:
    """Over random matches of every preset: each legal move's actions make exactly that
    move, every legal action leads to a legal move, and the mask matches."""
    for variant, players in PRESETS:
        table = Table(make_rules(variant, players), variant, seed=11)
        rng = random.Random(3)
        while not table.match.is_over and len(table.match.deals) < 2:
            moves = table.legal_moves()
            if table.card < 0:
                for move in moves:
                    copy = table.copy()
                    made = None
                    for action in move_actions(move, moves):
                        assert copy.match.state.to_play == table.to_play
                        made = copy.apply_action(action)
                    assert made is not None
                    assert make_move(made.card, made.captured) == move
            mask = table.action_mask()
            assert mask.shape == (action_count(table.rules),)
            assert mask.sum() == len(table.legal_actions())
            table.apply_action(rng.choice(table.legal_actions()))


def test_a_capture_choice_asks_for_the_floor_card_that_tells_the_choices_apart() -> None:
    # 7H on 5S 2H 2D with optional capture: take 5S+2H, take 5S+2D, or lay 7H down.
    rules = make_rules("egyptian", overrides={"optional_capture": "true"})
    from basra.cards import ALL_CARDS, CardSet, cards_text
    from basra.position import parse_position, rules_text

    shown = CardSet.parse("5S 2H 2D 7H 9C 3D KS 5C 5D 6C 6D").mask
    state = parse_position(
        f"{rules_text(rules)} | dealer 1 | turn 0 | floor 5S 2H 2D | hands 7H 9C 3D KS / "
        f"5C 5D 6C 6D | stock - | piles {cards_text(ALL_CARDS & ~shown)} / - | basras 0 0 "
        "| last 0")
    table = Table(rules, "egyptian", seed=1)
    table.match._state = state
    assert 25 in table.legal_actions()
    assert table.apply_action(25) is None  # several choices: decide again
    # 2H, 2D, 5S (in both captures, not in the lay-down) or lay down.
    assert table.legal_actions() == [TAKE + 5, TAKE + 6, TAKE + 16, LAY_DOWN]
    copy = table.copy()
    both = table.copy()
    assert both.apply_action(TAKE + 16) is None
    assert both.legal_actions() == [TAKE + 5, TAKE + 6]  # then only the 2s tell them apart
    played = table.apply_action(TAKE + 6)
    assert played is not None and played.captured == 1 << 16 | 1 << 6
    laid = copy.apply_action(LAY_DOWN)
    assert laid is not None and laid.card == 25 and laid.captured == 0


def test_an_illegal_action_is_refused_with_the_legal_ones() -> None:
    table = Table(make_rules("egyptian"), "egyptian", seed=2)
    bad = next(a for a in range(NUM_ACTIONS) if a not in table.legal_actions())
    with pytest.raises(ActionError, match=f"illegal action {bad}"):
        table.apply_action(bad)


def test_the_observation_shows_only_what_the_seat_may_see() -> None:
    """Two matches that differ only in the other hands give the same observation."""
    table = Table(make_rules("egyptian"), "egyptian", seed=5)
    seat = table.to_play
    first = table.observation(seat)
    assert first.shape == (OBSERVATION_SIZE,) and first.dtype == np.float32
    assert (first >= 0).all() and (first <= OBSERVATION_HIGH).all()
    assert first[:52].sum() == 4 and first[52:104].sum() == 4  # hand, floor
    other = 1 - seat
    state = table.match.state
    from basra.bots.search import sample_state

    swapped = table.copy()
    swapped.match._state = sample_state(table.observe(seat), random.Random(9))
    assert swapped.match.state.hands[other] != state.hands[other]
    assert (swapped.observation(seat) == first).all()
    assert not (table.observation(other) == first).all()


# PettingZoo


@pytest.mark.parametrize(("variant", "players"), PRESETS, ids=IDS)
def test_pettingzoo_api_and_seed_tests(variant: str, players: int) -> None:
    pytest.importorskip("pettingzoo", reason="the envs extra is not installed")
    from pettingzoo.test import api_test, seed_test

    from basra.envs import pettingzoo_env

    with warnings.catch_warnings():
        # A dict observation with an action mask, as PettingZoo's classic games have.
        warnings.filterwarnings("ignore", message="Observation")
        api_test(pettingzoo_env(variant=variant, players=players), num_cycles=300)
        seed_test(lambda: pettingzoo_env(variant=variant, players=players), num_cycles=300)


@pytest.mark.parametrize("reward", ["match", "deal", "win"])
def test_pettingzoo_rewards_are_the_side_margins_or_the_result(reward: str) -> None:
    pytest.importorskip("pettingzoo", reason="the envs extra is not installed")
    from basra.envs import pettingzoo_env

    env = pettingzoo_env(variant="egyptian", players=4, reward=reward)
    env.reset(seed=4)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    rng = random.Random(0)
    for agent in env.agent_iter():
        observation, rewarded, done, cut, _ = env.last()
        returns[agent] += rewarded
        action = None
        if not (done or cut):
            action = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
        env.step(action)
    match = env.table.match
    # Partners share their side's reward; the sides' rewards add up to 0.
    assert returns["player_0"] == returns["player_2"]
    assert returns["player_1"] == returns["player_3"]
    assert returns["player_0"] == -returns["player_1"]
    if reward == "match":
        assert returns["player_0"] == match.totals[0] - match.totals[1]
    elif reward == "deal":
        assert len(match.deals) == 1
        score = match.deals[0].score
        assert score is not None and returns["player_0"] == score.total[0] - score.total[1]
    else:
        assert returns["player_0"] == (1.0 if match.winner == 0 else -1.0)


# Gymnasium


@pytest.mark.parametrize(("variant", "players"), PRESETS, ids=IDS)
def test_gymnasium_check_env(variant: str, players: int) -> None:
    gymnasium = pytest.importorskip("gymnasium", reason="the envs extra is not installed")
    from gymnasium.utils.env_checker import check_env

    import basra.envs  # noqa: F401  registers basra/Basra-v0

    env = gymnasium.make("basra/Basra-v0", variant=variant, players=players,
                         opponent="greedy")
    check_env(env.unwrapped, skip_render_check=True)


def test_gymnasium_plays_a_match_against_the_chosen_bot() -> None:
    gymnasium = pytest.importorskip("gymnasium", reason="the envs extra is not installed")
    import basra.envs  # noqa: F401

    env = gymnasium.make("basra/Basra-v0", variant="egyptian", opponent="expert")
    bot = make_bot("greedy", 1)
    _, info = env.reset(seed=8)
    total = 0.0
    done = False
    while not done:
        table = env.unwrapped.table
        move = bot.choose(table.observe(0))
        for action in move_actions(move, table.legal_moves()):
            assert info["action_mask"][action] == 1
            _, reward, done, truncated, info = env.step(action)
            total += float(reward)
        assert not truncated
    totals = env.unwrapped.table.match.totals
    assert total == totals[0] - totals[1]
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        gymnasium.make("basra/Basra-v0", opponent="nobody")


# OpenSpiel

OPENSPIEL_PRESETS = PRESETS


@pytest.mark.parametrize(("variant", "players"), OPENSPIEL_PRESETS, ids=IDS)
def test_openspiel_random_sim_test(variant: str, players: int) -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    import basra.envs.openspiel  # noqa: F401  registers basra

    # Short matches (one or two deals) keep the test quick; the game is the same.
    game = pyspiel.load_game("basra", {"variant": variant, "players": players,
                                       "rules": "target:30"})
    assert game.num_players() == players
    assert game.num_distinct_actions() == (52 if variant in ("pisti", "xeri") else NUM_ACTIONS)
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_openspiel_game_string_and_tensors() -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    import basra.envs.openspiel  # noqa: F401

    game = pyspiel.load_game("basra(variant=pasur,players=3,rules=target:40;basra_points:6)")
    assert game.num_players() == 3
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    player = state.current_player()
    assert len(state.observation_tensor(player)) == OBSERVATION_SIZE
    assert len(state.information_state_tensor(player)) == game.information_state_tensor_size()
    assert state.information_state_string(player) != state.information_state_string(
        (player + 1) % 3)
    with pytest.raises(ValueError, match="unknown variant 'poker'"):
        pyspiel.load_game("basra(variant=poker)")


@pytest.mark.parametrize(("params", "seed", "least"), [
    ({"rules": "target:40"}, 7, 11),
    ({"variant": "pisti", "rules": "target:30"}, 3, 24),
])
def test_openspiel_ismcts_plays_a_full_match(params: dict[str, str], seed: int,
                                             least: int) -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    from open_spiel.python.algorithms import ismcts, mcts

    import basra.envs.openspiel  # noqa: F401

    game = pyspiel.load_game("basra", params)
    rng = np.random.RandomState(seed)
    bot = ismcts.ISMCTSBot(game=game, evaluator=mcts.RandomRolloutEvaluator(1, rng),
                           uct_c=2.0, max_simulations=8, random_state=rng)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probabilities = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probabilities)))
        elif state.current_player() == 0:
            action = int(bot.step(state))
            assert action in state.legal_actions()
            state.apply_action(action)
            decisions += 1
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    assert decisions >= least
    assert sorted(state.returns()) == [-1.0, 1.0]
    assert state.table.match.is_over


def test_a_protocol_observation_encodes_like_the_observation_itself() -> None:
    """What a bot program reads (docs/protocol.md) gives the same tensor, and
    choose_move turns a policy's actions into one of its legal moves."""
    import json

    from basra.envs.game import choose_move, encode_observation, observation_from_json

    for variant, players in PRESETS:
        rules = make_rules(variant, players, {"leftover": "split"} if variant == "iraqi"
                           else None)
        table = Table(rules, variant, seed=21)
        rng = random.Random(5)
        while not table.match.is_over and len(table.match.deals) < 2:
            seat = table.to_play
            view = table.observe(seat)
            read = observation_from_json(json.loads(json.dumps(view.to_dict())))
            assert (encode_observation(read) == encode_observation(view)).all()
            assert read.legal_moves == view.legal_moves

            move = choose_move(read, lambda _, mask, rng=rng: int(
                rng.choice(np.flatnonzero(mask).tolist())))
            assert move in view.legal_moves
            table.play_move(move)
