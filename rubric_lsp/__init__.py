"""rubric-lsp: lint, edit and grade LLM-as-a-judge rubric files."""

__version__ = "0.1.0"
