"""A small Rubrics task document shared by the rubrics-task rule and convert tests."""

# A small task in the documented shape: one turn, two criteria, two rated responses.
TASK = """\
{
  "task_id": "t1",
  "project": "p1",
  "status": "completed",
  "created_at": "2025-01-01T00:00:00Z",
  "threads": [
    {
      "id": "thread_0",
      "turns": [
        {
          "id": "turn_0",
          "messages": [
            {"role": "user", "source_id": "user", "content": {"text": "List three primes."}, "annotations": []},
            {
              "role": "assistant",
              "source_id": "model_a",
              "content": {"text": "2, 3, 5"},
              "annotations": [
                {"id": "rubric_0_criteria_0_rating", "title": "Lists three numbers.", "value": "no_issues", "metadata": {"criteria": "rubric_0_criteria_0"}},
                {"id": "rubric_0_criteria_1_rating", "title": "All numbers are prime.", "value": "no_issues", "metadata": {"criteria": "rubric_0_criteria_1"}}
              ]
            },
            {
              "role": "assistant",
              "source_id": "model_b",
              "content": {"text": "1, 2, 3"},
              "annotations": [
                {"id": "rubric_0_criteria_0_rating", "title": "Lists three numbers.", "value": "no_issues", "metadata": {"criteria": "rubric_0_criteria_0"}},
                {"id": "rubric_0_criteria_1_rating", "title": "All numbers are prime.", "value": "major_issues", "metadata": {"criteria": "rubric_0_criteria_1"}}
              ]
            }
          ],
          "annotations": [
            {"key": "selected_model_id", "value": "model_a"},
            {"key": "rubric_0_criteria_0", "title": "Lists three numbers.", "value": "objective"},
            {"key": "rubric_0_criteria_1", "title": "All numbers are prime.", "value": "implicit"}
          ]
        }
      ],
      "annotations": []
    }
  ]
}
"""

RATING_B1 = '{"id": "rubric_0_criteria_1_rating", "title": "All numbers are prime.", "value": "major_issues", "metadata": {"criteria": "rubric_0_criteria_1"}}'
