"""What the tests and the benchmarks share: real servers and services started as child
processes, a WebSocket client that plays a seat, browser pages, test positions.

Imported as ``tests.support`` from the repository root: pytest puts the root on
``sys.path`` (``pythonpath`` in ``pyproject.toml``), and the benchmarks run as modules
(``python -m benchmarks.capacity``).
"""
