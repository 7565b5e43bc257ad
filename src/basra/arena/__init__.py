"""Matches between bots: duplicate arenas, round-robin tournaments, the Ray runner."""
