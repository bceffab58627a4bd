"""The learner's web pages: server-rendered Jinja that works without JavaScript.

``quizsvc.web.pages.bp`` (registered by ``quizsvc.create_app``) serves the lesson, the
closed-book quiz and review, flashcards, the "change the variables" simulator, progress and
browser linking, one module per area; ``presentation`` says values as the pages show them.
Forms post to web routes that call the same service functions as the JSON API; the scripts in
``static/`` call the JSON API with ``fetch()``. Every asset is served by the app
(``/assets/...``); nothing comes from a CDN.
"""
