/* Self-assessment buttons without a page reload: PUT /api/self-assessments/{section}.
 * These are the browser's own estimates, stored apart from mastery; the no-JS form posts
 * to the lesson page's route instead. */
"use strict";

(function () {
  var q = window.quizsvc;

  function start() {
    var data = document.getElementById("lesson-ui");
    if (!data || !window.fetch) return;
    var ui = JSON.parse(data.textContent);
    document.querySelectorAll("form.sa-form").forEach(function (form) {
      var ref = form.elements.ref.value;
      var status = form.querySelector(".sa-status");
      var current = form.querySelector(".sa-current strong");
      form.querySelectorAll("button[name='rating']").forEach(function (button) {
        button.addEventListener("click", function (event) {
          event.preventDefault();
          var rating = Number(button.value);
          var note = form.elements.note.value;
          q.api("PUT", "/api/self-assessments/" + encodeURIComponent(ref),
            { rating: rating, note: note || null }).then(function (saved) {
            if (!saved.ok) {
              status.textContent = q.errorLines(saved.body).join("; ");
              status.classList.remove("sr-only");
              return;
            }
            form.querySelectorAll("button[name='rating']").forEach(function (other) {
              other.setAttribute("aria-pressed", other === button ? "true" : "false");
            });
            current.textContent = ui.ratings[String(saved.body.rating)] || String(saved.body.rating);
            status.textContent = ui.saved + ": " + current.textContent;
          });
        });
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
