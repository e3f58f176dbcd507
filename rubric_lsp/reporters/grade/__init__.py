"""rubric grade's outputs, each read from the result protocol (``engine/result.py``): JUnit and CSV
(``junit.py``, ``csv.py``, from ``rows.py``), the HTML report (``html.py``, ``html_tests.py``, ``templates/``)."""
