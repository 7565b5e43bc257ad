"""An independent determinized-search bot for Basra and Pasur, speaking ``basra-bot/1``.

Written from the bot protocol (docs/protocol.md) and the rules specification alone, with
the standard library only (nothing from the ``basra`` package): an independent yardstick
for the project's bots. Each decision it deals the cards its seat has not seen into the
other hands and the stock at random, consistently with what it saw, plays every legal move
on each such sample, finishes the deal with greedy play for every seat, and plays the move
with the best mean margin for the deal: its side's points (cards, basras, the majority and
clubs prizes) less the best other side's. Rules it does not model, or a rule model that
disagrees with the legal moves and basras it is sent, make it play greedily instead.

    basra arena --bots 'cmd:python examples/search_bot.py,expert' --matches 40
    basra play --opponents 'cmd:python examples/search_bot.py --think-ms 500'

Options: ``--think-ms N`` (time a decision, default 300), ``--samples N`` (a fixed number
of samples a decision instead, for play that does not depend on the machine) and
``--seed N`` (its random choices; by default the ``seed`` of ``hello``).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from functools import cache
from typing import Any

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
NAMES = [rank + suit for rank in RANKS for suit in "SHDC"]  # card id = 4 * rank + suit
INDEX = {name: card for card, name in enumerate(NAMES)}
VALUE = [card // 4 + 1 if card // 4 < 10 else 0 for card in range(52)]  # courts: 0 pips
JACK, SEVEN_D = 10, INDEX["7D"]
CHOICES = {
    "family": ("basra", "pasur"),
    "seven_diamonds": ("plain", "sweep", "sweep_small", "sweep_any"),
    "basra": ("clear", "lone"),
    "jack_basra": ("never", "lone", "lone_or_pair"),
    "leftover": ("last_capturer", "split"),
    "majority_tie": ("none", "carry", "double"),
}

Move = tuple[int, list[int]]  # the card played and the floor cards it takes ([]: a trail)


class Unmodelled(Exception):
    """The game uses rules, or shows a position, that this bot does not model."""


class Rules:
    """The rule options of the protocol's ``rules`` object that the search needs."""

    def __init__(self, raw: dict[str, Any]) -> None:
        for name, known in CHOICES.items():
            if raw.get(name, known[0]) not in known:
                raise Unmodelled(f"rule {name}={raw[name]!r}")
        self.pasur = raw.get("family", "basra") == "pasur"
        self.partnership = bool(raw.get("partnership", False))
        self.hand_size, self.floor_size = int(raw["hand_size"]), int(raw["floor_size"])
        self.sums, self.optional = bool(raw["sums"]), bool(raw["optional_capture"])
        self.seven, self.basra = raw["seven_diamonds"], raw["basra"]
        self.jack_basra = raw["jack_basra"]
        self.basra_points, self.cancel = int(raw["basra_points"]), bool(raw["basra_cancel"])
        self.last_play, self.last_batch = raw["last_play_basra"], raw["last_batch_basra"]
        self.split = raw["leftover"] == "split"
        table = raw["card_points"]
        self.points = [int(table.get(name, table.get(name[:-1], 0))) for name in NAMES]
        self.majority, self.majority_min = int(raw["majority_points"]), raw["majority_min"]
        self.clubs, self.clubs_min = int(raw.get("clubs_points", 0)), raw.get("clubs_min", 0)
        # What a card is worth to the greedy playouts: its points, a share of the prizes
        # for the most cards and clubs, and the option value of a sweeping card kept.
        card_share = 0.5 if self.majority else 0.1
        club_share = 0.4 if self.clubs else 0.0
        self.worth = [p + card_share + club_share * (c % 4 == 3) for c, p in enumerate(self.points)]
        self.keep = [2.0 if c // 4 == JACK or (c == SEVEN_D and self.seven != "plain") else 0.0
                     for c in range(52)]

    def side(self, seat: int) -> int:
        return seat % 2 if self.partnership else seat


