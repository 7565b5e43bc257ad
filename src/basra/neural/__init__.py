"""The learned evaluator: a small network over a seat's observation tensor that gives each
legal move a policy logit and an expected deal margin, played in numpy
(:mod:`basra.neural.network`), and the tensor it reads (:mod:`basra.neural.tensor`).
Training it needs ``basra[train]`` (:mod:`basra.train`); playing it needs nothing more
than the package. docs/neural.md says how it was trained and how it plays."""
