"""How a judge request reaches a provider: litellm (``via_litellm.py``), or a local OpenAI-compatible server
over its own HTTP/1.1 client (``direct.py``, ``http1.py``)."""
