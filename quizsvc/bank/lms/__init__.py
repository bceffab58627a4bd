"""Randomized exercises for an LMS: a teacher's chosen questions, N variants each, as Moodle
XML or a QTI 2.1 package, drawn at seeds the export records so it can be made again.

    exercises = exercise_set(bank, lesson_id, question_ids, n, seeds_from)
    moodle_xml(bank, exercises, lang)   # -> bytes of a Moodle XML file
    qti_package(bank, exercises, lang)  # -> bytes of a QTI 2.1 content package (.zip)

Variant seeds come from ``publishable_variants`` alone, in a range the service never
serves, so no learner here is shown a variant a class has in its LMS.
"""
