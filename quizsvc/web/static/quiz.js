/* Keyboard help on the question and attempt pages; nothing else.
 *
 * The forms post to the web routes with or without this script (answer -> 303 to the
 * attempt's own URL -> explanation -> 303 to its reveal -> rating -> 303 to the next
 * question), so every question and every reveal has its own URL in history: reload and Back
 * are safe, and there is one way an answer is shown. An earlier version drew results in
 * place from the JSON API; a reload then lost the reveal. Every question kind focuses its
 * first input by ``autofocus``. This script only adds:
 *   - 1..n picks the n-th option of a choice or multi question;
 *   - 1..4 presses the rating buttons (again, hard, good, easy) on the attempt page;
 *   - Ctrl+Enter (or Cmd+Enter) submits the explanation;
 *   - a list pasted into a vector answer's first box spreads over its boxes;
 *   - Space or Enter flips a flashcard (its reveal button has focus from the start; these
 *     keys also work where focus has left it for the page itself);
 *   - Ctrl+Z (or Cmd+Z) presses Undo when the page offers to take the last rating back;
 *   - a second submit of the same form is ignored while the first is on its way. */
"use strict";

(function () {
  function typing(target) {
    if (!target) return false;
    var tag = target.tagName;
    return tag === "TEXTAREA" || tag === "SELECT" ||
      (tag === "INPUT" && target.type !== "radio" && target.type !== "checkbox");
  }

  /* 1..n picks an option (choice: select it; multi: toggle it) unless the learner is typing. */
  function optionKeys(form) {
    var options = form.querySelectorAll("#answer-fields input[name='answer'][type=radio], " +
      "#answer-fields input[name='answer'][type=checkbox]");
    if (!options.length) return;
    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
      if (!/^[1-9]$/.test(event.key)) return;
      var option = options[Number(event.key) - 1];
      if (!option) return;
      event.preventDefault();
      option.focus();
      option.click();
    });
  }

  /* A list pasted into a vector's first box ("1,6,1", "1，6，1", "1 6 1") fills every box,
   * as the server does with such a post (web/forms.py vector_values). */
  function spreadPaste(form) {
    var length = Number(form.dataset.length || 0);
    var first = form.elements["answer.0"];
    if (form.dataset.inputType !== "vector" || length < 2 || !first) return;
    first.addEventListener("paste", function (event) {
      var text = (event.clipboardData || window.clipboardData).getData("text");
      var parts = text.normalize("NFKC").split(/[\s,;、]+/).filter(function (part) { return part; });
      if (parts.length !== length) return;
      event.preventDefault();
      for (var i = 0; i < length; i++) form.elements["answer." + i].value = parts[i];
      form.elements["answer." + (length - 1)].focus();
    });
  }

  /* 1-4 press the matching rating button unless the learner is typing. */
  function ratingKeys() {
    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || typing(event.target)) return;
      if (!/^[1-4]$/.test(event.key)) return;
      var button = document.querySelector("button[data-key='" + event.key + "']:not([disabled])");
      if (button) {
        event.preventDefault();
        button.click();
      }
    });
  }

  /* Whether focus is on the page itself rather than on something a key already works on. */
  function onPage(target) {
    return !target || target === document.body || target === document.documentElement ||
      !target.closest("a, button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])");
  }

  /* Space or Enter reveals a flashcard's back. */
  function flipKeys(form) {
    if (form.dataset.inputType !== "flashcard") return;
    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || !onPage(event.target)) return;
      if (event.key !== " " && event.key !== "Enter") return;
      event.preventDefault();
      if (form.requestSubmit) form.requestSubmit(); else form.submit();
    });
  }

  /* Ctrl+Z (Cmd+Z) takes the last rating back, unless the learner is typing. */
  function undoKey(undo) {
    document.addEventListener("keydown", function (event) {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return;
      if (event.key !== "z" && event.key !== "Z") return;
      if (typing(event.target)) return;
      event.preventDefault();
      if (undo.requestSubmit) undo.requestSubmit(); else undo.submit();
    });
  }

  function submitOnce(form) {
    form.addEventListener("submit", function (event) {
      if (form.dataset.sent) { event.preventDefault(); return; }
      form.dataset.sent = "1";
    });
    // Back to a page kept in the back-forward cache: its form may be posted again (the
    // server answers a repeated idempotency key with the first result).
    window.addEventListener("pageshow", function (event) {
      if (event.persisted) delete form.dataset.sent;
    });
  }

  function start() {
    var form = document.getElementById("answer-form");
    if (form) {
      optionKeys(form);
      flipKeys(form);
      spreadPaste(form);
      submitOnce(form);
    }
    var undo = document.getElementById("undo-rating");
    if (undo) {
      submitOnce(undo);
      undoKey(undo);
    }
    var explain = document.getElementById("explain-form");
    if (explain) {
      submitOnce(explain);
      var area = document.getElementById("explanation");
      area.addEventListener("keydown", function (event) {
        if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          if (explain.requestSubmit) explain.requestSubmit(); else explain.submit();
        }
      });
    }
    if (document.getElementById("attempt")) {
      ratingKeys();
      var title = document.getElementById("result-h") || document.getElementById("reveal-h");
      // Where the learner has already moved focus (say, Tab to "Next question") before this
      // script ran, leave it where they put it.
      var active = document.activeElement;
      var untouched = !active || active === document.body || active === document.documentElement;
      if (untouched && title && !document.getElementById("explanation") &&
          window.location.hash !== "#reveal") {
        title.focus();
      } else if (untouched && window.location.hash === "#reveal") {
        var reveal = document.getElementById("reveal-h");
        if (reveal) { reveal.setAttribute("tabindex", "-1"); reveal.focus(); }
      }
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
