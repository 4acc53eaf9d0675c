// toolgate console: per-tool latency and error charts over the last hour,
// drawn as SVG from the server's per-minute figures (GET /v1/tool-stats):
// no chart library, nothing fetched from elsewhere. Refreshed every 15
// seconds and whenever a call finishes. Below them, the table of figures
// since the start, from /metrics. Uses api(), el() and state.
"use strict";

const chartsView = { timer: 0 };
const svgNS = "http://www.w3.org/2000/svg";
// palette gives each tool a colour, in the tools' sorted order.
const palette = ["#2f6fde", "#d9480f", "#2b8a3e", "#ae3ec9", "#c92a2a", "#0b7285", "#e67700", "#5f3dc4"];
// The plot area inside each chart's 600 x 180 view box.
const plot = { left: 58, right: 570, top: 10, bottom: 150 };

async function refreshCharts() {
  clearTimeout(chartsView.timer);
  if (!state.token) return;
  chartsView.timer = setTimeout(refreshCharts, 15000);
  if (document.hidden) return; // a tab in the background asks nothing
  let data;
  try {
    data = await poll("/v1/tool-stats");
  } catch (_) {
    return;
  }
  drawCharts(data, Date.now());
}

function svg(tag, attrs, text) {
  const e = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

// drawCharts draws both charts and the legend: a line per tool, a point
// per minute in which the tool had calls, in the middle of its minute.
function drawCharts(data, now) {
  const step = (data.step_seconds || 60) * 1000;
  const end = (Math.floor(now / step) + 1) * step; // the current minute's end
  const span = { start: end - 60 * step, end };
  const series = new Map();
  for (const m of data.minutes || []) {
    const t = Date.parse(m.start) + step / 2;
    for (const x of m.tools) {
      if (!series.has(x.tool)) series.set(x.tool, []);
      series.get(x.tool).push({ t, p95: x.p95_seconds, errors: x.errors, calls: x.calls });
    }
  }
  const tools = [...series.keys()].sort();
  const colour = new Map(tools.map((t, i) => [t, palette[i % palette.length]]));
  drawChart(document.getElementById("chart-latency"), { tools, series, colour, span, value: (p) => p.p95, log: true,
    label: fmtSeconds, tip: (p) => fmtSeconds(p.p95) + " p95 over " + p.calls + " call" + (p.calls === 1 ? "" : "s") });
  drawChart(document.getElementById("chart-errors"), { tools, series, colour, span, value: (p) => p.errors, log: false,
    label: (v) => String(Math.round(v)), tip: (p) => p.errors + " of " + p.calls + " not succeeded" });
  document.getElementById("chart-legend").replaceChildren(...tools.map((t) =>
    el("li", { "data-tool": t }, el("span", { class: "swatch " + "c" + (tools.indexOf(t) % palette.length) }), t)));
}

// drawChart draws one chart: a log scale for latency (it spans from
// microseconds to minutes), a linear one from zero for error counts.
function drawChart(root, o) {
  const values = [];
  for (const pts of o.series.values()) for (const p of pts) values.push(o.value(p));
  let lo, hi;
  if (o.log) {
    const pos = values.filter((v) => v > 0);
    lo = Math.pow(10, Math.floor(Math.log10(pos.length ? Math.min(...pos) : 0.001)));
    hi = Math.pow(10, Math.ceil(Math.log10(pos.length ? Math.max(...pos) : 1)));
    if (hi <= lo) hi = lo * 10;
  } else {
    lo = 0;
    hi = Math.max(1, ...values);
  }
  const scale = (v) => o.log ? Math.log10(Math.max(v, lo)) : v;
  const y = (v) => plot.bottom - (scale(v) - scale(lo)) / (scale(hi) - scale(lo)) * (plot.bottom - plot.top);
  const x = (t) => plot.left + (t - o.span.start) / (o.span.end - o.span.start) * (plot.right - plot.left);
  const parts = [
    svg("line", { class: "axis", x1: plot.left, y1: plot.bottom, x2: plot.right, y2: plot.bottom }),
    svg("line", { class: "grid", x1: plot.left, y1: plot.top, x2: plot.right, y2: plot.top }),
    svg("text", { class: "tick", x: plot.left - 6, y: plot.top + 4, "text-anchor": "end" }, o.label(hi)),
    svg("text", { class: "tick", x: plot.left - 6, y: plot.bottom + 4, "text-anchor": "end" }, o.label(lo)),
    svg("text", { class: "tick", x: plot.left, y: plot.bottom + 20 }, "60 min ago"),
    svg("text", { class: "tick", x: plot.right, y: plot.bottom + 20, "text-anchor": "end" }, "now"),
  ];
  if (o.log) {
    for (let v = lo * 10; v < hi; v *= 10) {
      parts.push(svg("line", { class: "grid", x1: plot.left, y1: y(v), x2: plot.right, y2: y(v) }),
        svg("text", { class: "tick", x: plot.left - 6, y: y(v) + 4, "text-anchor": "end" }, o.label(v)));
    }
  }
  for (const tool of o.tools) {
    const pts = o.series.get(tool).filter((p) => p.t >= o.span.start && p.t <= o.span.end);
    const c = o.colour.get(tool);
    if (pts.length > 1) {
      parts.push(svg("polyline", { class: "series", "data-tool": tool, fill: "none", stroke: c, "stroke-width": 2,
        points: pts.map((p) => x(p.t).toFixed(1) + "," + y(o.value(p)).toFixed(1)).join(" ") }));
    }
    for (const p of pts) {
      const dot = svg("circle", { class: "point", "data-tool": tool, cx: x(p.t).toFixed(1), cy: y(o.value(p)).toFixed(1), r: 4, fill: c });
      dot.append(svg("title", {}, tool + " at " + new Date(p.t).toLocaleTimeString() + ": " + o.tip(p)));
      parts.push(dot);
    }
  }
  if (!values.length) {
    parts.push(svg("text", { class: "empty", x: (plot.left + plot.right) / 2, y: (plot.top + plot.bottom) / 2, "text-anchor": "middle" },
      "no calls in the last hour"));
  }
  root.replaceChildren(...parts);
}

// ---- latency from /metrics -------------------------------------------------

function parseMetrics(text) {
  const tools = new Map();
  const get = (t) => tools.get(t) || tools.set(t, { buckets: [], sum: 0, count: 0, bad: 0 }).get(t);
  const re = /^toolgate_tool_call(?:_duration_seconds_(bucket|sum|count)|s_total)\{([^}]*)\} ([0-9.eE+-]+|\+Inf)$/;
  for (const line of text.split("\n")) {
    const m = re.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[2].matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    // A tool's series of every dialect add up (a name such as read_file
    // has one series per dialect).
    const t = get(labels.tool);
    const v = Number(m[3]);
    if (m[1] === "bucket") {
      const le = labels.le === "+Inf" ? Infinity : Number(labels.le);
      const b = t.buckets.find((x) => x[0] === le);
      if (b) b[1] += v;
      else t.buckets.push([le, v]);
    } else if (m[1] === "sum") t.sum += v;
    else if (m[1] === "count") t.count += v;
    else if (labels.status !== "succeeded") t.bad += v;
  }
  return tools;
}

