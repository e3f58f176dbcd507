"""Rules (codes, severities, docs) and the checkers that report them."""
