"""The labelling page: its server (``server.py``) and its one page (``label.html``, ``label.css``, ``label.js``)."""