@cache
def groups(v: int) -> tuple[tuple[int, ...], ...]:
    """Every multiset of two or more pip values below v adding up to v, as counts of 1..v-1."""
    found: list[tuple[int, ...]] = []

    def extend(left: int, largest: int, counts: list[int]) -> None:
        if left == 0:
            found.append(tuple(counts))
        for part in range(min(left, largest), 0, -1):
            counts[part - 1] += 1
            extend(left - part, part, counts)
            counts[part - 1] -= 1

    extend(v, v - 1, [0] * (v - 1))
    return tuple(found)


@cache
def best_groups(v: int, counts: tuple[int, ...]) -> tuple[int, ...]:
    """The most cards, as counts of values 1..v-1, that split into groups adding up to v."""
    low = next((i for i, n in enumerate(counts) if n), None)
    if low is None:
        return counts
    rest = list(counts)
    rest[low] -= 1
    best = best_groups(v, tuple(rest))  # one card of the lowest value stays on the floor
    for group in groups(v):
        if group[low] and all(g <= n for g, n in zip(group, counts, strict=True)):
            tail = best_groups(v, tuple(n - g for n, g in zip(counts, group, strict=True)))
            if sum(group) + sum(tail) > sum(best):
                best = tuple(g + t for g, t in zip(group, tail, strict=True))
    return best


