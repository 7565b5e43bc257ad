"""Train a small Basra policy with masked PPO, then play it through the bot protocol.

Training needs ``pip install 'basra[ppo]'`` (Stable-Baselines3's sb3-contrib, with
PyTorch); playing needs only numpy, because the trained network is saved as plain arrays
(``.npz``) and run here without PyTorch, so the bot starts fast:

    python examples/train_ppo.py train --steps 60000 --out policy.npz
    basra arena --bots 'cmd:python examples/train_ppo.py play policy.npz,random' -n 40

The environment is ``gymnasium.make("basra/Basra-v0")``: the learner holds seat 0 of a
2-player egyptian game against ``--opponent`` (random by default), one deal per episode,
rewarded with the deal's score margin / 100. docs/envs.md reports what a short run gives.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np


def train(args: argparse.Namespace) -> None:
    import gymnasium as gym
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker

    import basra.envs  # noqa: F401  registers basra/Basra-v0

    torch.set_num_threads(1)
    env = gym.make("basra/Basra-v0", variant=args.variant, opponent=args.opponent,
                   reward="deal", reward_scale=0.01)
    env = ActionMasker(env, lambda e: e.unwrapped.action_masks())
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, n_steps=1024, batch_size=256,
                        learning_rate=3e-4, gamma=1.0, verbose=0)
    started = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    seconds = time.perf_counter() - started
    weights = {name: value.detach().cpu().numpy()
               for name, value in model.policy.state_dict().items()
               if name.startswith(("mlp_extractor.policy_net", "action_net"))}
    np.savez(args.out, **weights)
    print(json.dumps({"steps": args.steps, "seconds": round(seconds, 1),
                      "steps_per_second": round(args.steps / seconds), "out": args.out}))


class Policy:
    """The trained actor as numpy: two tanh layers, then the action logits."""

    def __init__(self, path: str) -> None:
        data = np.load(path)
        self.layers = [(data["mlp_extractor.policy_net.0.weight"],
                        data["mlp_extractor.policy_net.0.bias"]),
                       (data["mlp_extractor.policy_net.2.weight"],
                        data["mlp_extractor.policy_net.2.bias"])]
        self.head = (data["action_net.weight"], data["action_net.bias"])

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        x = observation
        for weight, bias in self.layers:
            x = np.tanh(weight @ x + bias)
        logits = self.head[0] @ x + self.head[1]
        logits[mask == 0] = -np.inf
        return int(np.argmax(logits))


def play(args: argparse.Namespace) -> None:
    """A bot speaking basra-bot/1 (docs/protocol.md) with the trained policy."""
    from basra.envs.game import choose_move, observation_from_json
    from basra.state import move_text

    policy = Policy(args.policy)
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "move":
            view = observation_from_json(message["observation"])
            print(json.dumps({"move": move_text(choose_move(view, policy))}), flush=True)
        elif message["type"] == "quit":
            break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    learn = commands.add_parser("train", help="train with masked PPO, save the actor")
    learn.add_argument("--steps", type=int, default=60_000)
    learn.add_argument("--variant", default="egyptian")
    learn.add_argument("--opponent", default="random")
    learn.add_argument("--seed", type=int, default=1)
    learn.add_argument("--out", default="policy.npz")
    bot = commands.add_parser("play", help="play through the bot protocol")
    bot.add_argument("policy")
    args = parser.parse_args()
    if args.command == "train":
        train(args)
    else:
        play(args)


if __name__ == "__main__":
    main()
