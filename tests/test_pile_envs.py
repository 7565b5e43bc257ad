"""The environments (basra.envs) on the pile games, Pişti and Xeri: the observation tensor
of a pile game, hidden information over whole random deals (no seat's tensor, OpenSpiel
string or information state depends on a card it may not see), the OpenSpiel deal against
the engine's, resampling for ISMCTS, and rewards with the pişti bonuses. The libraries'
own checks run on the pile games in tests/test_envs.py."""

from __future__ import annotations

import random
from typing import Any

import pytest

np = pytest.importorskip("numpy", reason="the envs extra is not installed")

from basra.cards import JACK, CardSet, parse_card, parse_cards  # noqa: E402
from basra.envs.game import (  # noqa: E402
    PILE_NUM_ACTIONS,
    PILE_OBSERVATION_HIGH,
    PILE_OBSERVATION_SIZE,
    ActionError,
    Table,
    choose_move,
    encode_observation,
    observation_from_json,
)
from basra.match import Match  # noqa: E402
from basra.rules import Rules, make_rules  # noqa: E402
from basra.state import Layout, _shuffled, hidden_down, pile_layout  # noqa: E402

# The presets at every player count they allow, and the house rules that change what a
# seat sees: who is shown the face-down cards, Jacks sent under the stock, no bottom card.
GAMES: list[tuple[str, int, dict[str, str]]] = [
    ("pisti", 2, {}),
    ("pisti", 3, {}),
    ("pisti", 4, {}),
    ("pisti", 4, {"kitty_view": "capturer"}),
    ("pisti", 2, {"kitty_view": "first_player"}),
    ("pisti", 4, {"partnership": "false", "kitty_view": "first_player",
                  "centre_jack": "to_stock"}),
    ("pisti", 2, {"bottom_card": "hidden", "target": "101"}),
    ("xeri", 2, {}),
    ("xeri", 4, {}),
]
GAME_IDS = [f"{v}-{p}" + "".join(f"-{k}={x}" for k, x in r.items()) for v, p, r in GAMES]


def cards(text: str) -> tuple[int, ...]:
    return tuple(parse_cards(text))


def bits(text: str) -> Any:
    out = np.zeros(52, dtype=np.float32)
    out[list(cards(text))] = 1.0
    return out


# Twins: the same match with cards the seat may not see changed around


def unseen_by(match: Match, seat: int) -> list[int]:
    """The cards whose place ``seat`` may not know (spec 9.9.4): the other hands, the stock
    less its shown cards, and the face-down pile cards it was not shown, wherever they
    lie (a side's captured cards included)."""
    state = match.state
    hidden = hidden_down(state, seat) | state.stock_mask() & ~state.exposed
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden |= hand
    return [card for card in range(52) if hidden >> card & 1]


def swapped(mask: int, a: int, b: int) -> int:
    has_a, has_b = mask >> a & 1, mask >> b & 1
    mask &= ~(1 << a | 1 << b)
    return mask | has_a << b | has_b << a


