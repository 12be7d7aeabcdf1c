/* The report's behaviour: timelines drawn when their scenario is opened (or a link points into
   them), links from findings to witness entries, copy buttons, and the filter bar. */
(function () {
  var data = null, made = {};

  function timelines() {
    if (data === null) {
      var node = document.getElementById("dh-timelines");
      data = node ? JSON.parse(node.textContent) : {};
    }
    return data;
  }

  function timeline(id) {
    if (made[id]) return made[id];
    var mount = document.querySelector('.tl-mount[data-tl="' + id + '"]'), d = timelines()[id];
    if (!mount || !d) return null;
    made[id] = new DHTimeline(mount, d);
    return made[id];
  }

  function drawOpen(root) {
    var mounts = root.querySelectorAll(".tl-mount");
    for (var k = 0; k < mounts.length; k++) {
      var details = mounts[k].closest("details");
      if (!details || details.open) timeline(mounts[k].getAttribute("data-tl"));
    }
  }

  function follow(link) {
    var id = link.getAttribute("data-tl"), figure = document.getElementById(id);
    if (!figure) return;
    var details = figure.closest("details");
    if (details && !details.open) details.open = true;
    var tl = timeline(id);
    if (tl) tl.focusEntry(Number(link.getAttribute("data-entry")));
    var focused = document.querySelectorAll("figure.timeline.focus");
    for (var k = 0; k < focused.length; k++) focused[k].classList.remove("focus");
    figure.classList.add("focus");
    figure.scrollIntoView({ block: "center" });
  }

  function copy(button) {
    var text = button.getAttribute("data-copy");
    function done(ok) {
      button.textContent = ok ? "copied" : "select it and copy";
      setTimeout(function () { button.textContent = "copy"; }, 1500);
    }
    function fallback() {
      var area = document.createElement("textarea"), ok = false;
      area.value = text;
      area.setAttribute("readonly", "");
      area.style.position = "fixed";
      area.style.opacity = "0";
      document.body.appendChild(area);
      area.select();
      try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
      document.body.removeChild(area);
      done(ok);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, fallback);
    } else {
      fallback();
    }
  }

  function filter() {
    var text = document.getElementById("f-text").value.trim().toLowerCase();
    var counter = document.getElementById("f-counter").value, statuses = {};
    var boxes = document.querySelectorAll(".f-status");
    for (var k = 0; k < boxes.length; k++) if (boxes[k].checked) statuses[boxes[k].value] = true;
    function keep(node, withStatus) {
      var status = node.getAttribute("data-status");
      if (withStatus && status && !statuses[status]) return false;
      if (withStatus && counter && (" " + (node.getAttribute("data-bad") || "") + " ").indexOf(" " + counter + " ") < 0) return false;
      if (!text) return true;
      return (node.getAttribute("data-scenario") || "").toLowerCase().indexOf(text) >= 0 ||
        node.textContent.toLowerCase().indexOf(text) >= 0;
    }
    var shown = 0, sections = document.querySelectorAll("details.scenario");
    for (k = 0; k < sections.length; k++) {
      sections[k].hidden = !keep(sections[k], true);
      if (!sections[k].hidden) shown++;
    }
    var rows = document.querySelectorAll("table.matrix tr.row");
    for (k = 0; k < rows.length; k++) rows[k].hidden = !keep(rows[k], true);
    var cover = document.querySelectorAll("#coverage tr.row");
    for (k = 0; k < cover.length; k++) cover[k].hidden = !keep(cover[k], false);
    var findings = document.querySelectorAll("article.finding");
    for (k = 0; k < findings.length; k++) {
      var items = findings[k].querySelectorAll(".finding-item"), any = false;
      for (var j = 0; j < items.length; j++) {
        items[j].hidden = !keep(items[j], true);
        any = any || !items[j].hidden;
      }
      findings[k].hidden = !any;
    }
    document.getElementById("f-count").textContent = "showing " + shown + " of " + sections.length + " scenarios";
  }

  document.addEventListener("click", function (e) {
    var target = e.target;
    if (!target || !target.closest) return;
    var link = target.closest("a.wlink");
    if (link) { e.preventDefault(); follow(link); return; }
    var button = target.closest("button.copy");
    if (button) copy(button);
  });
  document.addEventListener("toggle", function (e) {
    if (e.target && e.target.matches && e.target.matches("details.scenario") && e.target.open) drawOpen(e.target);
  }, true);
  ["f-text", "f-counter"].forEach(function (id) { document.getElementById(id).addEventListener("input", filter); });
  var boxes = document.querySelectorAll(".f-status");
  for (var k = 0; k < boxes.length; k++) boxes[k].addEventListener("change", filter);
  drawOpen(document);
  filter();
  window.dhReport = { timeline: timeline, drawn: function () { return Object.keys(made).length; } };
})();
