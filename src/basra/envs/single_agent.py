"""A Gymnasium environment: one seat of Basra, Pasur or a pile game (Pişti, Xeri)
against the project's bots.

The agent plays seat ``seat``; every other seat is played by ``opponent`` (a level, or
``cmd:COMMAND``; one name for all, or a list with one per other seat). The observation is
the seat's float32[703] tensor and the action one of the 105 actions of
:mod:`basra.envs.game` (a pile game: float32[717], and 52 actions, one per card);
``info["action_mask"]`` and :meth:`BasraEnv.action_masks` give the legal ones. An illegal
action (a random sample, say) is replaced by a legal one drawn at random, and
``info["illegal_action"]`` says so; with ``illegal_action="raise"`` it raises.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from basra.bots import Bot, close_bot, make_bot
from basra.cards import CARD_NAMES, cards_text
from basra.rules import PILE_FAMILIES, make_rules

from .game import (
    REWARDS,
    ActionError,
    Table,
    action_count,
    new_table,
    observation_high,
    observation_size,
    side_margins,
)

__all__ = ["BasraEnv"]

Observation = npt.NDArray[np.float32]


class BasraEnv(gym.Env[Observation, np.int64]):
    """One seat against bots. ``reward`` is one of :data:`~basra.envs.game.REWARDS`
    (the agent's side's margin, or the match result); a match undecided after
    ``max_deals`` deals is truncated."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 1}  # noqa: RUF012

    def __init__(self, variant: str = "egyptian", players: int | None = None,
                 opponent: str | Sequence[str] = "greedy", seat: int = 0,
                 rules: dict[str, Any] | None = None, reward: str = "match",
                 reward_scale: float = 1.0, max_deals: int = 100,
                 illegal_action: str = "random", render_mode: str | None = None) -> None:
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        if illegal_action not in ("random", "raise"):
            raise ValueError(f"illegal_action must be random or raise, not {illegal_action!r}")
        self.rules = make_rules(variant, players, rules)
        if not 0 <= seat < self.rules.players:
            raise ValueError(f"seat must be 0 to {self.rules.players - 1}, not {seat!r}")
        names = [opponent] * (self.rules.players - 1) if isinstance(opponent, str) else list(
            opponent)
        if len(names) != self.rules.players - 1:
            raise ValueError(f"opponent: one bot, or one per other seat "
                             f"({self.rules.players - 1}), not {len(names)}")
        for name in names:
            close_bot(make_bot(name))  # checks the name now, not at the first reset
        self.opponent_names = names
        self.variant = variant
        self.seat = seat
        self.reward = reward
        self.reward_scale = reward_scale
        self.max_deals = max_deals
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.num_actions = action_count(self.rules)
        self.observation_space = spaces.Box(0.0, observation_high(self.rules),
                                            (observation_size(self.rules),), dtype=np.float32)
        self.action_space = spaces.Discrete(self.num_actions)
        self._seeds = random.Random()
        self._choices = random.Random()
        self.table: Table | None = None
        self.bots: dict[int, Bot] = {}

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._seeds = random.Random(seed)
        self._close_bots()
        match_seed = self._seeds.getrandbits(64)
        self._choices = random.Random(match_seed)
        self.table = new_table(self.rules, self.variant, match_seed, self.reward)
        others = [s for s in range(self.rules.players) if s != self.seat]
        self.bots = {s: make_bot(name, match_seed + s)
                     for s, name in zip(others, self.opponent_names, strict=True)}
        reward, over = self._play_opponents()
        del reward, over  # the agent's first turn always comes before the end of a deal
        return self._observation(), self._info()

    def step(self, action: np.int64 | int) -> tuple[
            Observation, float, bool, bool, dict[str, Any]]:
        table = self._table()
        legal = table.legal_actions()
        illegal = int(action) not in legal
        if illegal:
            if self.illegal_action == "raise":
                raise ActionError(f"illegal action {int(action)!r}; the legal actions are "
                                  f"{legal}")
            action = self._choices.choice(legal)
        reward = 0.0
        over = False
        deals = len(table.match.deals)
        if table.apply_action(int(action)) is not None:
            reward, over = self._scored(deals)
        if not over:
            more, over = self._play_opponents()
            reward += more
        truncated = not over and len(table.match.deals) > self.max_deals
        info = self._info()
        if illegal:
            info["illegal_action"] = True
        return self._observation(), reward, over, truncated, info

    def _table(self) -> Table:
        if self.table is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        return self.table

    def _scored(self, deals: int) -> tuple[float, bool]:
        """The agent's reward for the play just made, and whether the episode is over."""
        match = self._table().match
        score = match.deals[deals - 1].score
        if score is None:
            return 0.0, False
        side = self.rules.side_of[self.seat]
        over = match.is_over or self.reward == "deal"
        if self.reward == "win":
            if not match.is_over:
                return 0.0, False
            won = match.winner == side
            return (1.0 if won else -1.0 / (self.rules.sides - 1)) * self.reward_scale, True
        return side_margins(score.total)[side] * self.reward_scale, over

    def _play_opponents(self) -> tuple[float, bool]:
        """Let the bots play until it is the agent's turn or the episode ends."""
        table = self._table()
        reward = 0.0
        while table.to_play != self.seat and table.to_play >= 0:
            seat = table.to_play
            if len(table.match.deals) > self.max_deals:
                break
            move = self.bots[seat].choose(table.observe(seat))
            deals = len(table.match.deals)
            table.play_move(move)
            gained, over = self._scored(deals)
            reward += gained
            if over:
                return reward, True
        return reward, table.to_play < 0

    def _observation(self) -> Observation:
        return self._table().observation(self.seat)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions (as the ``action_masks`` convention of masked PPO wants)."""
        table = self._table()
        if table.to_play != self.seat:
            return np.zeros(self.num_actions, dtype=bool)
        return table.action_mask().astype(bool)

    def _info(self) -> dict[str, Any]:
        table = self._table()
        return {"action_mask": self.action_masks().astype(np.int8),
                "totals": list(table.match.totals), "deals": len(table.match.deals)}

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.table is None:
            return None
        view = self.table.observe(self.seat)
        if view.pile:
            table = "pile: " + " ".join(CARD_NAMES[c] if c >= 0 else "??" for c in view.pile)
        else:
            table = f"{'pile' if view.rules.family in PILE_FAMILIES else 'floor'}: " + (
                cards_text(view.floor) or "-")
        return (f"deal {view.deal_number}, totals {list(view.totals)}\n"
                f"{table}\nhand: {cards_text(view.hand) or '-'}")

    def _close_bots(self) -> None:
        for bot in self.bots.values():
            close_bot(bot)
        self.bots = {}

    def close(self) -> None:
        self._close_bots()
        super().close()
