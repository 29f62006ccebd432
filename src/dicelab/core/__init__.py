"""The shared core: errors, storage, progress, statistics, backends and specs; no game."""
