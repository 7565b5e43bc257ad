"""Regenerate the shipped puzzle set, src/basra/study/puzzles.json.

Plays master-against-master matches (one search process per bot, a short think time so it
fits a shared machine), mines every record for puzzles (``basra.study.puzzles.mine_record``),
verifies each with the exact solver and writes the set sorted by rating.

    nice -n 10 python benchmarks/make_puzzles.py --matches 100 --think-ms 100
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from basra.arena.duplicate import play_bot_match
from basra.record import Player, match_record
from basra.rules import make_rules
from basra.study.puzzles import MIN_GAP, Puzzle, dump_puzzles, mine_record, verify_puzzle

OUT = Path(__file__).resolve().parent.parent / "src" / "basra" / "study" / "puzzles.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument("--think-ms", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variants", default="egyptian,jawaker")
    parser.add_argument("--min-gap", type=float, default=MIN_GAP)
    parser.add_argument("--at-least", type=int, default=300,
                        help="Keep playing matches until this many puzzles are found.")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    variants = args.variants.split(",")
    found: dict[str, Puzzle] = {}
    started = time.perf_counter()
    number = 0
    while number < args.matches or len(found) < args.at_least:
        variant = variants[number % len(variants)]
        seed = args.seed + number
        rules = make_rules(variant, 2)
        match, _ = play_bot_match(rules, variant, seed, ["master", "master"],
                                  [seed * 10, seed * 10 + 1], think_ms=args.think_ms,
                                  workers=1, max_deals=30)
        record = match_record(match, [Player("master", "bot"), Player("master", "bot")])
        for puzzle in mine_record(record, f"{variant} master match, seed {seed}",
                                  min_gap=args.min_gap):
            verify_puzzle(puzzle, args.min_gap)
            found.setdefault(puzzle.id, puzzle)
        number += 1
        print(f"{number} matches, {len(found)} puzzles, "
              f"{time.perf_counter() - started:.0f} s", flush=True)
    puzzles = sorted(found.values(), key=lambda p: (p.rating, p.id))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(dump_puzzles(puzzles), encoding="utf-8")
    print(f"wrote {len(puzzles)} puzzles from {number} matches to {args.out}")


if __name__ == "__main__":
    main()
