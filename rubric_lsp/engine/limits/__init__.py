"""How fast a run may ask: the adaptive concurrency limit (``rate_limit.py``) and the one-at-a-time
send gate (``send_gate.py``)."""
