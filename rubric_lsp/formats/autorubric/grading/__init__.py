"""Grading autorubric files: rubrics (``rubric``), datasets (``agreement``), the criterion judge (``criteria``)."""
