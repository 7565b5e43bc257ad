"""Basra, Pasur and the pile games (Pişti, Xeri) as an OpenSpiel game:
``import basra.envs.openspiel``, then ``pyspiel.load_game("basra", {"variant": "pasur",
"players": 3})``.

A game is a whole match. Dealing is explicit chance: the first dealer (one of the seats),
then every deal the 52 cards one at a time in dealing order (each remaining card equally
likely; the hands in turn from the player after the dealer, the floor, then the stock),
then for each bury card on the initial floor the place in the stock it goes back to (each
place equally likely), exactly as :func:`basra.state.deal_layout` deals; a floor that the
rules shuffle again (Pasur's ``floor_redeal``) is dealt again from the first card.

A pile game deals as :func:`basra.state.pile_layout`: the 52 cards one at a time, the
last one the stock's bottom card (a Jack there changes places as the rules say); a first
pile that ``pile_redeal`` deals again (Xeri) is gathered with the stock (less its bottom
card) and those cards are drawn again one at a time, the first of them the new pile; a
pile of Jacks alone is dealt again from the first card. The rest (face-down cards, a
Jack on top turned away) follows from the cards.

Player actions are the 105 actions of :mod:`basra.envs.game` (52 in a pile game: a
card). The returns are the match result: +1 to each seat of the winning side,
-1/(sides - 1) to each other seat (0 to all for a match still undecided after
``max_deals`` deals).

Parameters: ``variant`` (a preset, default ``egyptian``), ``players`` (default 2),
``rules`` (house rules, ``"name:value;name:value"``), ``max_deals`` (default 20).

The observation tensor is the seat's float32[703] of :mod:`basra.envs.game`; the
information-state tensor adds the initial floor and every play of the deal in order
(float32[6163]), so within a deal it has perfect recall; earlier deals enter through the
scores. In a pile game the observation is float32[717] and the information state adds
the first pile's cards that the seat sees, its top card, its face-down cards that the seat
was shown, and the plays with the captured cards the seat sees (float32[6281]).
:meth:`BasraState.resample_from_infostate` deals the cards a seat has not seen at random,
consistently with what it has seen, for OpenSpiel's ISMCTS.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]

from basra.bots.search import sample_state
from basra.cards import CARD_NAMES, JACK, cards_text
from basra.match import Match
from basra.observe import Observation
from basra.rules import PILE_FAMILIES, Rules, make_rules
from basra.state import (
    DealState,
    Layout,
    hidden_down,
    move_text,
    needs_pile_redeal,
    needs_redeal,
    playing_order,
    seat_turns,
    settle_pile,
)

from .game import (
    OBSERVATION_SIZE,
    PILE_OBSERVATION_SIZE,
    Table,
    action_count,
    action_text,
    encode_observation,
    observation_size,
)

__all__ = ["BasraGame", "BasraObserver", "BasraState", "hidden_places", "infostate_size",
           "parse_rules_param", "resample_pile"]

_MAX_REDEALS = 20
"""Dealings per deal counted into the game's length bound (a Pasur floor is dealt again
with a probability of a few percent)."""

_HISTORY = 52 * 104
INFOSTATE_SIZE = OBSERVATION_SIZE + 52 + _HISTORY
PILE_INFOSTATE_SIZE = PILE_OBSERVATION_SIZE + 3 * 52 + _HISTORY

_DEFAULTS = {"variant": "egyptian", "players": 2, "rules": "", "max_deals": 20}

GAME_TYPE = pyspiel.GameType(
    short_name="basra",
    long_name="Basra",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


def parse_rules_param(text: str) -> dict[str, str]:
    """House rules from the ``rules`` parameter: ``"basra_points:5;target:51"`` (a ``=``
    may stand for the ``:``, except in a game string, where ``=`` is OpenSpiel's).

    >>> parse_rules_param("basra_points:5; target=51")
    {'basra_points': '5', 'target': '51'}
    """
    rules: dict[str, str] = {}
    for item in text.split(";"):
        if not item.strip():
            continue
        name, sep, value = item.replace("=", ":").partition(":")
        if not sep:
            raise ValueError(f"rules parameter: expected name:value, not {item.strip()!r}")
        rules[name.strip()] = value.strip()
    return rules


def infostate_size(rules: Rules) -> int:
    """The size of the information-state tensor: 6281 in a pile game, else 6163."""
    return PILE_INFOSTATE_SIZE if rules.family in PILE_FAMILIES else INFOSTATE_SIZE


class BasraGame(pyspiel.Game):  # type: ignore[misc]
    """The game ``basra`` (a whole match)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        values = {**_DEFAULTS, **(params or {})}
        self.variant = str(values["variant"])
        self.rules = make_rules(self.variant, int(values["players"]),
                                parse_rules_param(str(values["rules"])))
        self.max_deals = int(values["max_deals"])
        players = self.rules.players
        plays = 52 - self.rules.floor_size
        chance_per_deal = (52 + 52) * _MAX_REDEALS
        pile = self.rules.family in PILE_FAMILIES
        info = pyspiel.GameInfo(
            num_distinct_actions=action_count(self.rules),
            max_chance_outcomes=52,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            # A play takes at most 1 + 52 actions (a card, then floor cards); in a pile
            # game one.
            max_game_length=1 + self.max_deals * (chance_per_deal
                                                  + plays * (1 if pile else 53)),
        )
        super().__init__(GAME_TYPE, info, {"variant": self.variant, "players": players,
                                           "rules": str(values["rules"]),
                                           "max_deals": self.max_deals})

    def new_initial_state(self) -> BasraState:
        return BasraState(self)

    def make_py_observer(self, iig_obs_type: Any = None,
                         params: dict[str, Any] | None = None) -> BasraObserver:
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return BasraObserver(self, perfect_recall)


class _Settings:
    """What every state of a game shares; copies of a state share it too."""

    def __init__(self, rules: Rules, variant: str, max_deals: int) -> None:
        self.rules = rules
        self.variant = variant
        self.max_deals = max_deals

    def __deepcopy__(self, memo: dict[int, Any]) -> _Settings:
        return self


class BasraState(pyspiel.State):  # type: ignore[misc]
    """A match in progress, or being dealt."""

    def __init__(self, game: BasraGame) -> None:
        super().__init__(game)
        self.settings = _Settings(game.rules, game.variant, game.max_deals)
        self.table: Table | None = None
        self.deck: list[int] = []
        """The cards drawn so far for the deal being dealt."""
        self.hands: list[tuple[int, ...]] = []
        self.floor: list[int] = []
        self.stock: list[int] = []
        self.buried: list[int] = []
        self.bury_at = -1
        """The floor place of the bury card waiting for its place in the stock (-1: none)."""
        self.bottom = -1
        """Pile games: the stock's bottom card of the deal being dealt (-1: none)."""
        self.loose: list[int] = []
        """Pile games: the cards gathered to deal the first pile again (empty: none)."""
        self.redrawn: list[int] = []
        """Pile games: the gathered cards drawn again so far, in order."""
        self.over = False

    @property
    def rules(self) -> Rules:
        return self.settings.rules

    # Turns

    def _dealing(self) -> bool:
        return self.table is None or not self.table.match.deal_in_progress

    def current_player(self) -> int:
        if self.over:
            return int(pyspiel.PlayerId.TERMINAL)
        if self._dealing():
            return int(pyspiel.PlayerId.CHANCE)
        assert self.table is not None
        return self.table.to_play

    def is_terminal(self) -> bool:
        return self.over

    def _legal_actions(self, player: int) -> list[int]:
        assert self.table is not None
        return self.table.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if self.table is None:
            players = self.rules.players
            return [(seat, 1.0 / players) for seat in range(players)]
        if self.bury_at >= 0:
            places = len(self.stock)
            return [(place, 1.0 / places) for place in range(places)]
        if self.loose:
            left = sorted(set(self.loose) - set(self.redrawn))
            return [(card, 1.0 / len(left)) for card in left]
        left = sorted(set(range(52)) - set(self.deck))
        return [(card, 1.0 / len(left)) for card in left]

    # Play

    def _apply_action(self, action: int) -> None:
        if self.table is None:
            self.table = Table(self.rules, self.settings.variant, None, auto_deal=False,
                               first_dealer=int(action))
            return
        if self._dealing():
            if self.bury_at >= 0:
                self._bury(int(action))
            elif self.loose:
                self.redrawn.append(int(action))
                if len(self.redrawn) == len(self.loose):
                    self._pile_dealt_again()
            else:
                self.deck.append(int(action))
                if len(self.deck) == 52:
                    self._lay_out()
            return
        match = self.table.match
        self.table.apply_action(int(action))
        last_deal = len(match.deals) >= self.settings.max_deals
        if not match.deal_in_progress and (match.is_over or last_deal):
            self.over = True

    def _lay_out(self) -> None:
        """The deck is drawn: deal the hands, the floor and the stock, as deal_layout."""
        assert self.table is not None
        match = self.table.match
        rules = self.rules
        pile = rules.family in PILE_FAMILIES
        if pile and rules.bottom_card == "shown" and self.deck[-1] >> 2 == JACK:
            nearest = max(i for i, card in enumerate(self.deck) if card >> 2 != JACK)
            self.deck.append(self.deck.pop(nearest))
        order = playing_order(seat_turns(rules.players, match.playing), match.next_dealer)
        size = rules.hand_size
        hands: list[tuple[int, ...]] = [()] * rules.players
        for i, seat in enumerate(order):
            hands[seat] = tuple(self.deck[i * size:(i + 1) * size])
        start = len(order) * size
        self.hands = hands
        self.floor = self.deck[start:start + rules.floor_size]
        self.stock = self.deck[start + rules.floor_size:]
        self.buried = []
        if pile:
            self.bottom = self.stock[-1] if rules.bottom_card == "shown" else -1
            self._settle_pile()
            return
        if needs_redeal(rules, self.floor):
            self.deck = []
            return
        self._next_burial(0)

    def _next_burial(self, place: int) -> None:
        bury = self.rules.bury_mask
        for i in range(place, len(self.floor)):
            if bury >> self.floor[i] & 1:
                self.bury_at = i
                return
        self.bury_at = -1
        if needs_redeal(self.rules, self.floor):
            self.deck = []
            return
        assert self.table is not None
        self.table.match.deal(Layout(self.table.match.next_dealer, tuple(self.floor),
                                     tuple(self.hands), tuple(self.stock),
                                     tuple(self.buried)))
        self.deck = []

    def _settle_pile(self) -> None:
        """A pile game's first pile is dealt: deal it again (its cards and the stock drawn
        again), or turn it as the rules say and start the deal, as pile_layout does."""
        assert self.table is not None
        rules = self.rules
        if needs_pile_redeal(rules, self.floor):
            shown = rules.bottom_card == "shown"
            self.loose = self.floor + (self.stock[:-1] if shown else self.stock)
            self.redrawn = []
            return
        self.loose = []
        self.redrawn = []
        match = self.table.match
        layout = settle_pile(rules, match.next_dealer, self.hands, self.floor, self.stock,
                             self.bottom)
        self.deck = []
        if layout is not None:  # else a new shuffle, from the first card
            match.deal(layout)

    def _pile_dealt_again(self) -> None:
        size = self.rules.floor_size
        self.floor = self.redrawn[:size]
        self.stock = self.redrawn[size:] + ([self.bottom] if self.bottom >= 0 else [])
        self._settle_pile()

    def _bury(self, place: int) -> None:
        card = self.floor[self.bury_at]
        self.buried.append(card)
        replacement = self.stock.pop(0)
        self.stock.insert(place, card)
        self.floor[self.bury_at] = replacement
        self._next_burial(self.bury_at)

    # Text

    def _action_to_string(self, player: int, action: int) -> str:
        if player == int(pyspiel.PlayerId.CHANCE):
            if self.table is None:
                return f"seat {action} deals first"
            if self.bury_at >= 0:
                return f"bury {CARD_NAMES[self.floor[self.bury_at]]} at stock place {action}"
            if self.loose:
                return f"deal {CARD_NAMES[action]} again"
            return f"deal {CARD_NAMES[action]}"
        return action_text(action)

    def returns(self) -> list[float]:
        players = self.rules.players
        if not self.over or self.table is None or self.table.match.winner is None:
            return [0.0] * players
        winner = self.table.match.winner
        loss = -1.0 / (self.rules.sides - 1)
        return [1.0 if self.rules.side_of[seat] == winner else loss for seat in range(players)]

    def resample_from_infostate(self, player: int, probability_sampler: Any) -> BasraState:
        """A state that ``player`` cannot tell from this one: the cards it has not seen
        dealt at random to the other hands and the stock, keeping every count."""
        other: BasraState = self.clone()
        if self._dealing() or other.table is None:
            return other
        seed = probability_sampler() if callable(probability_sampler) else random.random()
        match = other.table.match
        if self.rules.family in PILE_FAMILIES:
            resample_pile(match, player, random.Random(seed))
            return other
        view = other.table.observe(player)
        sampled = sample_state(view, random.Random(seed))
        match._state = sampled
        return other

    def __str__(self) -> str:
        if self.table is None or not self.table.match.deals:
            return "dealing"
        match = self.table.match
        state = match.state
        hands = " | ".join(cards_text(hand) or "-" for hand in state.hands)
        if state.table.pile:
            floor = " ".join(f"[{CARD_NAMES[c]}]" if state.down >> c & 1 else CARD_NAMES[c]
                             for c in state.laid if state.floor >> c & 1)
            return (f"deal {len(match.deals)} totals {match.totals} pile {floor or '-'} "
                    f"hands {hands} plays "
                    + (" ".join(CARD_NAMES[p.card] for p in match.deals[-1].plays) or "-")
                    + (" dealing" if self._dealing() and not self.over else ""))
        plays = " ".join(move_text(p.card | p.captured << 6) for p in match.deals[-1].plays)
        return (f"deal {len(match.deals)} totals {match.totals} floor "
                f"{cards_text(state.floor) or '-'} hands {hands} plays {plays or '-'}"
                + (" dealing" if self._dealing() and not self.over else ""))


def hidden_places(state: DealState, seat: int, rng: random.Random) -> dict[int, int]:
    """A pile game's cards that ``seat`` may not see (the other hands, the stock less its
    shown cards, the face-down cards it was not shown, wherever they lie), each with the
    one of them it changes places with, uniformly at random."""
    hidden = hidden_down(state, seat) | state.stock_mask() & ~state.exposed
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden |= hand
    cards = [card for card in range(52) if hidden >> card & 1]
    return dict(zip(cards, rng.sample(cards, len(cards)), strict=True))


def _moved(mask: int, places: dict[int, int]) -> int:
    out = mask
    for card in places:
        out &= ~(1 << card)
    for card, place in places.items():
        if mask >> card & 1:
            out |= 1 << place
    return out


def resample_pile(match: Match, seat: int, rng: random.Random) -> None:
    """Change ``match``'s deal in progress into one that ``seat`` cannot tell from it:
    the cards of :func:`hidden_places` change places in the state, the deal's layout and
    its plays; every count, and every card the seat sees, stays where it is."""
    state = match.state
    places = hidden_places(state, seat, rng)

    def moved(mask: int) -> int:
        return _moved(mask, places)

    def each(cards: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(places.get(card, card) for card in cards)

    match._state = state._replace(
        floor=moved(state.floor), hands=tuple(moved(hand) for hand in state.hands),
        piles=tuple(moved(pile) for pile in state.piles),
        batches=tuple(tuple(moved(hand) for hand in batch) for batch in state.batches),
        laid=each(state.laid), down=moved(state.down))
    history = match.deals[-1]
    layout = history.layout
    history.layout = layout._replace(
        floor=each(layout.floor), hands=tuple(each(hand) for hand in layout.hands),
        stock=each(layout.stock), floor_down=each(layout.floor_down))
    history.plays = [made._replace(captured=moved(made.captured)) for made in history.plays]


class BasraObserver:
    """Observation (``perfect_recall`` False) or information state of one seat."""

    def __init__(self, game: BasraGame, perfect_recall: bool) -> None:
        self.perfect_recall = perfect_recall
        self.pile = game.rules.family in PILE_FAMILIES
        observed = observation_size(game.rules)
        size = infostate_size(game.rules) if perfect_recall else observed
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor[:observed]}
        if perfect_recall:
            self.dict["initial_floor"] = self.tensor[observed:observed + 52]
            if self.pile:
                self.dict["initial_top"] = self.tensor[observed + 52:observed + 104]
                self.dict["initial_down"] = self.tensor[observed + 104:observed + 156]
            self.dict["plays"] = self.tensor[size - _HISTORY:].reshape(52, 104)

    def set_from(self, state: BasraState, player: int) -> None:
        self.tensor.fill(0)
        table = state.table
        if table is None or not table.match.deals:
            return
        choosing = table.to_play == player and table.card >= 0
        view = table.observe(player)
        self.dict["observation"][:] = encode_observation(
            view, table.card if choosing else -1, table.taken if choosing else 0)
        if self.perfect_recall:
            for card in range(52):
                if view.initial_floor >> card & 1:
                    self.dict["initial_floor"][card] = 1.0
            if self.pile:
                floor = table.match.deals[-1].layout.floor
                if floor:  # its top card is face up
                    self.dict["initial_top"][floor[-1]] = 1.0
                for card in range(52):
                    if view.down_seen >> card & 1:
                        self.dict["initial_down"][card] = 1.0
            plays = self.dict["plays"]
            for i, made in enumerate(view.plays):
                plays[i, made.card] = 1.0
                for card in range(52):
                    if made.captured >> card & 1:
                        plays[i, 52 + card] = 1.0

    def string_from(self, state: BasraState, player: int) -> str:
        table = state.table
        if table is None or not table.match.deals:
            return f"p{player} before the first deal"
        view = table.observe(player)
        if self.pile:
            return self._pile_string(state, table, player)
        parts = [f"p{player}", f"deal {view.deal_number}",
                 f"totals {' '.join(map(str, view.totals))}", f"target {view.target}",
                 f"carry {view.carry}", f"dealer {view.dealer}",
                 f"hand {cards_text(view.hand) or '-'}", f"floor {cards_text(view.floor) or '-'}",
                 f"buried {cards_text(view.buried) or '-'}",
                 f"counts {' '.join(map(str, view.hand_counts))} stock {view.stock_count}",
                 f"basras {' '.join(map(str, view.basras))}"]
        if table.to_play == player and table.card >= 0:
            parts.append(f"choosing {CARD_NAMES[table.card]} taken "
                         f"{cards_text(table.taken) or '-'}")
        return "; ".join(parts + self._history(
            state, view, lambda: cards_text(view.initial_floor) or "-"))

    def _history(self, state: BasraState, view: Observation,
                 initial: Callable[[], str]) -> list[str]:
        """The strings' last parts: with perfect recall the deal's ``initial`` floor (in
        text) and every play, else the captured piles and the last capturer; dealing or
        not."""
        if self.perfect_recall:
            parts = [f"initial {initial()}", "plays " + (" ".join(
                move_text(p.card | p.captured << 6) for p in view.plays) or "-")]
        else:
            parts = [f"piles {' | '.join(cards_text(p) or '-' for p in view.piles)}",
                     f"last capturer {view.last_capturer}"]
        if state._dealing() and not state.over:
            parts.append("dealing")
        return parts

    def _pile_string(self, state: BasraState, table: Table, player: int) -> str:
        """A pile game's information state or observation, in text: a face-down card
        that ``player`` was not shown is ``??``, one it was shown is in brackets."""
        view = table.observe(player)
        hidden = hidden_down(table.match.state, player)

        def pile_text(cards: tuple[int, ...]) -> str:
            return " ".join("??" if card < 0 or hidden >> card & 1
                            else f"[{CARD_NAMES[card]}]" if view.down_seen >> card & 1
                            else CARD_NAMES[card] for card in cards) or "-"

        parts = [f"p{player}", f"deal {view.deal_number}",
                 f"totals {' '.join(map(str, view.totals))}", f"target {view.target}",
                 f"carry {view.carry}", f"dealer {view.dealer}",
                 f"hand {cards_text(view.hand) or '-'}", f"pile {pile_text(view.pile)}",
                 f"stock shown {cards_text(view.stock_shown) or '-'}",
                 f"counts {' '.join(map(str, view.hand_counts))} stock {view.stock_count}",
                 f"captured {' '.join(map(str, view.pile_counts))}",
                 f"pistis {' '.join(map(str, view.basras))} "
                 f"jack {' '.join(map(str, view.jack_pistis))}"]
        return "; ".join(parts + self._history(
            state, view, lambda: pile_text(table.match.deals[-1].layout.floor)))


pyspiel.register_game(GAME_TYPE, BasraGame)
