"""Players: accounts, ratings and matchmaking, pure and without I/O.

The server and the store call these; they never call the server or the store.
"""
