"""Study: the analysis of played matches and the puzzles mined from them."""