function quantile(buckets, count, q) {
  const sorted = buckets.slice().sort((a, b) => a[0] - b[0]);
  for (const [le, n] of sorted) if (n >= q * count) return le;
  return Infinity;
}

function fmtSeconds(s) {
  if (!isFinite(s)) return "> max";
  return s < 1 ? (s * 1000).toFixed(s < 0.01 ? 2 : 1) + " ms" : s.toFixed(2) + " s";
}

async function refreshMetrics() {
  clearTimeout(state.metricsTimer);
  state.metricsTimer = setTimeout(refreshMetrics, 5000);
  if (document.hidden) return;
  let text;
  try {
    const res = await fetch("/metrics", { headers: { [pollHeader]: "1" } });
    text = await res.text();
  } catch (_) {
    return;
  }
  const rows = [...parseMetrics(text)].filter(([, t]) => t.count > 0).sort((a, b) => a[0].localeCompare(b[0]));
  const body = $("metrics").tBodies[0];
  body.replaceChildren();
  if (rows.length === 0) {
    body.append(el("tr", {}, el("td", { colspan: "6", class: "muted" }, "no calls yet")));
    return;
  }
  for (const [name, t] of rows) {
    body.append(el("tr", { "data-tool": name },
      el("td", {}, name), el("td", { class: "num" }, t.count), el("td", { class: "num" }, t.bad),
      el("td", { class: "num" }, fmtSeconds(t.sum / t.count)),
      el("td", { class: "num" }, fmtSeconds(quantile(t.buckets, t.count, 0.5))),
      el("td", { class: "num" }, fmtSeconds(quantile(t.buckets, t.count, 0.95)))));
  }
}
