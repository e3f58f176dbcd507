"""``rubric review``: a rubric's criteria graded by the judge against a review rubric of our own (docs/review.md).

Format-neutral: the criteria come from ``Format.criteria`` (the texts the smell rules read), the questions from
:mod:`.questions` (one per smell, in the words of the labelling guide's definitions), and each criterion is one
judge question through the engine (``Judge.ask``: the verdict cache, the run's limits, the deadline), so a review
is cached, limited and refused like any grading. A judge failure is an error of the review, never a clean one.
The same grading, over a labelled set of criteria (:mod:`.labels`), measures the review against people
(``rubric review --calibrate``), through the calibration machinery.
"""
