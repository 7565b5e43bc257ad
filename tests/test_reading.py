"""Reading a seat's style of play from its plays of finished batches."""

from __future__ import annotations

import random

import pytest

from basra.bots import close_bot, make_bot
from basra.bots.reading import MIN_PLAYS, StyleReader
from basra.fast import core
from basra.match import Match
from basra.observe import Observation, observe
from basra.rules import make_rules

EXPERT, GREEDY = 4, 1


def _views(other: str, seed: int, players: int = 2, matches: int = 1) -> list[Observation]:
    """Seat 0's view before each of its plays, the expert at seat 0 and ``other`` at
    every other seat, over ``matches`` matches."""
    views = []
    for number in range(matches):
        rules = make_rules("egyptian", players=players)
        bots = [make_bot("expert", seed)] + [make_bot(other, seed + s)
                                             for s in range(1, players)]
        match = Match(rules, seed + 100 * number)
        while not match.is_over:
            seat = match.state.to_play
            view = observe(match, seat)
            if seat == 0:
                views.append(view)
            match.play(bots[seat].choose(view))
        for bot in bots:
            close_bot(bot)
    return views


@pytest.mark.parametrize(("level", "style"), [("expert", EXPERT), ("greedy", GREEDY)])
def test_a_levels_plays_are_all_its_styles_choice(level: str, style: int) -> None:
    told = agreed = other_told = other_agreed = 0
    read = set()
    for view in _views(level, seed=3):
        for batch in range(1, view.batch):
            if (view.deal_number, batch) in read:
                continue
            read.add((view.deal_number, batch))
            t, a = core.play_agreement(view, batch, 1, style)
            told, agreed = told + t, agreed + a
            t, a = core.play_agreement(view, batch, 1, GREEDY + EXPERT - style)
            other_told, other_agreed = other_told + t, other_agreed + a
    assert told >= MIN_PLAYS
    assert agreed == told
    assert other_agreed < other_told  # the other style does not explain them


def test_the_reader_names_the_level_that_plays_and_no_other() -> None:
    for level, style in (("expert", EXPERT), ("greedy", GREEDY), ("random", None)):
        reader = StyleReader()
        for view in _views(level, seed=11, matches=2):
            reader.observe(view)
        assert reader.style(1) == style, level
        assert reader.style(0) is None  # its own plays are not read
        assert reader.styles(2) == (None, style)


def test_a_reader_can_count_other_policies_than_the_styles_read() -> None:
    """``styles``: the policies counted and read as; the master's reader counts only
    the levels' styles."""
    views = _views("greedy", seed=11)
    plain, wider, keeping = (StyleReader(), StyleReader(styles=(3, GREEDY)),
                             StyleReader(styles=(3,)))
    for view in views:
        for reader in (plain, wider, keeping):
            reader.observe(view)
    assert plain.plays(1, 3) == (0, 0)
    told, agreed = wider.plays(1, 3)
    assert told > 0 and agreed < told  # greedy does not keep its sweepers
    assert wider.plays(1, GREEDY) == plain.plays(1, GREEDY)
    assert wider.style(1) == plain.style(1) == GREEDY
    assert keeping.plays(1, 3) == (told, agreed)
    assert keeping.style(1) is None


def test_a_style_needs_enough_plays() -> None:
    reader = StyleReader()
    views = _views("greedy", seed=5)
    first_batch_done = next(v for v in views if v.batch == 2)
    reader.observe(first_batch_done)
    assert reader.style(1) is None  # three plays at most: not enough to tell
    for view in views:
        reader.observe(view)
    assert reader.style(1) == GREEDY


@pytest.mark.parametrize("min_plays", [4, MIN_PLAYS])
def test_a_seat_is_read_from_the_batch_its_told_plays_reach_the_threshold(
        min_plays: int) -> None:
    reader = StyleReader(min_plays)
    for view in _views("greedy", seed=5):
        reader.observe(view)
        told = reader.plays(1, GREEDY)[0]
        assert (reader.style(1) == GREEDY) == (told >= min_plays)
        if told >= min_plays:
            return
    pytest.fail("the match ended before greedy made enough plays to read")


