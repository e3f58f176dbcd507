"""The language server (``rubric-lsp``): a thin LSP face over the lint core and the grading engine.

Nothing here decides what is wrong with a file or how a response is judged; modules
only translate between LSP and :mod:`rubric_lsp.lint` / :mod:`rubric_lsp.engine`.
"""
