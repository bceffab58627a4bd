"""Name the interface's closed vocabularies once, each word through gettext.

A template that shows a value from a small fixed set (a rating, a session mode, the bound of
a request in the simulator) looks its word up here by that value, ``labels.RATINGS[choice]``,
instead of building a message id at run time, which ``pybabel extract`` could not see. The
words are lazy: each is translated when it is shown, in the page's locale.
"""

from __future__ import annotations

from flask_babel import lazy_gettext as _l
from flask_babel import lazy_pgettext as _lp
from flask_babel.speaklater import LazyString

from quizsvc.review.ratings import ReviewRating, SelfRating

# The pages every page links to: (endpoint, word).
NAV: tuple[tuple[str, LazyString], ...] = (
    ('web.home', _l('Home')),
    ('web.lessons', _l('Lesson')),
    ('web.quiz', _l('Closed-book quiz')),
    ('web.review', _l('Review')),
    ('web.flashcards', _l('Flashcards')),
    ('web.simulator', _l('Simulator')),
    ('web.progress_page', _l('Progress')),
    ('web.browse_home', _l('Browse')),
    ('web.link', _l('Link another browser')),
)

# Pages reached from a navigation entry that the entry names as the current place.
NAV_PLACE: dict[str, str] = {
    'web.browse_lesson': 'web.browse_home',
    'web.browse_item': 'web.browse_home',
}

# The three kinds of session (quizsvc.study.sessions.MODES) and their start pages' intros.
MODES: dict[str, LazyString] = {
    'quiz': _l('Closed-book quiz'),
    'review': _l('Review'),
    'flashcards': _l('Flashcards'),
}

MODE_INTROS: dict[str, LazyString] = {
    'quiz': _l(
        'One question at a time; the lesson is not on screen. After a wrong answer you first '
        'write down why, then the answer and the worked solution appear.'),
    'review': _l(
        'Due reviews first, then new questions; every review of a numeric question draws fresh '
        'numbers.'),
    'flashcards': _l(
        'Read the front, recall, reveal the back, then rate yourself with the four buttons.'),
}

# The four FSRS ratings (quizsvc.review.ratings.ReviewRating), by word, as the buttons say them.
RATINGS: dict[str, LazyString] = {
    ReviewRating.AGAIN.word: _l('Again'),
    ReviewRating.HARD.word: _l('Hard'),
    ReviewRating.GOOD.word: _l('Good'),
    ReviewRating.EASY.word: _l('Easy'),
}
# The key that presses a rating's button on the attempt page: its fsrs number, 1..4.
RATING_KEYS: dict[str, int] = {rating.word: int(rating) for rating in ReviewRating}

# The four self-assessment levels (quizsvc.review.ratings.SelfRating), by number.
SELF_RATINGS: dict[int, LazyString] = {
    SelfRating.NOT_YET: _l('1 not yet'),
    SelfRating.SHAKY: _l('2 shaky'),
    SelfRating.MOSTLY: _l('3 mostly'),
    SelfRating.SOLID: _l('4 solid'),
}

# The simulator's bar segments.
SEGMENTS: dict[str, LazyString] = {
    'computed': _l('computed before the step (C)'),
    'scheduled': _l('scheduled this step'),
    'drafts': _l('drafts kept'),
    'rolled': _l('drafts rolled back'),
    'unscheduled': _l('demand left unscheduled'),
}

# What bound a request's share in a step (quizsvc.web.simulator).
BOUNDS: dict[str, LazyString] = {
    'demand': _l('its demand'),
    'threshold': _l('long-prefill threshold'),
    'token_budget': _l('token_budget'),
    'input_budget': _l('input_budget − draft_slots'),
    'max_model_len': _l('max_model_len room'),
    'kv': _l('KV cache'),
    'seats': _l('max_num_seqs seats'),
    'preempted': _l('preempted'),
    'skipped': _l('skipped'),
    'padding': _l('padding to 1 + K'),
    'not eligible': _l('not eligible'),
}

