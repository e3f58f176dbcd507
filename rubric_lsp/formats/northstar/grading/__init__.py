"""Grading NorthStar files: an EvalRunRequest's LLM graders (``graders``, ``request_grader``)."""