def swap_cards(match: Match, a: int, b: int) -> None:
    """Exchange cards ``a`` and ``b`` everywhere in the match's deal in progress: the
    state, the deal's layout and its plays, as if they had been dealt the other way."""

    def each(items: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(b if c == a else a if c == b else c for c in items)

    state = match.state
    match._state = state._replace(
        floor=swapped(state.floor, a, b),
        hands=tuple(swapped(h, a, b) for h in state.hands),
        piles=tuple(swapped(p, a, b) for p in state.piles),
        batches=tuple(tuple(swapped(h, a, b) for h in batch) for batch in state.batches),
        laid=each(state.laid), down=swapped(state.down, a, b))
    history = match.deals[-1]
    old = history.layout
    history.layout = old._replace(
        floor=each(old.floor), hands=tuple(each(h) for h in old.hands),
        stock=each(old.stock), floor_down=each(old.floor_down))
    history.plays = [p._replace(captured=swapped(p.captured, a, b)) for p in history.plays]


def twin(table: Table, seat: int, rng: random.Random, swaps: int = 3) -> Table | None:
    """A copy of the table whose deal differs from it only in cards hidden from ``seat``
    (None when no exchange of them changes the deal: all in one other hand, say)."""
    hidden = unseen_by(table.match, seat)
    if len(hidden) < 2:
        return None
    other = table.copy()
    for _ in range(swaps):
        a, b = rng.sample(hidden, 2)
        swap_cards(other.match, a, b)
    return None if other.match.state == table.match.state else other


@pytest.mark.parametrize(("variant", "players", "rules"), GAMES, ids=GAME_IDS)
def test_no_observation_depends_on_a_card_the_seat_may_not_see(
        variant: str, players: int, rules: dict[str, str]) -> None:
    """Over two whole random deals, at every turn, each seat's tensor is the same in a twin
    deal where cards hidden from it lie elsewhere (other hands, the stock, face-down pile
    cards, another side's captured kitty); and it does change when one of its own cards,
    or a face-down card it was shown, is exchanged with a hidden one."""
    table = Table(make_rules(variant, players, rules), variant, seed=len(rules) * 10 + players)
    rng = random.Random(players)
    twins = changed = shown_down = 0
    while not table.match.is_over and len(table.match.deals) <= 2:
        state = table.match.state
        for seat in range(players):
            mine = table.observation(seat)
            assert mine.shape == (PILE_OBSERVATION_SIZE,) and mine.dtype == np.float32
            assert (mine >= 0).all() and (mine <= PILE_OBSERVATION_HIGH).all()
            other = twin(table, seat, rng)
            if other is None:
                continue
            assert (other.observation(seat) == mine).all()
            twins += 1
            # What the seat sees does count: its own card, a face-down card it was shown.
            hidden = unseen_by(table.match, seat)
            for known in (state.hands[seat], state.down & state.floor
                          & ~hidden_down(state, seat)):
                if not known:
                    continue
                card = (known & -known).bit_length() - 1
                moved = table.copy()
                swap_cards(moved.match, card, hidden[0])
                assert not (moved.observation(seat) == mine).all()
                changed += 1
                shown_down += known is not state.hands[seat]
        table.apply_action(rng.choice(table.legal_actions()))
    assert twins > 100 and changed > 50
    if rules.get("kitty_view") == "first_player":
        assert shown_down > 0  # the first player was shown the face-down cards


def test_the_pile_tensor_on_a_hand_made_deal() -> None:
    """Pişti, seat 1 deals: the pile 2H 6D 2S (face down) under 4C. Seat 0 takes it with
    4D (its side is shown the face-down cards), seat 1 lays QS, seat 0 makes a pişti with
    QH."""
    rules = make_rules("pisti")
    hands = (cards("4D QH JC KS"), cards("3D 10D JD QS"))
    pile = cards("2H 6D 2S 4C")
    named = set(pile) | set(hands[0]) | set(hands[1])
    stock = tuple(c for c in range(52) if c not in named)
    bottom = stock[-1]  # K♣, not a Jack
    match = Match(rules, auto_deal=False, first_dealer=1)
    match.deal(Layout(1, pile, hands, stock, (), pile[:3], bottom))
    table = Table(rules, "pisti", auto_deal=False)
    table.match = match

    before = table.observation(0)
    assert (before[0:52] == bits("4D QH JC KS")).all()
    assert (before[52:104] == bits("4C")).all()  # the top card
    assert (before[104:156] == bits("4C")).all()  # the face-down cards are not named
    assert not before[156:208].any()
    assert (before[208:260] == bits("KC")).all()  # the stock's bottom card
    assert before[681] == pytest.approx(4 / 52) and before[682] == pytest.approx(3 / 52)
    assert before[680] == pytest.approx(len(stock) / 52)
    assert list(before[676:680]) == [1.0, 1.0, 0.0, 0.0]
    assert list(before[709:713]) == [0.0, 1.0, 0.0, 0.0]  # seat +1 deals
    assert not before[705:709].any()

    table.apply_action(parse_card("4D"))  # takes the pile, face-down cards and all
    mine, theirs = table.observation(0), table.observation(1)
    assert (mine[260:312] == bits("2H 6D 2S 4C 4D")).all()  # side +0 sees its kitty
    assert (theirs[312:364] == bits("4C 4D")).all()  # side +1's, seen from seat 1
    assert mine[683] == theirs[684] == pytest.approx(5 / 52)  # counts hide nothing
    assert mine[681] == mine[682] == 0.0 and not mine[52:104].any()
    assert mine[705] == 1.0 and theirs[706] == 1.0  # the last capturer

    table.apply_action(parse_card("QS"))
    assert (table.observation(0)[52:104] == bits("QS")).all()
    table.apply_action(parse_card("QH"))  # a pişti: a lone card of the same rank
    mine, theirs = table.observation(0), table.observation(1)
    assert mine[687] == pytest.approx(0.1) and mine[695] == pytest.approx(0.1)  # 10 points
    assert theirs[688] == pytest.approx(0.1) and theirs[696] == pytest.approx(0.1)
    assert not mine[691:695].any()  # no double pişti
    assert (mine[468:520] == bits("4D QH")).all() and (mine[520:572] == bits("QS")).all()


def test_the_first_player_sees_the_face_down_cards_under_kitty_view_first_player() -> None:
    rules = make_rules("pisti", 2, {"kitty_view": "first_player"})
    table = Table(rules, "pisti", seed=4)
    state = table.match.state
    first, dealer = state.to_play, state.dealer
    down = [c for c in range(52) if state.down >> c & 1]
    assert len(down) == 3
    shown = table.observation(first)
    assert all(shown[104 + c] == 1.0 and shown[156 + c] == 1.0 for c in down)
    assert shown[682] == 0.0
    hidden = table.observation(dealer)
    assert not any(hidden[104 + c] or hidden[156 + c] for c in down)
    assert hidden[682] == pytest.approx(3 / 52)


def test_a_pile_game_is_played_one_card_per_action_through_observations() -> None:
    """52 actions, one per card in hand; a policy's card through choose_move is the move
    that card makes (a capture named by the cards the seat sees), read from the protocol's
    JSON as from the view itself."""
    import json

    for variant, players, house in GAMES:
        table = Table(make_rules(variant, players, house), variant, seed=7)
        rng = random.Random(2)
        assert table.num_actions == PILE_NUM_ACTIONS
        while not table.match.is_over and len(table.match.deals) < 2:
            seat = table.to_play
            hand = table.match.state.hands[seat]
            assert table.legal_actions() == [c for c in range(52) if hand >> c & 1]
            view = table.observe(seat)
            read = observation_from_json(json.loads(json.dumps(view.to_dict())))
            assert read == view
            assert (encode_observation(read) == table.observation(seat)).all()
            move = choose_move(read, lambda _, mask, rng=rng: int(
                rng.choice(np.flatnonzero(mask).tolist())))
            assert move in view.legal_moves
            table.play_move(move)


def test_a_pile_game_refuses_a_card_not_in_hand_naming_the_legal_ones() -> None:
    table = Table(make_rules("xeri"), "xeri", seed=1)
    hand = table.match.state.hands[table.to_play]
    other = next(c for c in range(52) if not hand >> c & 1)
    with pytest.raises(ActionError, match=rf"illegal action {other} \(play .*; the legal "
                       r"actions are \["):
        table.apply_action(other)
    with pytest.raises(ActionError, match=r"illegal action 60; the legal actions"):
        table.apply_action(60)  # a capture choice of Basra: no action of a pile game


# OpenSpiel


def _random_chance(state: Any, rng: random.Random) -> None:
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(rng.choice(outcomes)[0])


OPENSPIEL_GAMES = [GAMES[0], GAMES[3], GAMES[4], GAMES[5], GAMES[8]]


@pytest.mark.parametrize(("variant", "players", "rules"), OPENSPIEL_GAMES,
                         ids=[GAME_IDS[GAMES.index(g)] for g in OPENSPIEL_GAMES])
def test_openspiel_information_states_hide_what_the_seat_may_not_see(
        variant: str, players: int, rules: dict[str, str]) -> None:
    """A whole random deal: at every turn each player's information state and observation
    (strings and tensors) are the same in a twin deal with its hidden cards moved, and
    resample_from_infostate gives a state it cannot tell from this one."""
    pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    import basra.envs.openspiel  # noqa: F401

    text = ";".join(f"{k}:{v}" for k, v in rules.items())
    game = pyspiel.load_game("basra", {"variant": variant, "players": players,
                                       "rules": text, "max_deals": 1})
    assert game.num_distinct_actions() == PILE_NUM_ACTIONS
    rng = random.Random(5)
    state = game.new_initial_state()
    _random_chance(state, rng)
    turns = resampled = 0
    while not state.is_terminal():
        for player in range(players):
            views = (state.information_state_string(player),
                     state.information_state_tensor(player),
                     state.observation_string(player), state.observation_tensor(player))
            other = state.clone()
            moved = twin(state.table, player, rng)
            if moved is not None:
                other.table = moved
                assert (other.information_state_string(player),
                        other.information_state_tensor(player),
                        other.observation_string(player),
                        other.observation_tensor(player)) == views
                turns += 1
            sample = state.resample_from_infostate(player, rng.random)
            assert sample.information_state_string(player) == views[0]
            assert sample.information_state_tensor(player) == views[1]
            assert sample.legal_actions(player) == state.legal_actions(player)
            resampled += sample.table.match.state != state.table.match.state
        state.apply_action(rng.choice(state.legal_actions()))
        _random_chance(state, rng)
    assert turns > 40 and resampled > 40
    # The other seats' views do depend on what they see: the players' strings differ.
    assert len({state.information_state_string(p) for p in range(players)}) == players


def test_openspiel_tells_the_face_down_cards_to_the_first_player_alone() -> None:
    """Under kitty_view=first_player the first player's information state names the
    three face-down cards (in brackets, and in their own plane); the dealer's counts
    them."""
    pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    from basra.envs.openspiel import PILE_INFOSTATE_SIZE

    game = pyspiel.load_game("basra", {"variant": "pisti",
                                       "rules": "kitty_view:first_player"})
    assert game.information_state_tensor_size() == PILE_INFOSTATE_SIZE == 6281
    assert game.observation_tensor_size() == PILE_OBSERVATION_SIZE
    state = game.new_initial_state()
    _random_chance(state, random.Random(8))
    first = state.current_player()
    dealer = state.table.match.state.dealer
    down = state.table.match.state.down
    planes = PILE_OBSERVATION_SIZE + 104
    for player, shown in ((first, True), (dealer, False)):
        text = state.information_state_string(player)
        initial = text.split("; initial ")[1].split(";")[0].split()
        assert len(initial) == 4 and initial[-1][0] != "["  # the top card is face up
        bracketed = [parse_card(c.strip("[]")) for c in initial if c.startswith("[")]
        if shown:
            assert "??" not in initial and bracketed == [
                c for c in state.table.match.deals[0].layout.floor if down >> c & 1]
        else:
            assert initial.count("??") == down.bit_count() == 3 and not bracketed
        tensor = np.array(state.information_state_tensor(player))
        assert tensor[planes:planes + 52].sum() == (3 if shown else 0)


@pytest.mark.parametrize(("variant", "house"), [
    ("pisti", {}), ("pisti", {"centre_jack": "to_stock"}), ("xeri", {}),
    ("xeri", {"pile_redeal": "top_pair_or_jack"}), ("pisti", {"bottom_card": "hidden"}),
])
def test_openspiel_deals_as_the_engine_deals(variant: str, house: dict[str, str]) -> None:
    """Given the same shuffles (the deck, then each time the pile is dealt again the cards
    gathered for it), the chance nodes deal exactly what pile_layout deals: the bottom
    card moved past Jacks, the pile dealt again, Jacks on top turned away, a pile of Jacks
    shuffled again."""
    pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
    import basra.envs.openspiel  # noqa: F401

    game = pyspiel.load_game("basra", {"variant": variant, "rules": ";".join(
        f"{k}:{v}" for k, v in house.items())})
    rules: Rules = game.rules
    redealt = turned = moved = 0
    shown = rules.bottom_card == "shown"
    for seed in range(150):
        rng = random.Random(seed)
        state = game.new_initial_state()
        state.apply_action(seed % 2)  # the first dealer
        while state.is_chance_node():
            if state.loose:
                redealt += 1
                order = _shuffled(rng, state.loose)
            else:
                order = _shuffled(rng, tuple(range(52)))
                moved += shown and order[-1] >> 2 == JACK  # the bottom card changes places
            for card in order:
                assert card in dict(state.chance_outcomes())
                state.apply_action(card)
        dealt = state.table.match.deals[0].layout
        assert dealt == pile_layout(rules, seed % 2, random.Random(seed))
        turned += bool(dealt.turned)
        if shown:
            assert dealt.bottom_card >= 0 and dealt.bottom_card >> 2 != JACK
    assert redealt > 0 if rules.pile_redeal != "none" else redealt == 0
    assert turned > 0 or rules.pile_redeal != "none"
    assert moved > 0 or not shown


# Rewards


@pytest.mark.parametrize(("variant", "players"), [("pisti", 2), ("pisti", 4), ("xeri", 4),
                                                  ("pisti", 3)])
def test_pettingzoo_pays_each_deal_with_its_pisti_points(variant: str, players: int) -> None:
    """reward="deal": each side's return is its deal margin, piştis (10, 20 for a Jack
    on a lone Jack) included; partners share it."""
    pytest.importorskip("pettingzoo", reason="the envs extra is not installed")
    from basra.envs import pettingzoo_env
    from basra.envs.game import side_margins

    bonus = 0
    for seed in range(6):
        env = pettingzoo_env(variant=variant, players=players, reward="deal")
        env.reset(seed=seed)
        returns = dict.fromkeys(env.possible_agents, 0.0)
        rng = random.Random(seed)
        for agent in env.agent_iter():
            observation, rewarded, done, cut, _ = env.last()
            assert observation["action_mask"].shape == (PILE_NUM_ACTIONS,)
            returns[agent] += rewarded
            action = None
            if not (done or cut):
                action = rng.choice(np.flatnonzero(observation["action_mask"]).tolist())
            env.step(action)
        score = env.table.match.deals[0].score
        assert score is not None and len(env.table.match.deals) == 1
        rules = env.rules
        points = [sum(parts) for parts in zip(score.card_points, score.majority,
                                               score.basra_points, strict=True)]
        assert list(score.total) == points
        assert [plain * rules.pisti_points + jack * rules.jack_pisti_points
                for plain, jack in score.pistis] == list(score.basra_points)
        margins = side_margins(score.total)
        assert [returns[a] for a in env.possible_agents] == pytest.approx(
            [margins[rules.side_of[seat]] for seat in range(players)])
        bonus += sum(score.basra_points)
    assert bonus > 0  # some deal paid piştis


def test_gymnasium_pays_the_match_margin_against_the_greedy_bot() -> None:
    gymnasium = pytest.importorskip("gymnasium", reason="the envs extra is not installed")
    import basra.envs  # noqa: F401

    env = gymnasium.make("basra/Basra-v0", variant="xeri", opponent="greedy",
                         rules={"target": "60"})
    assert env.action_space.n == PILE_NUM_ACTIONS
    assert env.observation_space.shape == (PILE_OBSERVATION_SIZE,)
    _, info = env.reset(seed=3)
    rng = random.Random(1)
    total = 0.0
    done = False
    while not done:
        action = rng.choice(np.flatnonzero(info["action_mask"]).tolist())
        _, reward, done, truncated, info = env.step(action)
        assert "illegal_action" not in info and not truncated
        total += float(reward)
    totals = env.unwrapped.table.match.totals
    assert total == totals[0] - totals[1] and max(totals) >= 60


def test_gymnasium_plays_a_pile_match_against_the_expert() -> None:
    gymnasium = pytest.importorskip("gymnasium", reason="the envs extra is not installed")
    import basra.envs  # noqa: F401

    env = gymnasium.make("basra/Basra-v0", variant="pisti", players=4, opponent="expert",
                         rules={"target": "40"})
    _, info = env.reset(seed=5)
    rng = random.Random(2)
    done = truncated = False
    while not (done or truncated):
        action = rng.choice(np.flatnonzero(info["action_mask"]).tolist())
        _, _, done, truncated, info = env.step(action)
        assert "illegal_action" not in info
    match = env.unwrapped.table.match
    assert done and match.is_over and max(match.totals) >= 40
    assert [bot.name for bot in env.unwrapped.bots.values()] == ["expert"] * 3


def test_a_pile_game_renders_its_pile_with_face_down_cards() -> None:
    pytest.importorskip("pettingzoo", reason="the envs extra is not installed")
    from basra.envs import pettingzoo_env

    env = pettingzoo_env(variant="pisti", render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    assert text is not None
    pile = text.splitlines()[1]
    assert pile.startswith("pile: ") and pile.count("[") == 3  # three face-down cards
    assert CardSet.parse(pile[6:].replace("[", "").replace("]", "")).mask == (
        env.table.match.state.floor)
