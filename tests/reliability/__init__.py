"""Reliability and security (issue 6): the service keeps working and loses nothing.

- ``test_fuzz_api``: schemathesis over every operation of ``/api/openapi.json``, both backends.
- ``test_bad_input``: sizes, deep JSON, content types, numbers, Unicode, the sandbox's bounds.
- ``test_isolation_web`` / ``test_csrf_browser``: browsers kept apart page by page; forms from
  another site refused (also in a real Chromium); link codes once and expiring.
- ``test_closed_book``: nothing before grading gives an answer away, over the whole bank.
- ``test_concurrency``: gunicorn (4 workers) on PostgreSQL, idempotent races, 20 x 200 learners.
- ``test_outage``: PostgreSQL stopped mid-run; runs alone (``QUIZSVC_TEST_OUTAGE=1``, as
  ``scripts/test`` does after the suite) because it stops the shared cluster.
- ``test_backup_restore``: ``quizsvc db backup|restore`` across PostgreSQL and SQLite.
- ``test_variant_draws``: a seed a question template cannot use is drawn again.

Load is measured, not asserted: ``.venv/bin/python bench/load.py``.
"""
