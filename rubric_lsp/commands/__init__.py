"""The CLI's subcommands (thin shells over the core)."""
