"""Every lesson step, walked through the rules core: the position is legal (52 cards),
the right move is legal and does what the sentence claims, and every other legal move is
really worse by the step's goal; wrong moves get an explanation with a catalog text."""

from __future__ import annotations

import pytest

from basra.i18n import catalog, languages, placeholders
from basra.study.lessons import LESSONS, judge, outcomes, right_outcome, step_state

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
    assert {found.family for found in LESSONS} == {"basra", "pasur"}
    assert all(found.steps for found in LESSONS)
    assert len({found.id for found in LESSONS}) == len(LESSONS)


def test_an_illegal_move_is_refused() -> None:
    step = LESSONS[0].steps[0]
    with pytest.raises(ValueError, match="not one legal move"):
        judge(step, "AS")