# Where a lesson's FSRS parameters came from.
PARAM_SOURCES: dict[str, LazyString] = {
    'default': _l("fsrs's default parameters"),
    'everyone': _l("fitted to all learners' reviews"),
    'own': _l('fitted to your own reviews'),
}

# The calibration said in words (quizsvc.review.calibration.in_words).
CALIBRATION_VERDICTS: dict[str, LazyString] = {
    'well': _l('Your self-assessments predict your closed-book results well.'),
    'fairly': _l('Your self-assessments roughly predict your closed-book results.'),
    'poorly': _l('Your self-assessments say little about your closed-book results.'),
}

# The languages an Anki package can be made in.
ANKI_LANGS: dict[str, LazyString] = {
    'zh': _l('Chinese cards'),
    'en': _l('English cards'),
    'both': _l('Chinese and English cards'),
}

# The kinds of note an Anki package holds.
ANKI_KINDS: dict[str, LazyString] = {
    'flashcard': _l('Flashcards'),
    'glossary': _l('Glossary terms'),
    'concept-check': _l('Concept checks'),
    'worked-example': _l('Worked examples (fixed numbers)'),
}

# What a question page may say about how the learner got there.
NOTICES: dict[str, LazyString] = {
    'answered_elsewhere': _l('That question was answered in another tab; here is the next one.'),
}

# The simulator's inputs, by the last part of their name (``A.num_tokens`` -> ``num_tokens``).
FIELD_LABELS: dict[str, LazyString] = {
    'token_budget': _l('token_budget (max_num_scheduled_tokens)'),
    'input_budget': _l('input_budget (max_num_batched_tokens)'),
    'long_prefill_token_threshold': _l('long_prefill_token_threshold (0 = off)'),
    'block_size': _l('block_size'),
    'num_gpu_blocks': _l('num_gpu_blocks (one is the null block)'),
    'max_model_len': _l('max_model_len'),
    'num_speculative_tokens': _l('K (num_speculative_tokens)'),
    'spec_method': _l('spec_method'),
    'accepted': _l('accepted drafts per step'),
    'scheduling': _l('scheduling'),
    'steps_after': _l('steps to show after the target step'),
    'state': _l('state'),
    'num_tokens': _l('N (num_tokens)'),
    'num_computed_tokens': _l('C (num_computed_tokens)'),
    'drafts': _l('drafts'),
}

