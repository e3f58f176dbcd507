"""What rubric-lsp writes for machines and people: ``lint/`` holds rubric-lint's output formats,
one per module (as ruff's); ``xml.py`` the XML escaping they share with grading's JUnit export."""
