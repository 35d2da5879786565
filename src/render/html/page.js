// abex report.html: sortable tables. No network, no library; errors are recorded on <html>
// (data-errors) so a test of the page can see them.
(function () {
  "use strict";
  var root = document.documentElement;
  var errors = 0;
  window.addEventListener("error", function () { errors += 1; root.setAttribute("data-errors", String(errors)); });
  function key(cell, numeric) {
    if (numeric) {
      var v = parseFloat(cell.getAttribute("data-sort"));
      return isNaN(v) ? -Infinity : v;
    }
    return cell.textContent;
  }
  function sortBy(table, col, numeric, th) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    rows.sort(function (a, b) {
      var x = key(a.cells[col], numeric), y = key(b.cells[col], numeric);
      return (x < y ? -1 : x > y ? 1 : 0) * dir;
    });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    rows.forEach(function (r) { body.appendChild(r); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      var b = th.querySelector("button");
      if (!b) { return; }
      b.addEventListener("click", function () { sortBy(table, col, b.hasAttribute("data-numeric"), th); });
    });
  });
  var gaps = document.querySelectorAll("[data-gap]").length;
  // Force a layout so that the time below includes it.
  void document.body.offsetHeight;
  root.setAttribute("data-gaps-shown", String(gaps));
  root.setAttribute("data-ready-ms", String(Math.round(performance.now())));
})();
