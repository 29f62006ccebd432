"""Strategies: the protocol, named strategies and the spec parser (``"hold:25"``, ``"file:P"``)."""
