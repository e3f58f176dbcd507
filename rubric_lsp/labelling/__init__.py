"""Labelling: people's verdicts on a file's items, given on a page and written where the format keeps them
(docs/labelling.md).

``hook.py`` is what a format implements (``Format.labelling``): its items, its units in its own verdict
words, and how a label is written into its files. The rest is format-neutral: the labels log
(``log.py``), labels files (``table.py``), a labelling session (``session.py``), what to label next and how
many more (``planning.py``, ``sample_size.py``) and the page (``page/``).
"""
