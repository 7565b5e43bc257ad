"""The differential check: random deals played through the reference core and the
compiled path side by side, every legal-move list, state and deal score compared.

>>> from basra.rules import make_rules
>>> differential_deals(make_rules("pasur"), deals=2, seed=1) > 0
True
"""

from __future__ import annotations

import random

from basra.position import position_text
from basra.rules import Rules
from basra.state import DealState, apply, deal_layout, deal_score, legal_moves, start_deal

from . import core

__all__ = ["FastMismatchError", "differential_deals", "differential_state"]


class FastMismatchError(AssertionError):
    """The compiled path and the reference core disagree (the message has the position)."""


def differential_state(state: DealState, rng: random.Random, carry: int = 0) -> int:
    """Play ``state`` to the end of its deal with uniformly random moves through both
    paths, comparing after every play; the number of plays checked."""
    fast = core.fast_rules(state.rules)
    array = core.to_array(state)
    plays = 0
    while True:
        mirrored = core.from_array(array, state.table)
        if mirrored != state:
            raise FastMismatchError(
                f"states differ after {plays} plays:\n  reference {position_text(state)}\n"
                f"  compiled  {position_text(mirrored)}")
        if state.is_over:
            break
        expected = legal_moves(state)
        found = core.legal_moves(fast, array)
        if found != expected:
            raise FastMismatchError(f"legal moves differ in {position_text(state)}: reference "
                                    f"{expected}, compiled {found}")
        move = expected[int(rng.random() * len(expected))]
        state = apply(state, move)
        core.apply(fast, array, move)
        plays += 1
    score = deal_score(state, carry)
    totals, carry_out = core.deal_totals(fast, array, carry)
    if totals != score.total or carry_out != score.carry_out:
        raise FastMismatchError(f"deal scores differ in {position_text(state)}: reference "
                                f"{score.total} carry {score.carry_out}, compiled {totals} "
                                f"carry {carry_out}")
    return plays


def differential_deals(rules: Rules, deals: int, seed: int,
                       seats: tuple[int, ...] | None = None) -> int:
    """Check ``deals`` random deals of ``rules`` (only ``seats`` dealt in, when given: an
    extra deal between tied sides); the number of plays checked."""
    rng = random.Random(seed)
    plays = 0
    for number in range(deals):
        dealer = (seats[number % len(seats)] if seats
                  else number % rules.players)
        state = start_deal(rules, deal_layout(rules, dealer, rng, seats))
        plays += differential_state(state, rng, carry=rng.choice((0, 0, 30)))
    return plays


def random_rules(rng: random.Random) -> Rules:
    """A random valid rules value: a preset and player count with random house rules
    (every option that changes what is captured, what a basra or a pişti is, the deal,
    or the score)."""
    import dataclasses

    from basra.rules import (
        BASRA_RULES,
        JACK_BASRA_RULES,
        LEFTOVER_RULES,
        MAJORITY_TIE_RULES,
        PILE_FAMILIES,
        PRESETS,
        SEVEN_DIAMONDS_RULES,
        RulesError,
    )

    while True:
        preset = rng.choice(list(PRESETS.values()))
        base = preset.rules_for(rng.choice(preset.players))
        if base.family in PILE_FAMILIES:
            try:
                pile_changes = random_pile_changes(rng, base)
                return dataclasses.replace(base, **pile_changes)  # type: ignore[arg-type]
            except RulesError:
                continue
        changes: dict[str, object] = {
            "optional_capture": rng.random() < 0.3,
            "leftover": rng.choice(LEFTOVER_RULES),
            "jack_basra": rng.choice(JACK_BASRA_RULES),
            "basra_cancel": rng.random() < 0.3,
            "last_play_basra": rng.random() < 0.7,
            "last_batch_basra": rng.random() < 0.7,
            "majority_tie": rng.choice(MAJORITY_TIE_RULES),
            "majority_min": rng.choice((0, 0, 20, 27)),
            "clubs_points": rng.choice((0, 0, 7)),
            "clubs_min": rng.choice((0, 7)),
            "floor_size": rng.choice((0, 4, 4, 4, 8, 12)),
            "hand_size": rng.choice((1, 2, 4, 4, 6, 8)),
            "bury": rng.choice(((), ("J",), ("J", "7D"), ("10D",))),
            "card_points": rng.choice((base.card_points, (("A", 1), ("10D", 3)),
                                       (("J", 1), ("5", 2), ("KS", 4)))),
        }
        if base.family == "basra":
            changes.update(
                sums=rng.random() < 0.8,
                seven_diamonds=rng.choice(SEVEN_DIAMONDS_RULES),
                basra=rng.choice(BASRA_RULES),
            )
        try:
            return dataclasses.replace(base, **changes)  # type: ignore[arg-type]
        except RulesError:
            continue


def random_pile_changes(rng: random.Random, base: Rules) -> dict[str, object]:
    """Random house rules of a pile game (spec 9.10 and 10.10): every option that changes
    the deal, what a pişti is, or the score."""
    from basra.rules import (
        BOTTOM_CARD_RULES,
        CENTRE_JACK_RULES,
        JACK_PISTI_RULES,
        MAJORITY_TIE_RULES,
        PILE_REDEAL_RULES,
    )

    floor_size = rng.choice((0, 1, 4, 4, 4, 8))
    return {
        "jack_pisti": rng.choice(JACK_PISTI_RULES),
        "last_play_pisti": rng.random() < 0.5,
        "pisti_points": rng.choice((0, 10, 10, 7)),
        "jack_pisti_points": rng.choice((0, 20, 20, 15)),
        "centre_jack": rng.choice(CENTRE_JACK_RULES),
        "bottom_card": rng.choice(BOTTOM_CARD_RULES),
        "pile_redeal": rng.choice(PILE_REDEAL_RULES),
        "floor_size": floor_size,
        "pile_down": rng.randrange(max(floor_size, 1)),
        "hand_size": rng.choice((1, 2, 4, 4, 6, 8)),
        "majority_tie": rng.choice(MAJORITY_TIE_RULES),
        "majority_min": rng.choice((0, 0, 27)),
        "card_points": rng.choice((base.card_points, (("A", 1), ("10D", 3)),
                                   (("A", 1), ("K", 1), ("Q", 1), ("J", 1), ("10", 1),
                                    ("10D", 2), ("2C", 1)))),
    }
