"""Where a judge reply can come from other than a live call: the provider's batch API (``batch.py``,
``batch_results.py``). The run file's replay and the verdict cache are read through ``store/``."""
