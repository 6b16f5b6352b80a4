"""course_lib.exercises.quiz: every question accepts its answer, rejects each plausible wrong
answer with the explanation written for it, and says clearly what it takes."""

import pytest

from course_lib.exercises import quiz
from course_lib.exercises.quiz import Question, answer, ask, questions

QUESTIONS = questions()


def test_chapters_with_questions_have_three_to_five():
    chapters = {n.split(".")[0] for n in QUESTIONS}
    for chapter in chapters:
        assert 3 <= len(questions(chapter)) <= 5, chapter


@pytest.mark.parametrize("name", QUESTIONS)
def test_answer_accepted_and_wrong_answers_explained(name):
    q = ask(name)
    assert answer(name, q.answer).passed
    assert q.explanation in answer(name, q.answer).message
    for given, why in q.wrong.items():
        result = answer(name, given)
        assert result.status == "failed", (given, result)
        assert why in result.message
    assert "Answer with" in q._repr_markdown_()


@pytest.mark.parametrize("name", QUESTIONS)
def test_unanswered_is_not_attempted(name):
    assert answer(name, None).status == "not attempted"
    assert answer(name, ...).status == "not attempted"


@pytest.fixture
def demo():
    """Two questions registered for the test only, removed after it."""
    qs = [
        Question(
            "demo.choice",
            "Which gate keeps the cell?",
            answer="b",
            explanation="The forget gate scales $C_{t-1}$.",
            choices={"a": "input", "b": "forget", "c": "output"},
            wrong={"a": "It scales the candidate.", "c": "It scales the output."},
        ),
        Question(
            "demo.number",
            "How many parameters has a 3 x 4 linear layer with a bias?",
            answer=15,
            explanation="3 x 4 weights and 3 biases.",
            wrong={12: "The bias has 3 more."},
        ),
    ]
    quiz.register_questions(*qs)
    yield qs
    for q in qs:
        del quiz._QUESTIONS[q.name]


def test_choices_and_numbers(demo):
    assert answer("demo.choice", "B").passed
    assert answer("demo.choice", "(b)").passed
    assert "scales the candidate" in answer("demo.choice", "a").message
    assert answer("demo.number", 15.0).passed
    assert "3 more" in answer("demo.number", 12).message
    other = answer("demo.number", 7)
    assert other.status == "failed" and "3 x 4 weights" in other.message


def test_bad_answers_say_what_the_question_takes(demo):
    with pytest.raises(ValueError, match=r"one of \['a', 'b', 'c'\]"):
        answer("demo.choice", "d")
    with pytest.raises(ValueError, match="takes a number"):
        answer("demo.number", "fifteen")
    with pytest.raises(ValueError, match="did you mean 'demo.choice'"):
        ask("demo.choise")


def test_badly_written_questions_are_refused():
    with pytest.raises(ValueError, match="missing: \\['c'\\]"):
        quiz.register_questions(
            Question(
                "demo.bad", "?", "a", "why", {"a": "x", "b": "y", "c": "z"}, {"b": "no"}
            )
        )
    with pytest.raises(ValueError, match="plausible wrong number"):
        quiz.register_questions(Question("demo.bad", "?", 3.0, "why"))
    with pytest.raises(ValueError, match="lower-case letter"):
        quiz.register_questions(Question("demo.bad", "?", "A", "why", {"A": "x"}))
    assert "demo.bad" not in quiz._QUESTIONS
