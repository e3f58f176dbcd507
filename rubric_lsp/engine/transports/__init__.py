"""How a judge request reaches a provider: litellm (``litellm.py``), or a local OpenAI-compatible server
over aiohttp (``direct.py``)."""
