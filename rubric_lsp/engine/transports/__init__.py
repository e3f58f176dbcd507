"""How a judge request reaches a provider: litellm (``via_litellm.py``), or a local OpenAI-compatible server
over aiohttp (``direct.py``)."""
