"""An example Basra bot: a complete player for the ``basra-bot/1`` protocol.

It reads one JSON message per line on stdin and answers each ``move`` request with one
JSON line on stdout. Its play is simple: take the capture worth the most points (then the
most cards); with nothing to take, lay down the card worth least. Standard library only,
so it runs wherever Python does:

    basra simulate --bots 'cmd:python examples/bot_example.py,greedy' --matches 10
    basra play --opponents 'cmd:python examples/bot_example.py'

The protocol is described in docs/protocol.md.
"""

import json
import sys

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def card_points(card, rules):
    """The points a card scores: a card entry such as "10D" beats a rank entry such as "J"."""
    table = rules["card_points"]
    return table.get(card, table.get(card[:-1], 0))


def move_value(move, rules):
    """Bigger is better. Moves look like "7H" (lay 7H down) or "7H:3C+4H" (capture)."""
    card, _, captured = move.partition(":")
    if captured:
        taken = [card, *captured.split("+")]
        return (1, sum(card_points(c, rules) for c in taken), len(taken))
    # Laying a card down gives it away: prefer the fewest points, then the lowest rank.
    return (0, -card_points(card, rules), -RANKS.index(card[:-1]))


def choose(observation):
    """The move to play, one of observation["legal_moves"]."""
    rules = observation["rules"]
    return max(observation["legal_moves"], key=lambda move: move_value(move, rules))


def main():
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "move":
            answer = {"move": choose(message["observation"])}
            # flush: a pipe is block-buffered, and an answer stuck in a buffer is a timeout.
            print(json.dumps(answer), flush=True)
        elif message["type"] == "quit":
            break
        # "hello" needs no answer, and unknown message types are ignored.


if __name__ == "__main__":
    main()
