"""Training the learned evaluator (:mod:`basra.neural`): positions from the master's
search and from self-play (:mod:`basra.train.data`), the network in JAX
(:mod:`basra.train.model`) and the command that runs it all (``python -m basra.train``).
Needs ``pip install 'basra[train]'`` (JAX and Optax, CPU)."""
