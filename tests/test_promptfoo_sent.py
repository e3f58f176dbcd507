"""What a promptfoo report keeps of each judge call: a long output as a mark, long texts cut."""

from rubric_lsp.formats.promptfoo.grading.sent import KEPT_CHARS, OUTPUT_KEPT_WHOLE, OUTPUT_MARK, kept, noting


def test_a_short_output_stays_in_the_messages_as_sent() -> None:
    messages = [{"role": "user", "content": "<Output>short answer</Output>"}]
    assert kept(messages, "short answer") == messages


def test_a_long_output_is_kept_as_a_mark_and_the_rest_of_the_prompt_whole() -> None:
    output = "x" * (OUTPUT_KEPT_WHOLE + 1)
    messages = [{"role": "user", "content": f"<Output>{output}</Output><Rubric>be kind</Rubric>"}]
    assert kept(messages, output) == [
        {"role": "user", "content": f"<Output>{OUTPUT_MARK}</Output><Rubric>be kind</Rubric>"}
    ]
    assert messages[0]["content"].startswith("<Output>xxx")  # the messages sent are not changed


def test_a_long_text_that_is_not_the_output_is_cut_saying_how_much_was_left_out() -> None:
    content = "y" * (KEPT_CHARS + 1234)
    (message,) = kept([{"role": "system", "content": content}])
    assert message["content"].startswith("y" * KEPT_CHARS)
    assert message["content"].endswith("1,234 more characters not kept here]")


def test_noting_records_each_built_prompt_in_call_order_and_returns_it_unchanged() -> None:
    sent: list[object] = []
    output = "z" * (OUTPUT_KEPT_WHOLE * 2)
    full = [{"role": "user", "content": output}]
    assert noting(lambda: full, sent, output)() is full
    assert noting(lambda: [{"role": "user", "content": "second"}], sent)() == [{"role": "user", "content": "second"}]
    assert sent == [[{"role": "user", "content": OUTPUT_MARK}], [{"role": "user", "content": "second"}]]