def capture(card: int, floor: list[int], rules: Rules) -> list[int]:
    """The floor cards `card` takes ([]: none); of several choices, a largest and richest."""
    rank = card // 4
    if rules.pasur:
        return pasur_capture(card, floor, rules)
    if rank == JACK or (card == SEVEN_D and floor and rules.seven != "plain"
                        and (rules.seven != "sweep_small" or sum(VALUE[c] for c in floor) <= 10)):
        return list(floor)
    taken = [c for c in floor if c // 4 == rank]
    v = VALUE[card]
    smaller = sorted((c for c in floor if 0 < VALUE[c] < v), key=lambda c: -rules.worth[c])
    if rules.sums and smaller:
        need = list(best_groups(v, tuple(sum(VALUE[c] == i for c in smaller)
                                         for i in range(1, v))))
        for c in smaller:  # the richest cards of each value that the groups use
            if need[VALUE[c] - 1]:
                need[VALUE[c] - 1] -= 1
                taken.append(c)
    return taken


def pasur_capture(card: int, floor: list[int], rules: Rules) -> list[int]:
    rank = card // 4
    if rank == JACK:
        return [c for c in floor if c // 4 <= JACK]
    if rank > JACK:
        return max(([c] for c in floor if c // 4 == rank), key=lambda t: rules.worth[t[0]],
                   default=[])
    numerals = [c for c in floor if 0 < VALUE[c] <= 10 - rank]
    best: list[int] = []
    best_key = (-1.0, 0)

    def search(i: int, left: int, chosen: list[int]) -> None:
        nonlocal best, best_key
        if left == 0:
            key = (sum(rules.worth[c] for c in chosen), len(chosen))
            if key > best_key:
                best, best_key = list(chosen), key
            return
        for j in range(i, len(numerals)):
            if VALUE[numerals[j]] <= left:
                chosen.append(numerals[j])
                search(j + 1, left - VALUE[numerals[j]], chosen)
                chosen.pop()

    search(0, 10 - rank, [])
    return best


def is_basra(card: int, taken: list[int], floor: list[int], rules: Rules,
             last_play: bool, last_batch: bool) -> bool:
    """Whether taking `taken` from `floor` with `card` scores a basra (a sur in Pasur)."""
    if not taken or (last_play and not rules.last_play) or (last_batch and not rules.last_batch):
        return False
    rank, lone = card // 4, len(floor) == 1
    if rules.pasur:
        return rank != JACK and len(taken) == len(floor)
    if rank == JACK:
        if (rules.jack_basra == "lone" and lone) or (
                rules.jack_basra == "lone_or_pair" and len(floor) <= 2):
            return True
        return rules.basra == "lone" and lone and floor[0] // 4 == JACK
    if card == SEVEN_D and rules.seven != "plain":
        pips = sum(VALUE[c] for c in floor)
        if rules.seven == "sweep_small" and pips <= 10:
            return True
        if rules.seven != "sweep_small":
            return pips <= 10 and all(VALUE[c] for c in floor)
    if rules.basra == "clear":
        return len(taken) == len(floor)
    return lone and floor[0] // 4 == rank


class Table:
    """What stays fixed during one decision: the rules, the seats and the deal's length."""

    def __init__(self, obs: dict[str, Any], rules: Rules) -> None:
        self.rules, self.me = rules, int(obs["seat"])
        players = len(obs["hand_counts"])
        first = (int(obs["dealer"]) + 1) % players
        self.seats: list[int] = obs.get("seats") or [(first + i) % players for i in range(players)]
        self.batch = len(self.seats) * rules.hand_size
        self.total = 52 - rules.floor_size
        self.sides = sorted({rules.side(s) for s in self.seats})
        self.prize = rules.majority + int(obs.get("carry", 0))


class Deal:
    """A deal in progress with every card placed: one sample of the hidden cards."""

    __slots__ = ("basras", "clubs", "count", "floor", "hands", "last", "ply", "points",
                 "stock", "top")
    hands: list[list[int]]  # by seat
    floor: list[int]  # oldest laid first
    stock: list[int]  # in dealing order, from index top
    top: int
    ply: int  # plays made this deal
    last: int  # the last capturer, -1 for none
    count: list[int]  # cards, points, clubs and basras, by side
    points: list[int]
    clubs: list[int]
    basras: list[int]

    def copy(self) -> Deal:
        new = Deal()
        new.hands, new.floor = [h[:] for h in self.hands], self.floor[:]
        new.stock, new.top, new.ply, new.last = self.stock, self.top, self.ply, self.last
        new.count, new.points = self.count[:], self.points[:]
        new.clubs, new.basras = self.clubs[:], self.basras[:]
        return new

    def take(self, side: int, cards: list[int], rules: Rules) -> None:
        self.count[side] += len(cards)
        self.points[side] += sum(rules.points[c] for c in cards)
        self.clubs[side] += sum(c % 4 == 3 for c in cards)

    def play(self, table: Table, seat: int, card: int, taken: list[int]) -> None:
        rules = table.rules
        self.hands[seat].remove(card)
        if taken:
            side = rules.side(seat)
            if is_basra(card, taken, self.floor, rules, self.ply == table.total - 1,
                        self.ply >= table.total - table.batch):
                self.basras[side] += 1
            for c in taken:
                self.floor.remove(c)
            self.take(side, [card, *taken], rules)
            self.last = seat
        else:
            self.floor.append(card)
        self.ply += 1

    def finish(self, table: Table) -> float:
        """Play the deal out greedily and return the seat's side's margin over the rest."""
        rules, seats, hand_size = table.rules, table.seats, table.rules.hand_size
        while self.ply < table.total:
            seat = seats[self.ply % len(seats)]
            if not self.hands[seat]:  # every hand is empty: the next batch
                for s in seats:
                    self.hands[s] = self.stock[self.top:self.top + hand_size]
                    self.top += hand_size
            self.play(table, seat, *greedy(self, table, seat))
        if self.floor and self.last >= 0 and not rules.split:
            self.take(rules.side(self.last), self.floor, rules)
        elif self.floor and rules.split:
            start = seats.index(self.last) + 1 if self.last >= 0 else 0
            order = [rules.side(seats[(start + i) % len(seats)]) for i in range(len(seats))]
            for i, c in enumerate(self.floor):
                self.take(order[i % len(order)], [c], rules)
        return self.margin(table)

    def margin(self, table: Table) -> float:
        rules, sides = table.rules, table.sides
        score = {s: float(self.points[s]) for s in sides}
        fewest = min(self.basras[s] for s in sides) if rules.cancel else 0
        for s in sides:
            score[s] += (self.basras[s] - fewest) * rules.basra_points
        for prize, least, tally in ((table.prize, rules.majority_min, self.count),
                                    (rules.clubs, rules.clubs_min, self.clubs)):
            most = max(tally[s] for s in sides)
            leaders = [s for s in sides if tally[s] == most]
            if prize and len(leaders) == 1 and most >= least:
                score[leaders[0]] += prize
        mine = rules.side(table.me)
        return score[mine] - max(score[s] for s in sides if s != mine)


def greedy(deal: Deal, table: Table, seat: int) -> Move:
    """The playouts' policy: the richest capture, else the trail that gives away least."""
    rules, floor = table.rules, deal.floor
    last_play, last_batch = deal.ply == table.total - 1, deal.ply >= table.total - table.batch
    best: Move = (-1, [])
    best_value = -1e9
    for card in deal.hands[seat]:
        taken = capture(card, floor, rules)
        if taken:
            value = rules.worth[card] + sum(rules.worth[c] for c in taken)
            if is_basra(card, taken, floor, rules, last_play, last_batch):
                value += rules.basra_points
        else:
            value = -rules.worth[card] - rules.keep[card] - 0.01 * VALUE[card]
        if value > best_value:
            best, best_value = (card, taken), value
    return best


def parse(move: str) -> Move:
    card, _, taken = move.partition(":")
    return INDEX[card], [INDEX[c] for c in taken.split("+") if c and c != "-"]


def cards(names: list[str]) -> list[int]:
    return [INDEX[name] for name in names]


def check_model(obs: dict[str, Any], table: Table, moves: list[Move]) -> None:
    """Raise Unmodelled where this bot's rules disagree with what the engine sent."""
    rules, hand, floor = table.rules, cards(obs["hand"]), cards(obs["floor"])
    for card in hand:
        mine = capture(card, floor, rules)
        options = [taken for c, taken in moves if c == card]
        caps = [taken for taken in options if taken]
        if (bool(mine) != bool(caps) or any(not t for t in options) != (not mine or rules.optional)
                or any(len(t) != len(mine) for t in caps if not rules.pasur)
                or (rules.pasur and mine and sorted(mine) not in [sorted(t) for t in caps])):
            raise Unmodelled(f"captures of {NAMES[card]} on {obs['floor']}")
    floor = cards(obs["initial_floor"])
    for i, play in enumerate(obs["plays"]):
        card, taken = INDEX[play["card"]], cards(play["captured"])
        last_batch = i >= table.total - table.batch
        if is_basra(card, taken, floor, rules, False, last_batch) != bool(play["basra"]):
            raise Unmodelled(f"the basra of play {i} ({play['card']})")
        floor = [c for c in floor if c not in taken] if taken else [*floor, card]


def sample(obs: dict[str, Any], table: Table, rng: random.Random) -> Deal:
    """Deal the unseen cards at random into the other hands and the stock."""
    rules = table.rules
    hand, floor = cards(obs["hand"]), cards(obs.get("floor_order") or obs["floor"])
    piles = [cards(pile) for pile in obs["piles"]]
    seen = set(hand) | set(floor) | {c for pile in piles for c in pile}
    others = [s for s in table.seats if s != table.me]
    counts = obs["hand_counts"]
    buried = set(cards(obs.get("buried") or []))
    free = [c for c in range(52) if c not in seen and not (obs["batch"] == 1 and c in buried)]
    kept = [c for c in range(52) if c not in seen and c not in free]  # buried: in the stock
    if len(free) + len(kept) != sum(counts[s] for s in others) + obs["stock_count"]:
        raise Unmodelled("the unseen cards do not add up")
    rng.shuffle(free)
    deal = Deal()
    deal.hands = [[] for _ in counts]
    deal.hands[table.me] = hand
    for s in others:
        deal.hands[s], free = free[:counts[s]], free[counts[s]:]
    deal.stock = free + kept
    rng.shuffle(deal.stock)
    deal.top, deal.ply, deal.floor = 0, len(obs["plays"]), floor
    deal.last = int(obs["last_capturer"])
    n = max(len(piles), 2 if rules.partnership else len(counts))
    deal.count, deal.points, deal.clubs = [0] * n, [0] * n, [0] * n
    deal.basras = list(obs["basras"]) + [0] * (n - len(obs["basras"]))
    for side, pile in enumerate(piles):
        deal.take(side, pile, rules)
    return deal


def fallback(obs: dict[str, Any]) -> str:
    """A simple greedy choice among the legal moves, needing no rules model."""
    table = obs.get("rules", {}).get("card_points", {})

    def value(move: str) -> tuple[int, int, int]:
        card, _, taken = move.partition(":")
        won = [card, *taken.split("+")] if taken else [card]
        points = sum(int(table.get(c, table.get(c[:-1], 0))) for c in won)
        return (1, points, len(won)) if taken else (0, -points, -RANKS.index(card[:-1]))

    legal: list[str] = obs["legal_moves"]
    return max(legal, key=value)


class Bot:
    def __init__(self, think_ms: int, samples: int, seed: int | None) -> None:
        self.think, self.samples = think_ms / 1000, samples
        self.rng = random.Random(seed)
        self.seeded, self.timeout = seed is not None, 10.0
        self.said: set[str] = set()

    def log(self, text: str) -> None:
        if text not in self.said:  # each reason once a process
            self.said.add(text)
            print(f"search_bot: {text}; playing greedy", file=sys.stderr, flush=True)

    def choose(self, obs: dict[str, Any], start: float) -> str:
        legal: list[str] = obs["legal_moves"]
        if len(legal) == 1:
            return legal[0]
        try:
            table = Table(obs, Rules(obs["rules"]))
            moves = [parse(move) for move in legal]
            check_model(obs, table, moves)
            return legal[self.search(obs, table, moves, start)]
        except Unmodelled as error:
            self.log(str(error))
        except Exception as error:  # a position it cannot read: never crash
            self.log(f"cannot read the position ({error!r})")
        return fallback(obs)

    def search(self, obs: dict[str, Any], table: Table, moves: list[Move], start: float) -> int:
        """The index of the move with the best mean margin over the samples."""
        deadline = start + min(self.think, self.timeout / 2) - 0.01
        totals = [0.0] * len(moves)
        rounds = 0
        while rounds == 0 or (rounds < self.samples if self.samples
                              else time.perf_counter() < deadline):
            base = sample(obs, table, self.rng)
            for i, (card, taken) in enumerate(moves):
                deal = base.copy()
                deal.play(table, table.me, card, taken)
                totals[i] += deal.finish(table)
            rounds += 1
        return max(range(len(moves)), key=lambda i: totals[i])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--think-ms", type=int, default=300, help="time a decision (300)")
    parser.add_argument("--samples", type=int, default=0,
                        help="samples a decision instead of a time (0: by time)")
    parser.add_argument("--seed", type=int, default=None, help="seed of its random choices")
    args = parser.parse_args(argv)
    bot = Bot(args.think_ms, args.samples, args.seed)
    for line in sys.stdin:
        start = time.perf_counter()
        message = json.loads(line)
        if message["type"] == "hello":
            bot.timeout = float(message.get("timeout", 10.0))
            if not bot.seeded:
                bot.rng.seed(message.get("seed"))
        elif message["type"] == "move":
            print(json.dumps({"move": bot.choose(message["observation"], start)}), flush=True)
        elif message["type"] == "quit":
            break


if __name__ == "__main__":
    main()
