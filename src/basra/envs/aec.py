"""A PettingZoo AEC environment of Basra, Pasur and the pile games (Pişti, Xeri): every
preset and player count.

Agents are ``player_0`` .. ``player_{n-1}``, one per seat. Each observes
``{"observation": float32[703], "action_mask": int8[105]}`` (a pile game:
``float32[717]`` and ``int8[52]``; layouts in :mod:`basra.envs.game` and docs/envs.md);
the mask is all 0 except for the agent to act.
Rewards are side score margins (``reward="match"`` or ``"deal"``) or the match result
(``reward="win"``); both partners of a side get their side's reward.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]

from basra.cards import CARD_NAMES, cards_text
from basra.rules import PILE_FAMILIES, make_rules
from basra.state import DealState, move_text

from .game import (
    REWARDS,
    Table,
    action_count,
    new_table,
    observation_high,
    observation_size,
    side_margins,
)

__all__ = ["BasraAECEnv"]


def _pile_text(state: DealState) -> str:
    """The pile bottom to top, face-down cards in brackets (the render sees everything).

    >>> import random
    >>> from basra.state import new_deal
    >>> _pile_text(new_deal(make_rules("pisti"), 0, random.Random(1)))
    '[AS] [10C] [7S] 9S'
    """
    return " ".join(f"[{CARD_NAMES[c]}]" if state.down >> c & 1 else CARD_NAMES[c]
                    for c in state.laid if state.floor >> c & 1) or "-"


class BasraAECEnv(AECEnv):  # type: ignore[misc]
    """Basra (or Pasur, Pişti, Xeri) for PettingZoo's agent-environment cycle.

    ``variant`` and ``players`` choose the preset and its player count, ``rules`` adds
    house rules (``{"basra_points": 5}``); ``reward`` is one of :data:`REWARDS`;
    ``reward_scale`` multiplies every reward; a match still undecided after ``max_deals``
    deals is truncated. ``render_mode`` ``"ansi"`` returns the position as text from
    :meth:`render`, ``"human"`` prints it.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "basra_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, variant: str = "egyptian", players: int | None = None,
                 rules: dict[str, Any] | None = None, reward: str = "match",
                 reward_scale: float = 1.0, max_deals: int = 100,
                 render_mode: str | None = None) -> None:
        super().__init__()
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be ansi or human, not {render_mode!r}")
        self.rules = make_rules(variant, players, rules)
        self.variant = variant
        self.reward = reward
        self.reward_scale = reward_scale
        self.max_deals = max_deals
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(self.rules.players)]
        self.num_actions = action_count(self.rules)
        observation = spaces.Dict({
            "observation": spaces.Box(0.0, observation_high(self.rules),
                                      (observation_size(self.rules),), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
        })
        self.observation_spaces = {a: observation for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.num_actions)
                              for a in self.possible_agents}
        self._seeds = random.Random()
        self.table = Table(self.rules, variant, 0)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new match; with ``seed``, the same seed deals the same cards (later resets
        without one draw their deals from it)."""
        if seed is not None:
            self._seeds = random.Random(seed)
        self.table = new_table(self.rules, self.variant, self._seeds.getrandbits(64),
                               self.reward)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.table.to_play]

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        seat = self.possible_agents.index(agent)
        mask = (self.table.action_mask() if agent == self.agent_selection
                and not (self.terminations[agent] or self.truncations[agent])
                else np.zeros(self.num_actions, dtype=np.int8))
        return {"observation": self.table.observation(seat), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must act: None is an action only for a finished agent")
        self._clear_rewards()
        self._cumulative_rewards[agent] = 0.0
        match = self.table.match
        deals = len(match.deals)
        played = self.table.apply_action(int(action))
        if played is not None:
            finished = match.deals[deals - 1].score
            if finished is not None:
                self._deal_scored(finished.total)
        self._accumulate_rewards()
        if not any(self.terminations.values()) and not any(self.truncations.values()):
            self.agent_selection = self.possible_agents[self.table.to_play]
        if self.render_mode == "human":
            self.render()

    def _deal_scored(self, points: tuple[int, ...]) -> None:
        match = self.table.match
        side_of = self.rules.side_of
        over = match.is_over or self.reward == "deal"
        if self.reward in ("match", "deal"):
            margins = side_margins(points)
            for seat, agent in enumerate(self.possible_agents):
                self.rewards[agent] = margins[side_of[seat]] * self.reward_scale
        elif match.is_over:
            sides = self.rules.sides
            for seat, agent in enumerate(self.possible_agents):
                won = side_of[seat] == match.winner
                self.rewards[agent] = (1.0 if won else -1.0 / (sides - 1)) * self.reward_scale
        if over:
            self.terminations = dict.fromkeys(self.agents, True)
        elif len(match.deals) > self.max_deals:
            self.truncations = dict.fromkeys(self.agents, True)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self._text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _text(self) -> str:
        match = self.table.match
        state = match.state
        lines = [f"{self.variant}, {self.rules.players} players, deal {len(match.deals)}, "
                 f"totals {' '.join(map(str, match.totals))}",
                 f"pile: {_pile_text(state)}" if self.rules.family in PILE_FAMILIES
                 else f"floor: {cards_text(state.floor) or '-'}"]
        for seat, hand in enumerate(state.hands):
            lines.append(f"player_{seat}: {cards_text(hand) or '-'}")
        plays = match.deals[-1].plays
        if plays:
            last = plays[-1]
            lines.append(f"last play: player_{last.seat} "
                         f"{move_text(last.card | last.captured << 6)}")
        return "\n".join(lines)

    def close(self) -> None:
        pass