def test_each_batch_is_read_once_and_a_new_match_starts_afresh() -> None:
    views = _views("greedy", seed=7, matches=2)
    restart = next(i for i in range(1, len(views))
                   if views[i].deal_number < views[i - 1].deal_number)
    once, twice = StyleReader(), StyleReader()
    for view in views[:restart]:
        once.observe(view)
        twice.observe(view)
        twice.observe(view)
    assert once._counts == twice._counts
    read = sum(told for told, _ in once._counts.values())
    # a match whose deals count from 1 again may have other players: nothing carries over
    once.observe(views[restart])
    assert sum(told for told, _ in once._counts.values()) < read


def test_a_partner_and_both_opponents_are_read_in_partnerships() -> None:
    reader = StyleReader()
    for view in _views("greedy", seed=3, players=4):
        reader.observe(view)
    assert reader.styles(4) == (None, GREEDY, GREEDY, GREEDY)


def test_a_seat_of_known_style_plays_it_in_the_rollouts() -> None:
    views = _views("greedy", seed=9)
    # seat 1 trailed a card in this batch: which card says something of the others
    view = next(v for v in views if len(v.legal_moves) > 2 and v.batch > 1
                and 0 < v.hand_counts[1] < v.hand_counts[0] and not v.plays[-1].captured)
    known = core.observation_search(view, 1.0, 4, samples=200, policy=3, styles=(None, GREEDY))
    again = core.observation_search(view, 1.0, 4, samples=200, policy=3, styles=(None, GREEDY))
    unknown = core.observation_search(view, 1.0, 4, samples=200, policy=3)
    assert known == again
    assert known != unknown
    # its plays of the batch weigh the samples; a seat of no known style weighs none
    assert known.weights != [float(v) for v in known.visits]
    assert unknown.weights == [float(v) for v in unknown.visits]



def test_the_master_reads_the_other_seat_unless_told_not_to() -> None:
    from basra.bots.master import MasterBot, SearchSettings

    views = _views("greedy", seed=9)
    last = next(v for v in reversed(views) if len(v.legal_moves) > 1 and v.stock_count)

    def master(settings: SearchSettings) -> MasterBot:
        bot = MasterBot(1, samples=60, settings=settings)
        for view in views:
            bot.reader.observe(view)
        assert bot.reader.style(1) == GREEDY
        return bot

    reading = master(SearchSettings()).estimates(last)
    assert reading == master(SearchSettings()).estimates(last)
    assert reading != master(SearchSettings(read_styles=False)).estimates(last)
    assert {e.move for e in reading} == set(last.legal_moves)
    # two players, a seat read: the tree under a flat root, every move on the 60 deals
    assert {e.samples for e in reading} == {60}


def test_the_master_solves_the_last_batch_against_a_read_seats_play() -> None:
    """Every card known: a read seat's turns are worth the mean of its style's moves,
    not its best reply; unread (or told not to read), the solve is alpha-beta's."""
    from basra.bots.master import MasterBot, SearchSettings
    from basra.bots.reading import style_moves
    from basra.bots.search import sample_state, solve
    from basra.observe import observe_state

    views = _views("greedy", seed=9, matches=2)
    bot = MasterBot(1, samples=60)
    against = 0
    for view in views:
        bot.reader.observe(view)
        if view.stock_count or len(view.legal_moves) < 2:
            continue
        assert bot.reader.style(1) == GREEDY
        state = sample_state(view, random.Random(0))  # the only deal: every card known
        greedy = {1: lambda node: style_moves(GREEDY, observe_state(node, 1))}
        expected = solve(state, view.side, view.carry, greedy)
        estimates = {e.move: e.value for e in bot.estimates(view)}
        assert estimates == expected
        plain = MasterBot(1, samples=60, settings=SearchSettings(read_styles=False))
        plain.reader = bot.reader
        assert {e.move: e.value for e in plain.estimates(view)} == solve(
            state, view.side, view.carry)
        against += expected != solve(state, view.side, view.carry)
    assert against >= 2


def test_the_master_plans_with_the_tree_once_a_seat_is_read_when_two_play() -> None:
    from basra.bots.master import READ_TREE_PLAYERS, uses_tree

    two, three = make_rules("egyptian"), make_rules("three-player")
    assert READ_TREE_PLAYERS == (2,)
    assert uses_tree(two, (None, GREEDY))
    assert not uses_tree(two, (None, None))
    assert not uses_tree(two, ())
    assert not uses_tree(three, (None, GREEDY, EXPERT))
