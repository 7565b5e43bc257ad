"""Every lesson step, walked through the rules core: the position is legal (52 cards),
the right move is legal and does what the sentence claims, and every other legal move is
really worse by the step's goal; wrong moves get an explanation with a catalog text."""

from __future__ import annotations

import pytest

from basra.cards import CardSet, parse_cards
from basra.i18n import catalog, languages, placeholders
from basra.study.lessons import (
    LESSONS,
    judge,
    lesson,
    outcomes,
    right_outcome,
    step_state,
    step_view,
)

STEPS = [(found.id, number, step) for found in LESSONS
         for number, step in enumerate(found.steps, 1)]


@pytest.mark.parametrize(("lesson_id", "number", "step"), STEPS,
                         ids=[f"{lid}-{n}" for lid, n, _ in STEPS])
def test_every_step_is_what_its_sentence_says(lesson_id: str, number: int, step: object) -> None:
    from basra.study.lessons import Step
    assert isinstance(step, Step)
    state = step_state(step)
    assert state.to_play == 0 and state.hands[0].bit_count() == len(step.hand.split())
    best = right_outcome(step)
    assert sorted(best.taken) == sorted(step.takes.split())
    assert best.basra == step.basra
    assert sorted(best.leftover) == sorted(step.leftover.split())
    others = [o for o in outcomes(step) if o.move != best.move]
    for other in others:
        assert other.score(step.goal) < best.score(step.goal), (other.move, best.move)
        verdict = judge(step, other.move)
        assert not verdict.right and verdict.why is not None
        key = verdict.why["key"]
        for language in languages():
            assert key in catalog(language)
            assert placeholders(catalog(language)[key]) <= set(verdict.why) - {"key"}
    assert judge(step, best.move).right
    for language in languages():
        assert step.text in catalog(language)
        assert f"learn_l_{lesson_id}" in catalog(language)


def test_every_family_has_lessons_and_every_lesson_a_step() -> None:
    assert {found.family for found in LESSONS} == {"basra", "pasur", "pisti"}
    assert all(found.steps for found in LESSONS)
    assert len({found.id for found in LESSONS}) == len(LESSONS)


def test_an_illegal_move_is_refused() -> None:
    step = LESSONS[0].steps[0]
    with pytest.raises(ValueError, match="not one legal move"):
        judge(step, "AS")


def test_the_pile_course_teaches_pisti_and_xeri_in_order() -> None:
    pile = [found for found in LESSONS if found.family == "pisti"]
    assert [found.id for found in pile] == ["pile_top", "pile_jack", "pile_pisti",
                                            "pile_first", "pile_scoring"]
    assert {step.preset for found in pile for step in found.steps} == {"pisti", "xeri"}
    assert LESSONS[-len(pile):] == tuple(pile)  # after Basra's and Pasur's


def test_a_pile_is_drawn_bottom_to_top_and_only_its_top_card_is_matched() -> None:
    step = lesson("pile_top").steps[1]
    view = step_view(step)
    assert view["family"] == "pisti" and view["floor"] == ["7C", "2H", "9S"]
    assert view["shown"] is None and view["basra_points"] == 10
    assert [m["move"] for m in view["moves"]] == ["2D", "4H", "9D:2H+7C+9S", "KC"]
    lower = judge(step, "2D")  # a 2 lies in the pile, under the 9
    assert not lower.right and lower.taken == []
    assert lower.why == {"key": "learn_why_pile_lower", "card": "2D", "top": "9S"}
    assert judge(step, "KC").why == {"key": "learn_why_pile_lay", "card": "KC", "top": "9S"}
    assert judge(step, "9D").taken == ["2H", "7C", "9S"]


def test_the_first_pile_hides_its_bottom_cards_and_shows_the_stocks_last_card() -> None:
    step = lesson("pile_first").steps[0]
    state = step_state(step)
    assert state.laid == tuple(parse_cards("4C 9D 2H 7S"))
    assert state.down == CardSet.parse("4C 9D 2H").mask and state.kitty == -1
    view = step_view(step)
    assert view["floor"] == [None, None, None, "7S"] and view["shown"] == "10D"
    assert state.stock_count == 40 and state.exposed.bit_count() == 1
    right = judge(step, "7D")
    assert right.right and right.taken == ["2H", "4C", "7S", "9D"] and not right.basra


def test_a_pisti_scores_10_and_a_jack_on_a_lone_jack_20() -> None:
    plain, not_jack, double = lesson("pile_pisti").steps
    assert judge(plain, "8H").to_json()["bonus"] == 10 and judge(plain, "8H").basra
    jack = judge(not_jack, "JC")
    assert not jack.right and not jack.basra and jack.bonus == 0
    assert jack.why is not None and jack.why["key"] == "learn_why_not_basra_pisti"
    twenty = judge(double, "JC")
    assert twenty.right and twenty.basra and twenty.bonus == 20
    assert step_view(double)["jack_basra_points"] == 20
    xeri = judge(lesson("pile_scoring").steps[2], "KS")
    assert xeri.right and xeri.bonus == 10
