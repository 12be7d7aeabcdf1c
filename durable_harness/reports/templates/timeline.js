/* A history as swimlanes on a canvas: one lane per process, operations as bars from invoke to
   ok / fail / info, faults, crashes and restarts as marks, witnesses highlighted. Zoom with the
   buttons, Ctrl + wheel or a double click; drag to pan. The list below shows the entries in view.
   It draws only what is in view, so 10,000 entries stay responsive. No network, no library. */
"use strict";

var DHTimeline = (function () {
  var COLOR = { ok: "#2e7d32", fail: "#c62828", info: "#ef8f00", open: "#9e9e9e", event: "#1565c0",
    fault: "#d50000", crash: "#111111", restart: "#6a1b9a", report: "#8e24aa", phase: "#78909c",
    clock: "#455a64", other: "#546e7a", witness: "#ffd600", select: "#0b57d0" };
  var LANE_H = 22, LABEL_W = 140, AXIS_H = 20, RIGHT = 8, LIST_MAX = 250, MIN_SPAN = 8;
  var COMPLETION = { ok: 1, fail: 1, info: 1 };

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function Timeline(mount, data) {
    this.mount = mount;
    this.d = data;
    this.n = data.i.length;
    this.axis = "order";
    this.sel = -1;
    this.w = 0;
    this.pos = {};
    for (var p = 0; p < this.n; p++) this.pos[data.i[p]] = p;
    this.wit = data.w.map(function (ix) { return this.pos[ix]; }, this).filter(function (p) { return p !== undefined; });
    this.witSet = {};
    for (var k = 0; k < this.wit.length; k++) this.witSet[this.wit[k]] = true;
    this.wcur = -1;
    this.bars = this.pairBars();
    this.build();
    this.fit();
  }

  Timeline.prototype.typeOf = function (p) { return this.d.types[this.d.k[p]]; };

  /* Bars: an invoke paired with the completion that has its op; an invoke never completed is open. */
  Timeline.prototype.pairBars = function () {
    var open = {}, bars = [], d = this.d;
    this.barOf = new Int32Array(this.n).fill(-1);
    for (var p = 0; p < this.n; p++) {
      var type = this.typeOf(p), op = d.o[p];
      if (op < 0) continue;
      if (type === "invoke") { open[op] = p; }
      else if (COMPLETION[type] && open[op] !== undefined) {
        var a = open[op];
        delete open[op];
        this.barOf[a] = this.barOf[p] = bars.length;
        bars.push({ a: a, b: p, lane: d.l[a], kind: type });
      }
    }
    for (var key in open) {
      if (Object.prototype.hasOwnProperty.call(open, key)) {
        this.barOf[open[key]] = bars.length;
        bars.push({ a: open[key], b: this.n - 1, lane: this.d.l[open[key]], kind: "open" });
      }
    }
    return bars;
  };

  Timeline.prototype.build = function () {
    var self = this, tools = el("div", "tl-tools");
    function button(label, title, fn) {
      var b = el("button", "", label);
      b.type = "button";
      b.title = title;
      b.addEventListener("click", fn);
      tools.appendChild(b);
      return b;
    }
    button("+", "zoom in", function () { self.zoom(0.5); });
    button("−", "zoom out", function () { self.zoom(2); });
    button("fit", "show the whole history", function () { self.fit(); });
    this.axisButton = button("axis: order", "x axis: entry order or virtual time", function () { self.toggleAxis(); });
    if (this.wit.length) {
      button("◀ witness", "previous witness", function () { self.stepWitness(-1); });
      button("witness ▶", "next witness", function () { self.stepWitness(1); });
    }
    var legend = el("span", "legend muted");
    [["ok", "ok"], ["fail", "fail"], ["info", "info (outcome unknown)"], ["open", "no answer"], ["event", "event"],
      ["report", "report"], ["fault", "fault"], ["crash", "crash / restart"], ["witness", "witness"]].forEach(function (pair) {
      var s = el("span"), i = el("i");
      i.style.background = COLOR[pair[0]];
      s.appendChild(i);
      s.appendChild(document.createTextNode(pair[1]));
      legend.appendChild(s);
    });
    tools.appendChild(legend);
    this.wrap = el("div", "tl-wrap");
    this.canvas = el("canvas");
    this.canvas.setAttribute("role", "img");
    this.canvas.setAttribute("aria-label", "timeline of " + this.n + " history entries in " + this.d.lanes.length + " lanes");
    this.tip = el("div", "tl-tip");
    this.tip.hidden = true;
    this.wrap.appendChild(this.canvas);
    this.wrap.appendChild(this.tip);
    this.detail = el("div", "tl-detail muted", "Point at an entry for its summary; click it for its data.");
    this.list = el("ol", "tl-list");
    this.mount.appendChild(tools);
    this.mount.appendChild(this.wrap);
    this.mount.appendChild(this.detail);
    this.mount.appendChild(this.list);
    this.listen();
  };

  Timeline.prototype.listen = function () {
    var self = this, c = this.canvas, drag = null;
    c.addEventListener("mousedown", function (e) { drag = { x: e.clientX, v0: self.v0, v1: self.v1, moved: false }; });
    window.addEventListener("mouseup", function () {
      if (drag) { c.classList.remove("dragging"); self.dragMoved = drag.moved; drag = null; }
    });
    c.addEventListener("mousemove", function (e) {
      if (drag && (e.buttons & 1)) {
        var dx = e.clientX - drag.x;
        if (Math.abs(dx) > 2) { drag.moved = true; c.classList.add("dragging"); }
        var per = (drag.v1 - drag.v0) / self.plotW();
        self.v0 = drag.v0 - dx * per;
        self.v1 = drag.v1 - dx * per;
        self.draw();
        return;
      }
      self.hover(e);
    });
    c.addEventListener("mouseleave", function () { self.tip.hidden = true; });
    c.addEventListener("click", function (e) {
      if (self.dragMoved) { self.dragMoved = false; return; }
      var p = self.hit(e);
      if (p >= 0) self.select(p, false);
    });
    c.addEventListener("dblclick", function (e) { self.zoom(0.35, self.unitAt(e)); });
    c.addEventListener("wheel", function (e) {
      if (!(e.ctrlKey || e.metaKey || e.altKey)) return;
      e.preventDefault();
      self.zoom(e.deltaY > 0 ? 1.25 : 0.8, self.unitAt(e));
    }, { passive: false });
    if (typeof ResizeObserver !== "undefined") {
      new ResizeObserver(function () { self.draw(); }).observe(this.wrap);
    }
  };

  Timeline.prototype.x = function (p) { return this.axis === "order" ? p : this.d.t[p]; };
  Timeline.prototype.plotW = function () { return Math.max(50, this.w - LABEL_W - RIGHT); };
  Timeline.prototype.px = function (u) { return LABEL_W + (u - this.v0) / (this.v1 - this.v0) * this.plotW(); };
  Timeline.prototype.unitAt = function (e) {
    var r = this.canvas.getBoundingClientRect();
    return this.v0 + (e.clientX - r.left - LABEL_W) / this.plotW() * (this.v1 - this.v0);
  };

  Timeline.prototype.fit = function () {
    if (this.axis === "order") { this.v0 = -1; this.v1 = Math.max(this.n, 2); }
    else {
      var t0 = this.n ? this.d.t[0] : 0, t1 = this.n ? this.d.t[this.n - 1] : 1, pad = Math.max((t1 - t0) * 0.01, 0.5);
      this.v0 = t0 - pad; this.v1 = t1 + pad;
    }
    this.draw();
  };

  Timeline.prototype.minSpan = function () { return this.axis === "order" ? MIN_SPAN : 0.01; };

  Timeline.prototype.zoom = function (factor, at) {
    var mid = at === undefined ? (this.v0 + this.v1) / 2 : at;
    var span = Math.max((this.v1 - this.v0) * factor, this.minSpan());
    var left = (mid - this.v0) / (this.v1 - this.v0);
    this.v0 = mid - span * left;
    this.v1 = this.v0 + span;
    this.draw();
  };

  Timeline.prototype.toggleAxis = function () {
    var centre = this.sel >= 0 ? this.sel : this.first(this.x0Unit());
    this.axis = this.axis === "order" ? "time" : "order";
    this.axisButton.textContent = "axis: " + (this.axis === "order" ? "order" : "virtual time");
    this.fit();
    if (centre >= 0 && centre < this.n) this.centreOn(centre, this.axis === "order" ? 80 : null);
  };

  Timeline.prototype.x0Unit = function () { return (this.v0 + this.v1) / 2; };

  /* The first position whose axis value is >= u (values are non-decreasing in both axes). */
  Timeline.prototype.first = function (u) {
    var lo = 0, hi = this.n;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (this.x(mid) < u) lo = mid + 1; else hi = mid; }
    return lo;
  };

  Timeline.prototype.visible = function () {
    return [Math.max(0, this.first(this.v0) - 1), Math.min(this.n, this.first(this.v1) + 1)];
  };

  Timeline.prototype.draw = function () {
    var dpr = window.devicePixelRatio || 1, width = this.wrap.clientWidth || 900;
    var lanes = this.d.lanes.length, height = AXIS_H + lanes * LANE_H + 6;
    this.w = width;
    if (this.canvas.width !== Math.round(width * dpr) || this.canvas.height !== Math.round(height * dpr)) {
      this.canvas.width = Math.round(width * dpr);
      this.canvas.height = Math.round(height * dpr);
      this.canvas.style.height = height + "px";
    }
    var g = this.canvas.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    g.font = "12px system-ui, sans-serif";
    for (var l = 0; l < lanes; l++) {
      var y = AXIS_H + l * LANE_H;
      g.fillStyle = l % 2 ? "#ffffff" : "#f4f6f8";
      g.fillRect(0, y, width, LANE_H);
      g.fillStyle = "#37474f";
      g.fillText(this.d.lanes[l], 4, y + 15, LABEL_W - 8);
    }
    this.drawAxis(g, height);
    g.save();
    g.beginPath();
    g.rect(LABEL_W, 0, width - LABEL_W, height);
    g.clip();
    var range = this.visible(), drawn = this.drawMarks(g, range, height) + this.drawBars(g, range) + this.drawPoints(g, range);
    g.restore();
    this.mount.setAttribute("data-drawn", String(drawn));
    this.fillList(range);
  };

  Timeline.prototype.drawAxis = function (g, height) {
    var span = this.v1 - this.v0, step = Math.pow(10, Math.floor(Math.log10(span / 8)));
    if (span / step > 16) step *= 5; else if (span / step > 8) step *= 2;
    step = Math.max(step, this.axis === "order" ? 1 : 0.001);
    g.fillStyle = "#5f6b73";
    g.strokeStyle = "#e3e8eb";
    for (var u = Math.ceil(this.v0 / step) * step; u <= this.v1; u += step) {
      var x = this.px(u);
      if (x < LABEL_W) continue;
      g.beginPath(); g.moveTo(x + 0.5, AXIS_H - 4); g.lineTo(x + 0.5, height); g.stroke();
      var label = this.axis === "order" ? "#" + (this.d.i[Math.round(u)] !== undefined ? this.d.i[Math.round(u)] : Math.round(u)) : (+u.toFixed(3)) + "s";
      g.fillText(label, x + 2, 12);
    }
    g.fillText(this.axis === "order" ? "entry" : "virtual s", 4, 12);
  };

  Timeline.prototype.laneY = function (lane) { return AXIS_H + lane * LANE_H; };

  Timeline.prototype.drawMarks = function (g, range, height) {
    var count = 0;
    for (var p = range[0]; p < range[1]; p++) {
      var type = this.typeOf(p);
      if (type !== "crash" && type !== "restart" && !this.witSet[p]) continue;
      var x = this.px(this.x(p));
      g.strokeStyle = this.witSet[p] ? "rgba(255,214,0,0.9)" : COLOR[type];
      g.lineWidth = this.witSet[p] ? 3 : 1.5;
      g.setLineDash(type === "restart" ? [4, 3] : []);
      g.beginPath(); g.moveTo(x, AXIS_H); g.lineTo(x, height); g.stroke();
      count++;
    }
    g.setLineDash([]);
    g.lineWidth = 1;
    return count;
  };

  Timeline.prototype.drawBars = function (g, range) {
    var count = 0, lo = this.x(range[0] > 0 ? range[0] - 1 : 0), hi = this.x(Math.max(range[1] - 1, 0));
    for (var k = 0; k < this.bars.length; k++) {
      var bar = this.bars[k], a = this.x(bar.a), b = this.x(bar.b);
      if (b < lo || a > hi) continue;
      var x0 = this.px(a), x1 = Math.max(this.px(b), x0 + 3), y = this.laneY(bar.lane) + 5;
      g.fillStyle = COLOR[bar.kind];
      g.globalAlpha = bar.kind === "open" ? 0.5 : 0.85;
      g.fillRect(x0, y, x1 - x0, LANE_H - 10);
      g.globalAlpha = 1;
      if (this.sel >= 0 && (this.sel === bar.a || this.sel === bar.b)) {
        g.strokeStyle = COLOR.select; g.lineWidth = 2; g.strokeRect(x0 - 1, y - 1, x1 - x0 + 2, LANE_H - 8); g.lineWidth = 1;
      }
      count++;
    }
    return count;
  };

  Timeline.prototype.drawPoints = function (g, range) {
    var count = 0;
    for (var p = range[0]; p < range[1]; p++) {
      var type = this.typeOf(p);
      if (this.barOf[p] >= 0 && !this.witSet[p] && p !== this.sel) continue;
      var x = this.px(this.x(p)), y = this.laneY(this.d.l[p]) + LANE_H / 2;
      if (this.witSet[p]) { g.fillStyle = COLOR.witness; g.beginPath(); g.arc(x, y, 7, 0, 6.2832); g.fill(); }
      if (type === "fault") {
        g.fillStyle = COLOR.fault; g.beginPath(); g.moveTo(x, y - 7); g.lineTo(x + 6, y + 5); g.lineTo(x - 6, y + 5); g.closePath(); g.fill();
      } else if (type === "crash") {
        g.strokeStyle = COLOR.crash; g.lineWidth = 2; g.beginPath(); g.moveTo(x - 5, y - 5); g.lineTo(x + 5, y + 5);
        g.moveTo(x + 5, y - 5); g.lineTo(x - 5, y + 5); g.stroke(); g.lineWidth = 1;
      } else if (this.barOf[p] < 0) {
        g.fillStyle = COLOR[type] || COLOR.other; g.fillRect(x - 1.5, y - 6, 3, 12);
      }
      if (p === this.sel) { g.strokeStyle = COLOR.select; g.lineWidth = 2; g.strokeRect(x - 6, y - 9, 12, 18); g.lineWidth = 1; }
      count++;
    }
    return count;
  };

  /* The entry under the mouse: a point within a few pixels in that lane, else the bar under it. */
  Timeline.prototype.hit = function (e) {
    var r = this.canvas.getBoundingClientRect(), mx = e.clientX - r.left, lane = Math.floor((e.clientY - r.top - AXIS_H) / LANE_H);
    if (mx < LABEL_W || lane < 0 || lane >= this.d.lanes.length) return -1;
    var u = this.unitAt(e), per = (this.v1 - this.v0) / this.plotW(), best = -1, bestD = 7;
    var from = this.first(u - 8 * per), to = this.first(u + 8 * per);
    for (var p = Math.max(0, from - 1); p < Math.min(this.n, to + 1); p++) {
      if (this.d.l[p] !== lane) continue;
      var dist = Math.abs(this.px(this.x(p)) - mx);
      if (dist < bestD) { bestD = dist; best = p; }
    }
    if (best >= 0) return best;
    for (var k = 0; k < this.bars.length; k++) {
      var bar = this.bars[k];
      if (bar.lane === lane && this.x(bar.a) <= u && u <= this.x(bar.b)) return bar.a;
    }
    return -1;
  };

  Timeline.prototype.line = function (p) {
    return "#" + this.d.i[p] + " t=" + this.d.t[p] + "s " + this.d.lanes[this.d.l[p]] + " " + this.typeOf(p) +
      (this.d.o[p] >= 0 ? " op " + this.d.o[p] : "") + ": " + this.d.s[p];
  };

  Timeline.prototype.hover = function (e) {
    var p = this.hit(e);
    if (p < 0) { this.tip.hidden = true; return; }
    var r = this.canvas.getBoundingClientRect();
    this.tip.textContent = (this.witSet[p] ? "witness · " : "") + this.line(p);
    this.tip.hidden = false;
    this.tip.style.left = Math.min(e.clientX - r.left + 12, Math.max(0, this.w - 420)) + "px";
    this.tip.style.top = (e.clientY - r.top + 14) + "px";
  };

  Timeline.prototype.select = function (p, centre) {
    this.sel = p;
    if (centre) this.centreOn(p, this.axis === "order" ? 60 : null);
    this.detail.className = "tl-detail";
    this.detail.textContent = "";
    var head = el("div", "", (this.witSet[p] ? "witness · " : "") + this.line(p));
    var bar = this.barOf[p] >= 0 ? this.bars[this.barOf[p]] : null;
    if (bar) head.appendChild(el("span", "muted", "  (operation #" + this.d.i[bar.a] + " → #" + this.d.i[bar.b] + ", " + bar.kind + ")"));
    this.detail.appendChild(head);
    if (this.d.d[p]) this.detail.appendChild(el("code", "", this.d.d[p]));
    this.draw();
  };

  Timeline.prototype.centreOn = function (p, spanEntries) {
    var u = this.x(p), span = spanEntries !== null ? spanEntries : Math.max((this.v1 - this.v0) / 4, 2);
    this.v0 = u - span / 2;
    this.v1 = u + span / 2;
    this.draw();
  };

  Timeline.prototype.focusEntry = function (index) {
    var p = this.pos[index];
    if (p === undefined) return false;
    var k = this.wit.indexOf(p);
    if (k >= 0) this.wcur = k;
    this.select(p, true);
    return true;
  };

  Timeline.prototype.stepWitness = function (delta) {
    if (!this.wit.length) return;
    this.wcur = (this.wcur + delta + this.wit.length) % this.wit.length;
    this.select(this.wit[this.wcur], true);
  };

  Timeline.prototype.fillList = function (range) {
    var self = this, frag = document.createDocumentFragment(), from = Math.max(range[0], 0), to = Math.min(range[1], this.n);
    var shown = Math.min(to - from, LIST_MAX);
    for (var p = from; p < from + shown; p++) {
      var li = el("li", (this.witSet[p] ? "w" : "") + (p === this.sel ? " sel" : ""));
      li.appendChild(el("span", "ix", "#" + this.d.i[p]));
      li.appendChild(el("span", "pr", this.d.lanes[this.d.l[p]]));
      li.appendChild(document.createTextNode(" t=" + this.d.t[p] + "s " + this.typeOf(p) + " — " + this.d.s[p]));
      li.setAttribute("data-p", String(p));
      frag.appendChild(li);
    }
    if (to - from > shown) frag.appendChild(el("li", "muted", "… " + (to - from - shown) + " more entries in view: zoom in to list them"));
    this.list.textContent = "";
    this.list.appendChild(frag);
    var chosen = this.list.querySelector("li.sel");
    if (chosen) this.list.scrollTop = Math.max(0, chosen.offsetTop - this.list.clientHeight / 2);
    if (!this.listBound) {
      this.listBound = true;
      this.list.addEventListener("click", function (e) {
        var li = e.target.closest ? e.target.closest("li[data-p]") : null;
        if (li) self.select(Number(li.getAttribute("data-p")), false);
      });
    }
  };

  return Timeline;
})();
