/* Link another browser through the JSON API: POST /api/link-codes shows a one-time code,
 * POST /api/link enters one. The forms post to the page's routes without this script. */
"use strict";

(function () {
  var q = window.quizsvc;

  function when(iso) {
    var date = new Date(iso);
    return isNaN(date) ? iso : date.toISOString().slice(0, 16).replace("T", " ") + " UTC";
  }

  function start() {
    var data = document.getElementById("link-ui");
    if (!data || !window.fetch) return;
    var ui = JSON.parse(data.textContent);
    var codeForm = document.getElementById("code-form");
    var redeemForm = document.getElementById("redeem-form");
    var issued = document.getElementById("issued-code");
    var status = document.getElementById("link-status");
    var error = document.getElementById("link-error");
    var input = document.getElementById("link-code-input");

    codeForm.addEventListener("submit", function (event) {
      event.preventDefault();
      q.api("POST", "/api/link-codes").then(function (made) {
        if (!made.ok) { status.textContent = q.errorLines(made.body).join("; "); return; }
        issued.replaceChildren(
          q.el("p", {}, [ui.code_is + ": ", q.el("output", { "class": "link-code", id: "link-code", text: made.body.code })]),
          q.el("p", {}, [ui.expires + ": ", q.el("span", { id: "link-expires", text: when(made.body.expires_at) })]));
      });
    });

    redeemForm.addEventListener("submit", function (event) {
      event.preventDefault();
      q.api("POST", "/api/link", { code: input.value }).then(function (done) {
        if (!done.ok && done.body && done.body.reason === "would_leave_progress") {
          redeemForm.submit();  // the page asks first, with the way to export
          return;
        }
        if (!done.ok) {
          error.textContent = q.errorLines(done.body).join("; ");
          error.hidden = false;
          input.setAttribute("aria-invalid", "true");
          input.setAttribute("aria-describedby", "link-error");
          input.focus();
          return;
        }
        error.hidden = true;
        input.removeAttribute("aria-invalid");
        status.replaceChildren(q.el("p", { "class": "result-good", text: ui.done }));
      });
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