# The words simulator.js draws with (``t(key)``), given to it in the page's language.
SIMULATOR_SCRIPT: dict[str, LazyString] = {
    'col_bound': _l('Bound by'),
    'col_c': _l('C before → after schedule → after update'),
    'col_demand': _l('Demand'),
    'col_gap': _l('N − C (after update)'),
    'col_loop': _l('Loop'),
    'col_n': _l('N before → after update'),
    'col_request': _l('Request'),
    'col_scheduled': _l('Scheduled (drafts)'),
    'col_status': _l('Status after update'),
    'legend': _l('Legend'),
    'no_schedule': _l('schedule() was not called in this step'),
    'none': _l('—'),
    'sim_after': _l('The steps after'),
    'sim_allocation': _l('Allocation'),
    'sim_async_note': _l(
        'Asynchronous scheduling: the same arrivals and outcomes run with one step in flight. C '
        'already counts in-flight positions and outputs are committed a step later, so N and C at'
        ' the target step differ from the ones you set (the invariant is N + ph − C = 1).'),
    'sim_errors': _l('These settings cannot be used'),
    'sim_filler': _l('filler (warm-up only)'),
    'note_paren': _l(' (%(note)s)'),  # the pages' bracketed note: full-width in Chinese
    'sim_mismatch': _l(
        'The warm-up did not build exactly the state you set (often: too few KV blocks, or '
        'padding); the table shows what the scheduler actually did:'),
    'sim_of_budget': _l('token_budget'),
    'sim_picture': _l('Picture of the step'),
    'sim_result': _l('Result'),
    'sim_scenario': _l('The scenario sent to the ledger (FORMAT.md)'),
    'sim_stale': _l(
        'Out of date: the settings above have errors; below is the result of the last settings '
        'that could run.'),
    'sim_total': _l('total'),
    'sim_warmup': _l('Warm-up steps (they build the state above)'),
    'sim_target_heading': _l('Target step T (engine step %(step)s) — the step you set up'),
    'sim_step_heading': _l('Step %(name)s (engine step %(step)s)'),
    'sim_summary': _l(
        'Target step T: %(allocation)s — total %(total)s / token_budget %(budget)s'),
    'sim_negative_gap': _l(
        'N − C is negative in some rows. Under async scheduling C already counts the step still'
        " in flight, its token and its drafts, while N grows only when that step's output is "
        'processed, one step later. The books still balance: after each update N + ph − C = 1, '
        'where ph (num_output_placeholders) counts the positions in flight; with K drafts in '
        'flight ph = 1 + K, so N − C = −K.'),
    'sim_no_step': _l('the trace has no step %(step)s'),
    'sim_not_alive': _l('%(request)s is not alive at the target step'),
    'sim_differs': _l('%(request)s.%(key)s is %(got)s, not %(want)s'),
    **{'seg_' + name: word for name, word in SEGMENTS.items()},
    **{'bound_' + name: word for name, word in BOUNDS.items()},
}


# What the question page says under a box where it words the grader's reason otherwise;
# a reason not named here is said by its own template (quizsvc.http.language.message).
ANSWER_REASONS: dict[str, LazyString] = {
    'not_integer': _lp('a single box', 'one whole number per box'),
    'too_large': _l('too large: at most 18 digits'),
    'empty': _l('nothing entered yet'),
    'vector_length': _l('expected %(length)s numbers, got %(got)s'),
    'not_a_list': _l('one whole number per box'),
    'unknown_option': _l('not one of the options'),
    'one_option': _l('choose one option'),
    'order_incomplete': _l('put every item in the order'),
}


def field_label(name: str) -> LazyString | str:
    """Return the label of simulator input ``name`` (``A.num_tokens`` -> its N label)."""
    key = name.split(".")[-1]
    return FIELD_LABELS.get(key, key)

# An item's state in the card browser (quizsvc.study.browse.STATES).
ITEM_STATUSES: dict[str, LazyString] = {
    'new': _l('New'),
    'due': _l('Due'),
    'scheduled': _l('Scheduled'),
    'suspended': _l('Suspended'),
    'buried': _l('Buried until tomorrow'),
}

# The kinds of question (quizsvc.bank.kinds.KINDS), as the card browser names them.
QUESTION_KINDS: dict[str, LazyString] = {
    'numeric': _l('Numeric'),
    'choice': _l('Single choice'),
    'multi': _l('Multiple choice'),
    'order': _l('Order'),
    'anchor': _l('Source line'),
    'flashcard': _l('Flashcard'),
    'explain': _l('Explanation'),
}

# Why a learner reports a problem with a question (quizsvc.study.reports.REASONS).
REPORT_REASONS: dict[str, LazyString] = {
    'wrong_answer': _l('The answer or grading looks wrong'),
    'unclear': _l('The question is unclear'),
    'typo': _l('A typo or a translation problem'),
    'broken': _l('Something on the page is broken'),
    'other': _l('Something else'),
}

# What the card browser confirms after a suspend or bury button (quizsvc.web.pages.browse).
HOLD_DONE: dict[str, LazyString] = {
    'suspend': _l('Suspended: it will not be served until you unsuspend it.'),
    'unsuspend': _l('Unsuspended: it will be served again.'),
    'bury': _l('Buried until tomorrow.'),
    'unbury': _l('Unburied: it can be served today.'),
}
