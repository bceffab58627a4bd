/* The simulator, interactive: sliders beside the number fields; every change asks
 * /api/simulator/plan for the scenario (warm-up steps included), runs it through
 * POST /api/simulate and redraws the steps. The markup mirrors _simulator_result.html and the
 * row rules mirror quizsvc/web/simulator.py (step_views, reached_mismatches); a browser test
 * checks that both tables agree. */
"use strict";

(function () {
  var q = window.quizsvc;
  var form, resultBox, errorBox, statusLine, summaryLine, ui, planUrl, pageUrl;
  var generation = 0;
  var timer = null;
  var SEGMENTS = ["computed", "scheduled", "drafts", "rolled", "unscheduled"];

  function t(key) { return ui[key] !== undefined ? ui[key] : key; }

  /* Fill a catalog template's %(name)s holes, as the server's gettext(...) % params does. */
  function fill(template, params) {
    return template.replace(/%\((\w+)\)s|%%/g, function (whole, name) {
      return name ? String(params[name]) : "%";
    });
  }

  /* Name a step by where it stands to the target: T, T+1, T−2 (web/simulator.py step_name). */
  function stepName(offset) {
    return offset === 0 ? "T" : offset > 0 ? "T+" + offset : "T\u2212" + (-offset);
  }

  function stepViews(trace, plan) {
    var config = trace.effective_config || {};
    var tokenBudget = config.max_num_scheduled_tokens !== undefined
      ? config.max_num_scheduled_tokens : plan.scenario.config.max_num_scheduled_tokens;
    return (trace.steps || []).map(function (step) {
      var number = step.step;
      var kind = number < plan.target_step ? "warm-up" : number === plan.target_step ? "target" : "after";
      var schedule = step.schedule || {};
      var scheduled = schedule.num_scheduled_tokens || {};
      var spec = schedule.scheduled_spec_decode_tokens || {};
      var limits = schedule.limits || {};
      var rows = Object.keys(step.requests || {}).map(function (rid) {
        var info = step.requests[rid];
        var before = info.before_schedule || {};
        var afterSchedule = info.after_schedule || before;
        var after = info.after_update || afterSchedule;
        var n = Number(scheduled[rid] || 0);
        var k = Array.isArray(spec[rid]) ? spec[rid].length : Number(spec[rid] || 0);
        var limit = limits[rid] || {};
        var hasLimit = Object.keys(limit).length > 0;
        var cBefore = Number(before.num_computed_tokens || 0);
        var cSched = afterSchedule.num_computed_tokens !== undefined ? Number(afterSchedule.num_computed_tokens) : cBefore;
        var cAfter = after.num_computed_tokens !== undefined ? Number(after.num_computed_tokens) : cSched;
        var rolled = n ? Math.max(0, Math.min(k, cSched - cAfter)) : 0;
        var want = Number(before.num_tokens_with_spec || 0) + Number(before.num_output_placeholders || 0) - cBefore;
        return {
          id: rid,
          filler: plan.fillers.indexOf(rid) >= 0,
          loop: String(limit.loop || ""),
          demand: limit.demand === undefined ? null : limit.demand,
          scheduled: n,
          drafts_verified: k,
          bound: hasLimit ? String(limit.bound || "") : (n ? "" : "not eligible"),
          computed_before: cBefore,
          computed_after_schedule: cSched,
          computed_after_update: cAfter,
          tokens_before: Number(before.num_tokens || 0),
          tokens_after: Number(after.num_tokens || 0),
          gap_after: Number(after.num_tokens || 0) - cAfter,
          status_after: String(after.status || ""),
          bar: { computed: cBefore, scheduled: n - k, drafts: k - rolled, rolled: rolled, unscheduled: Math.max(0, want - n) }
        };
      });
      var scale = 1;
      rows.forEach(function (row) {
        var total = SEGMENTS.reduce(function (sum, name) { return sum + row.bar[name]; }, 0);
        scale = Math.max(scale, total);
      });
      return {
        step: number, offset: number - plan.target_step, kind: kind, rows: rows, scale: scale, token_budget: tokenBudget,
        total_scheduled: Number(schedule.total_num_scheduled_tokens || 0),
        allocation: Object.keys(scheduled).map(function (rid) { return [rid, Number(scheduled[rid])]; })
      };
    });
  }

  function reachedMismatches(trace, plan) {
    var step = (trace.steps || []).filter(function (s) { return s.step === plan.target_step; })[0];
    if (!step) return [fill(t("sim_no_step"), { step: plan.target_step })];
    var problems = [];
    Object.keys(plan.expected).forEach(function (rid) {
      var want = plan.expected[rid];
      var got = ((step.requests || {})[rid] || {}).before_schedule;
      if (!got) { problems.push(fill(t("sim_not_alive"), { request: rid })); return; }
      Object.keys(want).forEach(function (key) {
        if (got[key] !== want[key]) {
          problems.push(fill(t("sim_differs"), { request: rid, key: key, got: got[key], want: want[key] }));
        }
      });
    });
    return problems;
  }

  var SVG = "http://www.w3.org/2000/svg";

  function bar(row, scale) {
    var label = [];
    SEGMENTS.forEach(function (name) { if (row.bar[name]) label.push(t("seg_" + name) + " " + row.bar[name]); });
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("class", "bar");
    svg.setAttribute("viewBox", "0 0 " + scale + " 10");
    svg.setAttribute("preserveAspectRatio", "none");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", row.id + ": " + label.join("; "));
    var x = 0;
    SEGMENTS.forEach(function (name) {
      var size = row.bar[name];
      if (!size) return;
      var rect = document.createElementNS(SVG, "rect");
      rect.setAttribute("class", "seg seg-" + name);
      rect.setAttribute("x", String(x));
      rect.setAttribute("y", "0");
      rect.setAttribute("width", String(size));
      rect.setAttribute("height", "10");
      svg.appendChild(rect);
      x += size;
    });
    return q.el("div", { "class": "bar-row" }, [q.el("span", { "class": "bar-label", text: row.id }), svg]);
  }

  function cell(tag, text, attrs) {
    var node = q.el(tag, attrs || {});
    node.textContent = text;
    return node;
  }

  function stepBlock(view, heading) {
    var hid = "step-" + view.step + "-h";
    var section = q.el("section", { "class": "step step-" + view.kind, id: "step-" + view.step, "aria-labelledby": hid });
    section.appendChild(q.el("h3", { id: hid, text: heading }));
    if (!view.rows.length) {
      section.appendChild(q.el("p", { text: t("no_schedule") }));
      return section;
    }
    var alloc = view.allocation.length
      ? view.allocation.map(function (pair) { return pair[0] + " " + pair[1]; }).join(" · ") : t("none");
    section.appendChild(q.el("p", { "class": "allocation" }, [
      q.el("strong", { text: t("sim_allocation") }), ": ",
      q.el("span", { "class": "alloc-list", text: alloc }),
      " — " + t("sim_total") + " ",
      q.el("span", { "class": "alloc-total", text: String(view.total_scheduled) }),
      " / " + t("sim_of_budget") + " " + view.token_budget
    ]));
    var headRow = q.el("tr", {}, ["col_request", "col_scheduled", "col_bound", "col_c", "col_gap",
      "col_n", "col_demand", "col_loop", "col_status"].map(function (key) { return cell("th", t(key), { scope: "col" }); }));
    var body = q.el("tbody", {}, view.rows.map(function (row) {
      var tr = q.el("tr", row.filler ? { "data-request": row.id, "class": "filler" } : { "data-request": row.id });
      tr.appendChild(cell("th", row.id + (row.filler ? fill(t("note_paren"), { note: t("sim_filler") }) : ""), { scope: "row" }));
      tr.appendChild(cell("td", String(row.scheduled) + (row.drafts_verified ? " (" + row.drafts_verified + ")" : ""), { "class": "scheduled" }));
      tr.appendChild(cell("td", row.bound ? t("bound_" + row.bound) : t("none"), { "class": "bound" }));
      tr.appendChild(cell("td", row.computed_before + " → " + row.computed_after_schedule + " → " + row.computed_after_update));
      tr.appendChild(cell("td", String(row.gap_after)));
      tr.appendChild(cell("td", row.tokens_before + " → " + row.tokens_after));
      tr.appendChild(cell("td", row.demand === null ? t("none") : String(row.demand)));
      tr.appendChild(cell("td", row.loop || t("none")));
      tr.appendChild(cell("td", row.status_after));
      return tr;
    }));
    var table = q.el("table", { "class": "steps" }, [q.el("thead", {}, [headRow]), body]);
    section.appendChild(q.el("div", { "class": "table-wrap", role: "region", tabindex: "0", "aria-labelledby": hid }, [table]));
    var figure = q.el("figure", { "class": "picture" }, [q.el("figcaption", { text: t("sim_picture") })]);
    view.rows.forEach(function (row) { figure.appendChild(bar(row, view.scale)); });
    section.appendChild(figure);
    return section;
  }

  function legend() {
    var list = q.el("ul", { "class": "legend", "aria-label": t("legend") });
    SEGMENTS.forEach(function (name) {
      var svg = document.createElementNS(SVG, "svg");
      svg.setAttribute("class", "swatch");
      svg.setAttribute("viewBox", "0 0 10 10");
      svg.setAttribute("aria-hidden", "true");
      var rect = document.createElementNS(SVG, "rect");
      rect.setAttribute("class", "seg seg-" + name);
      rect.setAttribute("width", "10");
      rect.setAttribute("height", "10");
      svg.appendChild(rect);
      list.appendChild(q.el("li", {}, [svg, t("seg_" + name)]));
    });
    return list;
  }

  function group(views, kind, title, open) {
    var chosen = views.filter(function (v) { return v.kind === kind; });
    if (!chosen.length) return null;
    var details = q.el("details", { "class": kind === "after" ? "steps-after" : "steps-warmup" });
    if (open) details.setAttribute("open", "");
    details.appendChild(q.el("summary", { text: title + fill(t("note_paren"), { note: chosen.length }) }));
    chosen.forEach(function (v) {
      details.appendChild(stepBlock(v, fill(t("sim_step_heading"), { name: stepName(v.offset), step: v.step })));
    });
    return details;
  }

  function render(trace, plan, async) {
    var views = stepViews(trace, plan);
    var box = document.createDocumentFragment();
    box.appendChild(q.el("h2", { id: "result-h", text: t("sim_result") }));
    var mismatches = plan.check_reached ? reachedMismatches(trace, plan) : [];
    if (mismatches.length) {
      box.appendChild(q.el("div", { "class": "warning", role: "status" }, [
        q.el("p", { text: t("sim_mismatch") }),
        q.el("ul", {}, mismatches.map(function (line) { return q.el("li", { text: line }); }))
      ]));
    }
    var negative = views.some(function (v) { return v.rows.some(function (row) { return row.gap_after < 0; }); });
    if (negative) box.appendChild(q.el("p", { "class": "note", id: "negative-gap-note", text: t("sim_negative_gap") }));
    if (async) box.appendChild(q.el("p", { "class": "note", text: t("sim_async_note") }));
    box.appendChild(legend());
    var target = null;
    views.forEach(function (v) {
      if (v.kind === "target") {
        target = v;
        box.appendChild(stepBlock(v, fill(t("sim_target_heading"), { step: v.step })));
      }
    });
    var after = group(views, "after", t("sim_after"), true);
    if (after) box.appendChild(after);
    var warm = group(views, "warm-up", t("sim_warmup"), false);
    if (warm) box.appendChild(warm);
    box.appendChild(q.el("details", { "class": "scenario" }, [
      q.el("summary", { text: t("sim_scenario") }),
      q.el("pre", {}, [q.el("code", { id: "scenario-json", text: JSON.stringify(plan.scenario, null, 1) })])
    ]));
    resultBox.replaceChildren(box);
    resultBox.setAttribute("aria-labelledby", "result-h");
    if (target) {
      var alloc = target.allocation.map(function (p) { return p[0] + " " + p[1]; }).join(" · ");
      var line = fill(t("sim_summary"), { allocation: alloc || t("none"), total: target.total_scheduled,
                                           budget: target.token_budget });
      statusLine.textContent = line;
      summaryLine.textContent = line;
      summaryLine.hidden = false;
    }
  }

  function clearErrors() {
    errorBox.hidden = true;
    errorBox.replaceChildren();
    markStale(false);
    form.querySelectorAll("[aria-invalid]").forEach(function (node) {
      node.removeAttribute("aria-invalid");
      node.removeAttribute("aria-describedby");
      var wrap = node.closest(".field");
      if (wrap) wrap.classList.remove("has-error");
    });
    form.querySelectorAll(".field-error").forEach(function (node) { node.remove(); });
  }

  function showErrors(envelope) {
    var items = [];
    envelope = q.said(envelope);
    var errors = (envelope && envelope.errors) || {};
    Object.keys(errors).forEach(function (where) {
      var fields = errors[where] || {};
      Object.keys(fields).forEach(function (name) {
        var reason = Array.isArray(fields[name]) ? fields[name].join("; ") : JSON.stringify(fields[name]);
        var id = "f-" + name.replace(/\./g, "-");
        var input = document.getElementById(id);
        if (input) {
          input.setAttribute("aria-invalid", "true");
          input.setAttribute("aria-describedby", id + "-error");
          var wrap = input.closest(".field");
          if (wrap) {
            wrap.classList.add("has-error");
            wrap.appendChild(q.el("p", { "class": "field-error", id: id + "-error", text: reason }));
          }
          items.push(q.el("li", {}, [q.el("a", { href: "#" + id, text: name }), ": " + reason]));
        } else {
          items.push(q.el("li", { text: name + ": " + reason }));
        }
      });
    });
    if (!items.length) items.push(q.el("li", { text: (envelope && envelope.message) || String(envelope) }));
    errorBox.replaceChildren(q.el("h2", { text: t("sim_errors") }), q.el("ul", {}, items));
    errorBox.hidden = false;
    markStale(true);
  }

  /* While the inputs cannot be run, the result below is the last valid one's: say so. */
  function markStale(stale) {
    var note = document.getElementById("stale-note");
    resultBox.classList.toggle("stale", stale && resultBox.children.length > 0);
    if (stale && resultBox.children.length > 0 && !note) {
      resultBox.insertBefore(q.el("p", { id: "stale-note", "class": "stale-note", text: t("sim_stale") }),
        resultBox.firstChild);
    } else if (!stale && note) {
      note.remove();
    }
  }

  function query() {
    var data = new FormData(form);
    var params = new URLSearchParams();
    data.forEach(function (value, key) { params.append(key, value); });
    return params.toString();
  }

  function run() {
    var mine = ++generation;
    var qs = query();
    history.replaceState(null, "", pageUrl + "?" + qs);
    resultBox.setAttribute("aria-busy", "true");
    q.api("GET", planUrl + "?" + qs).then(function (planned) {
      if (mine !== generation) return null;
      if (!planned.ok) { clearErrors(); showErrors(planned.body); return null; }
      var plan = planned.body;
      return q.api("POST", "/api/simulate?detail=full", plan.scenario).then(function (ran) {
        if (mine !== generation) return;
        clearErrors();
        if (!ran.ok) { showErrors(ran.body); return; }
        var trace = ran.body.trace || ran.body;
        render(trace, plan, Boolean(plan.scenario.config.async_scheduling));
      });
    }).catch(function (error) {
      if (mine === generation) showErrors({ message: String(error) });
    }).then(function () {
      if (mine === generation) resultBox.removeAttribute("aria-busy");
    });
  }

  function soon() {
    clearTimeout(timer);
    timer = setTimeout(run, 120);
  }

  function addSlider(input) {
    var label = form.querySelector("label[for='" + input.id + "']");
    var slider = q.el("input", {
      type: "range", id: input.id + "-range", min: input.min, step: "1",
      max: String(Math.max(Number(input.dataset.sliderMax || input.max), Number(input.value) || 0)),
      value: input.value, "aria-label": (label ? label.textContent : input.name) + " (slider)"
    });
    slider.addEventListener("input", function () {
      input.value = slider.value;
      soon();
    });
    input.addEventListener("input", function () {
      if (input.value !== "" && Number(input.value) > Number(slider.max)) slider.max = input.value;
      slider.value = input.value;
      soon();
    });
    var row = q.el("div", { "class": "slider-row" });
    input.parentNode.insertBefore(row, input);
    row.appendChild(input);
    row.appendChild(slider);
  }

  function applyQuery(qs) {
    var params = new URLSearchParams(qs);
    params.forEach(function (value, key) {
      var fields = form.querySelectorAll("[name='" + key + "']");
      fields.forEach(function (field) {
        if (field.type === "radio") field.checked = field.value === value;
        else {
          field.value = value;
          var slider = document.getElementById(field.id + "-range");
          if (slider) {
            if (Number(value) > Number(slider.max)) slider.max = value;
            slider.value = value;
          }
        }
      });
    });
  }

  function start() {
    form = document.getElementById("sim-form");
    if (!form || !window.fetch) return;
    resultBox = document.getElementById("sim-result");
    errorBox = document.getElementById("sim-errors");
    statusLine = document.getElementById("sim-status");
    summaryLine = document.getElementById("sim-summary");
    ui = JSON.parse(document.getElementById("sim-ui").textContent);
    pageUrl = form.getAttribute("action");
    planUrl = form.dataset.planUrl;
    form.querySelectorAll("input[data-slider]").forEach(addSlider);
    form.querySelectorAll("select, input[type='radio']").forEach(function (node) {
      node.addEventListener("change", soon);
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      clearTimeout(timer);
      run();
    });
    document.querySelectorAll("a.preset").forEach(function (link) {
      link.addEventListener("click", function (event) {
        event.preventDefault();
        applyQuery(link.getAttribute("href").split("?")[1] || "");
        clearTimeout(timer);
        run();
      });
    });
    form.classList.add("live");
  }

  window.quizsvcSimulator = { stepViews: stepViews, reachedMismatches: reachedMismatches };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
