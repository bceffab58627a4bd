/* Shared helpers for the pages' scripts: JSON API calls with the CSRF double-submit header.
 * Every page works without this file; scripts only make the forms answer in place. */
"use strict";

(function () {
  function cookie(name) {
    var parts = document.cookie ? document.cookie.split("; ") : [];
    for (var i = 0; i < parts.length; i++) {
      var eq = parts[i].indexOf("=");
      if (parts[i].slice(0, eq) === name) return decodeURIComponent(parts[i].slice(eq + 1));
    }
    return "";
  }

  /* Call the JSON API; resolve to {ok, status, body}. State changes echo the csrf_token cookie.
   * Accept-Language names the page's language, so an error envelope also says its refusal
   * in it ("said"); its "message" stays English. */
  function api(method, url, body, headers) {
    var init = { method: method, credentials: "same-origin",
                 headers: { Accept: "application/json", "Accept-Language": document.documentElement.lang || "zh" } };
    if (method !== "GET" && method !== "HEAD") {
      init.headers["X-CSRF-Token"] = cookie("csrf_token");
    }
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    if (headers) Object.keys(headers).forEach(function (k) { init.headers[k] = headers[k]; });
    return fetch(url, init).then(function (response) {
      var type = response.headers.get("Content-Type") || "";
      var read = type.indexOf("json") >= 0 ? response.json() : response.text();
      return read.then(function (data) { return { ok: response.ok, status: response.status, body: data }; });
    });
  }

  /* The envelope as said in the page's language: its "said" part when the service sent one.
   * (The envelope: {code: the HTTP status, status: its phrase, reason, message, errors,
   * request_id, said}; the pages show "said", else "errors", else "message".) */
  function said(envelope) {
    return envelope && envelope.said ? envelope.said : envelope;
  }

  /* Turn the service's error envelope into "field: reason" lines, in the page's language. */
  function errorLines(envelope) {
    var lines = [];
    envelope = said(envelope);
    if (envelope && envelope.errors) {
      Object.keys(envelope.errors).forEach(function (where) {
        var fields = envelope.errors[where];
        if (fields && typeof fields === "object") {
          Object.keys(fields).forEach(function (name) {
            var reasons = fields[name];
            lines.push(name + ": " + (Array.isArray(reasons) ? reasons.join("; ") : JSON.stringify(reasons)));
          });
        }
      });
    }
    if (!lines.length && envelope && envelope.message) lines.push(envelope.message);
    if (!lines.length) lines.push(String(envelope));
    return lines;
  }

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) {
      node.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return node;
  }

  /* A fresh key for POST /api/attempts so a retried submission is graded once. */
  function idempotencyKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) { return ("0" + b.toString(16)).slice(-2); }).join("");
  }

  /* Show every <time datetime> in the learner's own time zone and words (the server writes
   * UTC); a bare day (2026-12-02) stays that day, said the learner's way. */
  function localTimes() {
    var lang = document.documentElement.lang || undefined;
    Array.prototype.forEach.call(document.querySelectorAll("time[datetime]"), function (node) {
      var value = node.getAttribute("datetime");
      var date = new Date(value);
      if (isNaN(date)) return;
      node.title = node.textContent;
      node.textContent = /^\d{4}-\d{2}-\d{2}$/.test(value)
        ? date.toLocaleDateString(lang, { dateStyle: "medium", timeZone: "UTC" })
        : date.toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", localTimes);
  else localTimes();

  window.quizsvc = { cookie: cookie, api: api, errorLines: errorLines, said: said, el: el, idempotencyKey: idempotencyKey };
  document.documentElement.classList.add("js");
})();
