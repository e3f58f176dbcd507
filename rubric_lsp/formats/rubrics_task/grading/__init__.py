"""The Rubrics task's grading beyond its grader module: its calibration (``rubric calibrate TASK.json``)."""
