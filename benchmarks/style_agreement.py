"""How often each level's plays are the choice of each style the master reads.

Plays matches (2-player egyptian) of ``--player`` against ``--against`` and, for every
finished batch, checks ``--player``'s plays (its hand then known) against each style of
:data:`basra.bots.reading.STYLES` (:func:`basra.fast.core.play_agreement`): how many
plays the style tells apart from other moves, and how many of them it would have played.
The master reads a seat as a style from 95% of at least 8 such plays
(``SearchSettings.read_after``). For each threshold of ``--read-after``, it also counts
at how many of ``--against``'s decisions a reader with that threshold
(:class:`basra.bots.reading.StyleReader`) reads ``--player`` as each style, or as none::

    python benchmarks/style_agreement.py --player expert --against greedy --matches 20
    python benchmarks/style_agreement.py --player master --against greedy --matches 10 \
        --read-after 6,12

``--player old-master`` is the master before the compiled search, emulated as
``benchmarks/master_versions.py --old-samples`` plays it (2,936 samples a move by
default); ``--policies`` counts the agreement of other rollout policies
(:func:`basra.fast.kernels.policy_move`) with the player's plays too, e.g. to choose the
policy a seat that plays no level's style is best modelled by::

    python benchmarks/style_agreement.py --player old-master --against expert \
        --matches 12 --policies 1,3,4
"""

from __future__ import annotations

import argparse
import json
import sys

from harness import stamp
from master_versions import OLD_SAMPLES, old_master
from master_versions import build as build_side
from rich.progress import track

from basra import fast
from basra.bots import Bot, close_bot, make_bot
from basra.bots.master import MasterBot
from basra.bots.reading import LEVEL_STYLES, MIN_PLAYS, STYLES, StyleReader
from basra.match import Match
from basra.observe import observe
from basra.rules import make_rules

NAMES = {style: level for level, style in LEVEL_STYLES.items()}
POLICIES = (1, 2, 3, 4)
"""The rollout policies that choose by value (:func:`basra.fast.kernels.policy_move`),
so that a play can agree with them."""


def build(level: str, seed: int, samples: int, old_samples: int) -> Bot:
    if level == "master":  # a fixed budget: the same plays on any machine
        return MasterBot(seed, samples=samples)
    if level == "old-master":
        return build_side(old_master(old_samples), seed)
    return make_bot(level, seed)


def numbers(text: str, what: str) -> list[int]:
    """Whole numbers separated by commas; SystemExit (usage, 2) naming ``what`` else."""
    try:
        return [int(n) for n in text.split(",")]
    except ValueError:
        print(f"{what}: expected whole numbers separated by commas, got {text!r}",
              file=sys.stderr)
        raise SystemExit(2) from None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--player", default="expert",
                        help="the level whose plays are read (or old-master)")
    parser.add_argument("--against", default="greedy")
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--samples", type=int, default=3000,
                        help="a master's samples a move")
    parser.add_argument("--old-samples", type=int, default=OLD_SAMPLES,
                        help="the old master's samples a move (default %(default)s)")
    parser.add_argument("--read-after", default=str(MIN_PLAYS),
                        help="reader thresholds, comma-separated (default %(default)s)")
    parser.add_argument("--policies", default=",".join(map(str, STYLES)),
                        help="rollout policies whose agreement is counted, comma-separated "
                             "(default: the styles read, %(default)s)")
    args = parser.parse_args(argv)
    if not fast.available():
        raise SystemExit("the compiled path is not available (numba missing)")
    rules = make_rules("egyptian")
    thresholds = numbers(args.read_after, "--read-after")
    policies = tuple(numbers(args.policies, "--policies"))
    if bad := [p for p in policies if p not in POLICIES]:
        print(f"--policies: {bad[0]} is no rollout policy; expected some of "
              f"{', '.join(map(str, POLICIES))}", file=sys.stderr)
        raise SystemExit(2)
    counts = {style: [0, 0] for style in policies}
    read_as: dict[int, dict[str, int]] = {n: {} for n in thresholds}
    for seed in track(range(args.matches), description="matches", transient=True):
        bots = [build(args.player, 2 * seed, args.samples, args.old_samples),
                build(args.against, 2 * seed + 1, args.samples, args.old_samples)]
        match = Match(rules, seed)
        reader = StyleReader()  # as the master reads
        counter = StyleReader(styles=policies)
        try:
            while not match.is_over:
                seat = match.state.to_play
                view = observe(match, seat)
                if seat == 1:  # the other seat reads seat 0's finished batches
                    reader.observe(view)
                    counter.observe(view)
                    for n in thresholds:
                        reader.min_plays = n
                        name = NAMES.get(reader.style(0) or 0, "none")
                        read_as[n][name] = read_as[n].get(name, 0) + 1
                match.play(bots[seat].choose(view))
        finally:
            for bot in bots:
                close_bot(bot)
        for style in policies:
            told, agreed = counter.plays(0, style)
            counts[style][0] += told
            counts[style][1] += agreed
    print(json.dumps({
        **stamp("style_agreement.py"), "player": args.player, "against": args.against,
        "matches": args.matches,
        "styles": {NAMES.get(s, f"policy {s}"): {"told_apart": t, "agreed": a,
                               "share": round(a / t, 4) if t else None}
                   for s, (t, a) in counts.items()},
        "decisions_read_as": {str(n): found for n, found in read_as.items()},
    }))


if __name__ == "__main__":
    main()
