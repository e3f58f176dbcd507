"""Grading promptfoo configs: model-graded assertions (``assertions``, ``model_graded``), ``select_best``, ``grader``."""
