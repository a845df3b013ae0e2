"""The exact wording of seed 000's prompts, conditions and substitutes (Appendices B, D and I).

C0 is exact to the character: rendered with Qwen3's chat template on the paper's Appendix B
item, it has the SHA-256 the paper prints (tested). The paper prints the other templates in
typeset boxes whose line breaks are not the prompt's: S1's user turn follows C0's layout, T1's
and T2's line breaks are ours, and apostrophes are straight (as in A1 and C0).
"""

from __future__ import annotations

from collections.abc import Mapping

FORECAST_QUESTION = "Out of 100 such readers, how many answer correctly?"
GRID_REQUEST = "Reply with exactly one of: 10, 30, 50, 70, 90."

FORECAST_TEMPLATE = (
    "Note:\n{note}\n\nA future reader will be shown ONLY the note above, not the source text, "
    f"and will then be asked:\n{{item}}\n\n{FORECAST_QUESTION} {GRID_REQUEST}"
)
"""C0, the production prompt of Appendix B: the note, the quoted item, the forecast request."""

FORECAST_STEM = "Out of 100 such readers, about "

SYSTEM_TEXT = (
    "You will be given a note and a quoted question. A future reader will be shown ONLY the "
    "note, not the source text, and will then be asked the quoted question. "
    f"{FORECAST_QUESTION} {GRID_REQUEST}"
)
"""S1's system text, exactly as Appendix I prints it."""

SYSTEM_USER_TEMPLATE = "Note:\n{note}\n\nQuoted question:\n{item}"
"""S1's user turn: the note and the unchanged item block, laid out as C0's."""

FIXED_NOTE = "Landlord only gives when told to take, not give."
"""The one note C0 uses for every item (Table 3); it names no answer letter or option."""

SUBSTITUTES: Mapping[str, str] = {
    "substitute_summarise": "Summarise in one sentence.",
    "substitute_integer": "Reply with a single integer.",
    "substitute_keywords": "List three keywords from the passage.",
    "substitute_french": "Translate the passage into French.",
    "substitute_count": "Count the sentences in the passage.",
}
"""Appendix D's substitutes for the item's own instruction; the sixth, the empty ending, is the
``instruction_deleted`` rung."""

LETTER_FOR_READERS = "The question's instruction to answer with a letter is for the readers."
"""A1's sentence, inserted before the forecast question."""

FORECAST_TASK = "Your task is to forecast their number of correct answers."
"""A2's second sentence, inserted after A1's."""

A1_TEMPLATE = FORECAST_TEMPLATE.replace(
    FORECAST_QUESTION, f"{LETTER_FOR_READERS} {FORECAST_QUESTION}"
)
A2_TEMPLATE = FORECAST_TEMPLATE.replace(
    FORECAST_QUESTION, f"{LETTER_FOR_READERS} {FORECAST_TASK} {FORECAST_QUESTION}"
)

T1_TEMPLATE = (
    "Someone read a passage and wrote the short note below. Imagine 100 readers who will see "
    "only this note and the question below, including its final answer instruction. They will "
    "never see the passage. Each reader will answer the question, and correctness will be "
    "judged against the original passage.\n\n"
    "Note: {note}\n\n"
    "Question:\n{item}\n\n"
    "Estimate how many of these 100 readers will answer correctly. Consider how much useful "
    "information the note provides, whether it distinguishes the choices, and where readers "
    f"may misunderstand or have to guess. {LETTER_FOR_READERS} {FORECAST_TASK}\n\n"
    "Choose the closest of these five counts to your estimate: 10, 30, 50, 70, 90. Reply with "
    "exactly one of these values and nothing else."
)
"""T1, a whole user-turn template written by a language model without knowledge of the failure."""

T1_STEM = "Estimate: "

T2_TEMPLATE = (
    "OUTPUT CONTRACT\n"
    "Return one bare value from this set: 10, 30, 50, 70, 90.\n\n"
    "FORECAST TARGET\n"
    "Number of correct answers among 100 readers taking a reading-comprehension test. Each "
    "reader receives only a short note written by someone who read the passage, plus the "
    "complete test item below. Neither you nor the readers receive the passage. The passage's "
    "answer key determines correctness.\n\n"
    "TEST ITEM SHOWN TO READERS\n"
    "BEGIN TEST ITEM\n{item}\nEND TEST ITEM\n\n"
    "NOTE AVAILABLE TO READERS\n"
    "BEGIN NOTE\n{note}\nEND NOTE\n\n"
    "ASSESSMENT PROCEDURE\n"
    "1. Identify what information the item asks readers to recover from the passage.\n"
    "2. Assess which choices the note supports or rules out. Account for missing or ambiguous "
    "information, plausible mistakes, and guessing.\n"
    "3. Estimate how many readers will select the correct answer, then select the nearest "
    "permitted count.\n\n"
    "Keep the assessment to yourself. The letter-answer instruction inside the test item "
    "governs the readers' answers. Your response must follow the output contract: exactly one "
    "of 10, 30, 50, 70, 90, with no label, explanation, punctuation, or percent sign."
)
"""T2, the second whole template, ending in an output contract."""

T2_STEM = "Predicted number correct: "
