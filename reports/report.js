// condlint HTML report: filters, sorting and live counts. No network, no external code.
(function () {
  "use strict";
  var table = document.getElementById("findings-table");
  var rows = table ? Array.prototype.slice.call(table.tBodies[0].rows) : [];
  var text = document.getElementById("f-text");
  var showSuppressed = document.getElementById("f-suppressed");
  var shown = document.getElementById("shown");
  var boxes = Array.prototype.slice.call(document.querySelectorAll("#filters input[data-filter]"));

  function selected(kind) {
    var on = {}, any = false;
    boxes.forEach(function (b) {
      if (b.getAttribute("data-filter") === kind) { any = true; if (b.checked) on[b.value] = true; }
    });
    return any ? on : null;
  }

  function apply() {
    var levels = selected("level"), rules = selected("rule"), formats = selected("format");
    var q = (text && text.value || "").toLowerCase();
    var visible = 0, counts = { error: 0, warning: 0, note: 0 };
    rows.forEach(function (r) {
      var ok = (!levels || levels[r.getAttribute("data-level")]) &&
               (!rules || rules[r.getAttribute("data-rule")]) &&
               (!formats || formats[r.getAttribute("data-format")]) &&
               (showSuppressed.checked || !r.classList.contains("suppressed")) &&
               (!q || r.textContent.toLowerCase().indexOf(q) >= 0);
      r.classList.toggle("hidden", !ok);
      if (ok) { visible++; if (!r.classList.contains("suppressed")) counts[r.getAttribute("data-level")]++; }
    });
    shown.textContent = visible + " of " + rows.length + " shown";
    shown.setAttribute("data-visible", String(visible));
    ["error", "warning", "note"].forEach(function (l) { shown.setAttribute("data-" + l, String(counts[l])); });
  }

  function key(r, col) {
    var c = r.cells[col], v = c.getAttribute("data-sort");
    if (v === null) v = c.textContent;
    return v;
  }
  function sortBy(col, dir) {
    var th = table.tHead.rows[0].cells[col];
    var numeric = th.getAttribute("data-type") === "number";
    var tb = table.tBodies[0];
    var sorted = rows.slice().sort(function (a, b) {
      var x = key(a, col), y = key(b, col), c;
      if (numeric) c = (parseFloat(x) || 0) - (parseFloat(y) || 0);
      else c = x < y ? -1 : x > y ? 1 : 0;
      return c !== 0 ? dir * c : Number(a.getAttribute("data-order")) - Number(b.getAttribute("data-order"));
    });
    sorted.forEach(function (r) { tb.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
  }

  if (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (!th.classList.contains("sortable")) return;
      th.addEventListener("click", function () {
        sortBy(i, th.getAttribute("aria-sort") === "ascending" ? -1 : 1);
      });
    });
  }
  boxes.forEach(function (b) { b.addEventListener("change", apply); });
  if (text) text.addEventListener("input", apply);
  showSuppressed.addEventListener("change", apply);

  // State from the address: #level=error&rule=C006&sort=rule:desc&q=text&suppressed=1
  var params = {};
  location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
    var i = kv.indexOf("=");
    if (i > 0) params[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1));
  });
  ["level", "rule", "format"].forEach(function (kind) {
    if (!params[kind]) return;
    var want = {};
    params[kind].split(",").forEach(function (v) { want[v] = true; });
    boxes.forEach(function (b) { if (b.getAttribute("data-filter") === kind) b.checked = !!want[b.value]; });
  });
  if (params.q && text) text.value = params.q;
  if (params.suppressed === "1") showSuppressed.checked = true;
  if (params.sort && table) {
    var parts = params.sort.split(":");
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (th.getAttribute("data-key") === parts[0]) sortBy(i, parts[1] === "desc" ? -1 : 1);
    });
  }
  apply();
  document.body.setAttribute("data-ready", "1");
})();
