"""The question bank: authored questions, seed -> variant generators, and grading."""
