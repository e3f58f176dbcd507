"""Calibration: how far to trust a judge on each unit (criterion, assertion, grader), measured against
human labels and kept in a record beside the file (docs/calibration.md).

``stats`` is the pure arithmetic (no project imports: formats and faces both build on it);
``record`` reads and writes ``<file>.calibration.json`` and says what made a record stale.
"""
