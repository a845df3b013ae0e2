"""A five-shot block shared by the prefix-sharing tests."""

SHOTS = "".join(
    f"Q: Which of these is a {kind}? A. {a} B. {b}\nA: {answer}\n\n"
    for kind, a, b, answer in [
        ("fruit", "apple", "brick", "A"),
        ("metal", "wool", "iron", "B"),
        ("bird", "sparrow", "trout", "A"),
        ("tool", "cloud", "hammer", "B"),
        ("colour", "green", "seven", "A"),
    ]
)
"""Five solved questions (about 110 tokens): the block that opens every few-shot question."""
