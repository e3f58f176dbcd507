"""promptfoo 0.123.1's grading prompts, verbatim (what its graders send to the judge).

Copied from promptfoo 0.123.1 (``src/prompts/grading.ts``, ``src/matchers/llmGrading.ts``: the
``dedent``-ed template literals evaluated, as the published package holds them), MIT licence,
Copyright (c) 2023 Ian Webster. Kept as data so the judge sees what promptfoo's judge sees;
``tests/data/promptfoo-recorded/`` holds requests recorded from promptfoo 0.123.1 itself that
pin these byte for byte.

The chat prompts are JSON text (a list of ``{role, content}``) whose strings promptfoo renders
with Nunjucks one by one; the g-eval prompts are plain text rendered whole and sent as one
user message.
"""

from __future__ import annotations

OWNER_VERSION = "0.123.1"

# llm-rubric (system + user)
DEFAULT_GRADING_PROMPT = '[{"role":"system","content":"You are grading output according to a user-specified rubric. If the statement in the rubric is true, then the output passes the test. You respond with a JSON object with this structure: {reason: string, pass: boolean, score: number}\\n\\nExamples:\\n\\n<Output>Hello world</Output>\\n<Rubric>Content contains a greeting</Rubric>\\n{\\"reason\\": \\"the content contains the word \'Hello\'\\", \\"pass\\": true, \\"score\\": 1.0}\\n\\n<Output>Avast ye swabs, repel the invaders!</Output>\\n<Rubric>Does not speak like a pirate</Rubric>\\n{\\"reason\\": \\"\'avast ye\' is a common pirate term\\", \\"pass\\": false, \\"score\\": 0.0}"},{"role":"user","content":"<Output>\\n{{ output }}\\n</Output>\\n<Rubric>\\n{{ rubric }}\\n</Rubric>"}]'

# factuality (system + user)
PROMPTFOO_FACTUALITY_PROMPT = '[{"role":"system","content":"You are a precise factuality evaluator that compares a submitted answer to an expert answer. \\n\\nYour task is to analyze the factual content while ignoring differences in style, grammar, or punctuation.\\nYou must categorize the submission into one of these options:\\n\\n(A) The submitted answer is a subset of the expert answer and is fully consistent with it.\\n(B) The submitted answer is a superset of the expert answer and is fully consistent with it.\\n(C) The submitted answer contains all the same details as the expert answer.\\n(D) There is a disagreement between the submitted answer and the expert answer.\\n(E) The answers differ, but these differences don\'t matter from the perspective of factuality.\\n\\nRespond ONLY with a JSON object in this format:\\n{\\n  \\"category\\": \\"[LETTER]\\",\\n  \\"reason\\": \\"[DETAILED EXPLANATION]\\"\\n}\\n\\n- The \\"category\\" must be a single letter A, B, C, D, or E.\\n- Provide a clear, detailed explanation in the \\"reason\\" field.\\n- Your response must be valid JSON with no additional text."},{"role":"user","content":"I need you to compare these answers:\\n\\n<question>\\n{{input}}\\n</question>\\n\\n<expert_answer>\\n{{ideal}}\\n</expert_answer>\\n\\n<submitted_answer>\\n{{completion}}\\n</submitted_answer>\\n\\nPlease analyze the factual relationship between these answers according to the categories you\'ve been given."}]'

# model-graded-closedqa (one system message)
OPENAI_CLOSED_QA_PROMPT = '[{"role":"system","content":"You are assessing a submitted answer on a given task based on a criterion. Here is the data:\\n[BEGIN DATA]\\n***\\n[Task]: {{input}}\\n***\\n[Submission]: {{completion}}\\n***\\n[Criterion]: {{criteria}}\\n***\\n[END DATA]\\nDoes the submission meet the criterion? First, write out in a step by step manner your reasoning about the criterion to be sure that your conclusion is correct. Avoid simply stating the correct answers at the outset. Then print only the single character \\"Y\\" or \\"N\\" (without quotes or punctuation) on its own line corresponding to the correct answer. At the end, repeat just the letter again by itself on a new line.\\n\\n    Reasoning:"}]'

# select-best (one system message)
SELECT_BEST_PROMPT = '[{"role":"system","content":"You are comparing multiple pieces of text to see which best fits the following criteria: {{criteria}}\\n\\nHere are the pieces of text:\\n\\n{% for output in outputs %}\\n<Text index=\\"{{ loop.index0 }}\\">\\n{{ output }}\\n</Text>\\n{% endfor %}\\n\\nOutput the index of the text that best fits the criteria. You must output a single integer."}]'

# g-eval, first call: the evaluation steps
GEVAL_PROMPT_STEPS = '\nGiven evaluation criteria that outline how you should judge a piece of text, generate 3-4 concise evaluation steps applicable to any text based on the criteria below and designed to check whether the criteria are satisfied by the text.\n\n**EVALUATION CRITERIA**\n{{criteria}}\n\n**OUTPUT FORMAT**\nIMPORTANT:\n- Return output ONLY as a minified JSON object (no code fences).\n- The JSON object must contain a single key, "steps", whose value is a list of strings.\n- Each string must represent one evaluation step.\n- Do NOT include any explanations, commentary, extra text, or additional formatting.\n\nFormat:\n{"steps": <list_of_strings>}\n\nExample:\n{"steps":["<Evaluation Step 1>","<Evaluation Step 2>","<Evaluation Step 3>","<Evaluation Step 4>"]}\n\nHere are the 3-4 concise evaluation steps, formatted as required in a minified JSON:\nJSON:\n'

# g-eval, second call: the score
GEVAL_PROMPT_EVALUATE = '\nYou will be given one Reply for a Prompt below. Your task is to rate the Reply on one metric.\nPlease make sure you read and understand these instructions carefully. Please keep this document open while reviewing, and refer to it as needed.\n\n**Evaluation Criteria**\n{{criteria}}\n\n**Evaluation Steps**\n- {{steps}}\nGiven the evaluation steps, return a JSON with two keys: \n  1) a "score" key that MUST be an integer from 0 to {{maxScore}}, where {{maxScore}} indicates that the condition described by the Evaluation Criteria is fully and clearly observed in the Reply according to the Evaluation Steps, and 0 indicates that it is not observed at all;\n  2) a "reason" key, a reason for the given score, but DO NOT QUOTE THE SCORE in your reason. Please mention specific information from Prompt and Reply in your reason, but be very concise with it!\n\n**Prompt**\n{{input}}\n\n**Reply**\n{{output}}\n\n**OUTPUT FORMAT**\nIMPORTANT: \n- Return output ONLY as a minified JSON object (no code fences).\n- The JSON object must contain exactly two keys: "score" and "reason".\n- No additional words, explanations, or formatting are needed.\n- Absolutely no additional text, explanations, line breaks, or formatting outside the JSON object are allowed.\n\nExample JSON:\n{"score":0,"reason":"The text of reply does not follow the evaluation criteria provided."}\n\nHere is the final evaluation in the required minified JSON format:\nJSON:\n'
