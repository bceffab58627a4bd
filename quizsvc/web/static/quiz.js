/* The closed-book question, interactive: the answer goes to POST /api/attempts and the result
 * appears in place (announced to screen readers); a wrong answer asks for an explanation
 * (POST /api/attempts/{id}/explanation) before the reveal; ratings go to
 * POST /api/attempts/{id}/rating. Keys 1-4 press the rating buttons, here and on the
 * server-rendered attempt page. Without this script the same forms post to the web routes. */
"use strict";

(function () {
  var q = window.quizsvc;
  var RATING_KEYS = { again: "1", hard: "2", good: "3", easy: "4" };
  var ui = {};

  function t(key) { return ui[key] !== undefined ? ui[key] : key; }

  function textIn(value) {
    if (value === null || value === undefined) return "";
    if (typeof value === "object" && ("zh" in value || "en" in value)) {
      return ui.lang === "en" ? (value.en || value.zh || "") : (value.zh || value.en || "");
    }
    return String(value);
  }

  /* Build the JSON answer from the form, as quizsvc/web/forms.py does for the no-JS post. */
  function readAnswer(form) {
    var type = form.dataset.inputType;
    var options = JSON.parse(form.dataset.options || "[]");
    function numberOrText(raw) {
      var text = String(raw || "").trim();
      return /^[+-]?\d{1,18}$/.test(text) ? Number(text) : text;
    }
    if (type === "vector") {
      var length = Number(form.dataset.length || 0);
      var values = [];
      for (var i = 0; i < length; i++) values.push(numberOrText(form.elements["answer." + i].value));
      return { value: values };
    }
    if (type === "integer") return { value: numberOrText(form.elements.answer.value) };
    if (type === "multi") {
      return { value: Array.prototype.filter.call(form.querySelectorAll("input[name='answer']"),
        function (box) { return box.checked; }).map(function (box) { return box.value; }) };
    }
    if (type === "choice") {
      var picked = form.querySelector("input[name='answer']:checked");
      return { value: picked ? picked.value : "" };
    }
    if (type === "order") {
      var positions = {};
      var seen = {};
      for (var j = 0; j < options.length; j++) {
        var position = form.elements["position." + options[j]].value;
        if (seen[position]) return { error: t("order_duplicate") };
        seen[position] = true;
        positions[options[j]] = Number(position);
      }
      return { value: options.slice().sort(function (a, b) { return positions[a] - positions[b]; }) };
    }
    if (type === "flashcard") return { value: null };
    return { value: form.elements.answer.value };
  }

  function answerText(value, form) {
    var labels = JSON.parse(form.dataset.labels || "[]");
    var texts = ui.option_texts || {};
    if (Array.isArray(value)) {
      if (form.dataset.inputType === "order") {
        return value.map(function (v, i) { return (i + 1) + ". " + (texts[v] || String(v)); }).join(" → ");
      }
      if (labels.length && labels.length === value.length) {
        return value.map(function (v, i) { return labels[i] + " = " + v; }).join(" · ");
      }
      return value.map(function (v) { return texts[v] || String(v); }).join(", ");
    }
    if (typeof value === "string" && texts[value]) return texts[value];
    return value === null || value === undefined ? "" : String(value);
  }

  function announce(text) {
    var live = document.getElementById("live-status");
    live.textContent = "";
    window.setTimeout(function () { live.textContent = text; }, 50);
  }

  function showError(where, lines) {
    var box = document.getElementById("answer-error");
    if (!box) {
      box = q.el("div", { "class": "errors", role: "alert", id: "answer-error" });
      where.parentNode.insertBefore(box, where);
    }
    box.replaceChildren.apply(box, lines.map(function (line) { return q.el("p", { text: line }); }));
  }

  function clearError() {
    var box = document.getElementById("answer-error");
    if (box) box.remove();
  }

  function heading(result) {
    if (!result.graded) return t("result_recorded");
    return result.correct ? t("result_right") : t("result_wrong");
  }

  // A solution is markdown (prose, a table of numbers, the ledger trace folded below). The
  // attempt page renders it on the server (web/markup.py); show that rendering in place of the
  // raw text, so both paths read the same. The raw text stays if the page cannot be read.
  function showRendered(box, sessionUrl, attemptId) {
    if (!sessionUrl || !window.DOMParser) return;
    window.fetch(sessionUrl + "/attempts/" + attemptId, { credentials: "same-origin" })
      .then(function (response) { return response.ok ? response.text() : ""; })
      .then(function (html) {
        var rendered = html && new DOMParser().parseFromString(html, "text/html")
          .querySelector("#reveal .solution");
        if (!rendered) return;
        box.replaceChildren.apply(box, Array.prototype.map.call(rendered.childNodes,
          function (node) { return document.importNode(node, true); }));
        box.classList.add("rendered");
      }).catch(function () { /* keep the raw text */ });
  }

  function renderReveal(result, form) {
    var reveal = result.reveal;
    var section = q.el("section", { id: "reveal", "aria-labelledby": "reveal-h" });
    if (result.kind === "flashcard") {
      section.appendChild(q.el("h2", { id: "reveal-h", text: t("card_back") }));
      var back = section.appendChild(q.el("div", { "class": "card-face solution", text: textIn(reveal.solution) }));
      showRendered(back, form.dataset.sessionUrl, result.id);
    } else {
      section.appendChild(q.el("h2", { id: "reveal-h", text: t("reveal_answer") }));
      section.appendChild(q.el("p", { "class": "answer-value" }, [
        q.el("strong", { text: answerText(reveal.correct_answer, form) })]));
      section.appendChild(q.el("h3", { text: t("reveal_solution") }));
      var solution = section.appendChild(q.el("div", { "class": "solution", text: textIn(reveal.solution) }));
      showRendered(solution, form.dataset.sessionUrl, result.id);
    }
    if (reveal.misconception) {
      section.appendChild(q.el("p", { "class": "result-bad" }, [t("reveal_misconception") + " ",
        q.el("strong", { text: textIn(reveal.misconception.name) })]));
    }
    if (reveal.explanation) {
      section.appendChild(q.el("h3", { text: t("your_explanation") }));
      section.appendChild(q.el("blockquote", { text: reveal.explanation }));
    }
    if (result.graded && !result.correct) {
      section.appendChild(q.el("p", {}, [q.el("a", { href: reveal.lesson_link, text: t("reopen_lesson") })]));
    }
    return section;
  }

  function renderRatings(result, box, sessionUrl) {
    var buttons = result.rating_choices.map(function (choice) {
      var button = q.el("button", { type: "button", "data-key": RATING_KEYS[choice], "data-rating": choice },
        [q.el("kbd", { text: RATING_KEYS[choice] }), " " + t("rate_" + choice)]);
      button.addEventListener("click", function () {
        box.querySelectorAll("button[data-rating]").forEach(function (b) { b.disabled = true; });
        q.api("POST", "/api/attempts/" + result.id + "/rating", { rating: choice }).then(function (rated) {
          if (!rated.ok) {
            box.querySelectorAll("button[data-rating]").forEach(function (b) { b.disabled = false; });
            showError(box, q.errorLines(rated.body));
            return;
          }
          announce(t("rated_as") + " " + t("rate_" + choice));
          window.location.assign(sessionUrl);
        });
      });
      return button;
    });
    return q.el("fieldset", { "class": "rating-form" }, [
      q.el("legend", { text: t("rate_prompt") }),
      q.el("div", { "class": "ratings" }, buttons)]);
  }

  function renderResult(result, form, box) {
    var sessionUrl = form.dataset.sessionUrl;
    var parts = result.kind === "flashcard" ? []
      : [q.el("h2", { id: "result-h", tabindex: "-1", text: heading(result) })];
    if (result.graded && result.score !== null && result.score > 0 && result.score < 1) {
      parts.push(q.el("p", { text: t("result_partial").replace("{score}", result.score.toFixed(2)) }));
    }
    if (result.per_element && result.per_element.length && !result.correct) {
      var labels = JSON.parse(form.dataset.labels || "[]");
      parts.push(q.el("p", { text: t("elements_right") + " " + result.per_element.map(function (ok, i) {
        return (labels[i] || String(i + 1)) + " " + (ok ? t("el_right") : t("el_wrong"));
      }).join(" · ") }));
    }
    if (!result.closed_book) parts.push(q.el("p", { "class": "note", text: t("open_book_note") }));
    if (result.explanation_required) {
      var area = q.el("textarea", { id: "explanation", name: "explanation", required: "", maxlength: "4000" });
      var explainForm = q.el("form", { id: "explain-form" }, [
        q.el("div", { "class": "field" }, [q.el("label", { "for": "explanation", text: t("explain_label") }), area]),
        q.el("button", { type: "submit", "class": "primary", text: t("explain_submit") })]);
      explainForm.addEventListener("submit", function (event) {
        event.preventDefault();
        q.api("POST", "/api/attempts/" + result.id + "/explanation", { explanation: area.value }).then(function (done) {
          if (!done.ok) { showError(explainForm, q.errorLines(done.body)); return; }
          clearError();
          renderResult(done.body, form, box);
          var revealHeading = document.getElementById("reveal-h");
          revealHeading.setAttribute("tabindex", "-1");
          revealHeading.focus();
          announce(t("reveal_answer") + ": " + answerText(done.body.reveal.correct_answer, form));
        });
      });
      parts.push(q.el("section", { id: "explain", "aria-labelledby": "explain-h" }, [
        q.el("h3", { id: "explain-h", text: t("explain_heading") }),
        q.el("p", { text: t("explain_prompt") }), explainForm]));
    }
    if (result.reveal) parts.push(renderReveal(result, form));
    if (result.rating_choices && result.rating_choices.length) parts.push(renderRatings(result, box, sessionUrl));
    if (result.graded && !result.correct && !result.explanation_required) {
      parts.push(q.el("p", { "class": "note", text: t("wrong_is_again") }));
    }
    if (!result.explanation_required) {
      parts.push(q.el("p", {}, [q.el("a", {
        "class": "button" + (result.rating_choices && result.rating_choices.length ? "" : " primary"),
        id: "next-link", href: sessionUrl, text: t("next_question") })]));
    }
    box.replaceChildren.apply(box, parts);
    box.dataset.attemptId = String(result.id);
  }

  function startQuestion(form) {
    var box = document.getElementById("live-result");
    var key = form.elements.idempotency_key.value;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var read = readAnswer(form);
      if (read.error) { showError(form, [read.error]); return; }
      var submit = document.getElementById("submit-answer");
      submit.disabled = true;
      q.api("POST", "/api/attempts", { variant_id: form.dataset.variantId, answer: read.value },
        { "Idempotency-Key": key }).then(function (graded) {
        if (!graded.ok) {
          submit.disabled = false;
          showError(form, q.errorLines(graded.body));
          return;
        }
        clearError();
        document.getElementById("answer-fields").disabled = true;
        submit.hidden = true;
        renderResult(graded.body, form, box);
        var title = document.getElementById("result-h") || document.getElementById("reveal-h");
        title.setAttribute("tabindex", "-1");
        title.focus();
        var said = graded.body.kind === "flashcard"
          ? t("card_back") + ": " + textIn(graded.body.reveal.solution) : heading(graded.body);
        if (graded.body.explanation_required) said += ". " + t("explain_prompt");
        announce(said);
        if (graded.body.explanation_required) document.getElementById("explanation").focus();
      }).catch(function (error) {
        submit.disabled = false;
        showError(form, [String(error)]);
      });
    });
  }

  /* 1-4 press the matching rating button unless the learner is typing. */
  function ratingKeys() {
    document.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      var target = event.target;
      if (target && (target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
          (target.tagName === "INPUT" && target.type !== "radio" && target.type !== "checkbox"))) return;
      if (!/^[1-4]$/.test(event.key)) return;
      var button = document.querySelector("button[data-key='" + event.key + "']:not([disabled])");
      if (button) {
        event.preventDefault();
        button.click();
      }
    });
  }

  function start() {
    var data = document.getElementById("quiz-ui");
    if (data) ui = JSON.parse(data.textContent);
    var live = q.el("p", { id: "live-status", "class": "sr-only", role: "status", "aria-live": "polite" });
    document.getElementById("main").appendChild(live);
    ratingKeys();
    var form = document.getElementById("answer-form");
    if (form && window.fetch) startQuestion(form);
    var attempt = document.getElementById("attempt");
    if (attempt) {
      var title = document.getElementById("result-h");
      if (title && !document.getElementById("explanation")) title.focus();
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
