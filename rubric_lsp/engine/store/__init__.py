"""What the engine keeps on disk: the verdict cache, the run file and its lock, and the thread that commits
their rows (SQLite)."""
