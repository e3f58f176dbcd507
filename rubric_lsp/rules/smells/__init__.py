"""Rubric smells: criteria that judges and people apply inconsistently (docs/smells.md).

Format-neutral. Each format hands its criterion texts over through one hook (``Format.criteria``,
:mod:`.criteria`); the detection (:mod:`.wording`, :mod:`.structure`, :mod:`.rubric`) reads only those texts,
and the rules RL301-RL311 (:mod:`.rules`) report what it finds. Nothing here is imported on the default lint
path: the lint loads it when a smell rule is selected or the file is open in an editor.
"""
