/*
 * Small inline-SVG charts for the trader pages (trade journal, lessons, markets): no library, no network.
 *
 * A chart is an element with data-chart="line" or data-chart="bars", data-chart-source (the id of a
 * <script type="application/json"> island written by Django's json_script) and data-chart-key (the
 * island's member to draw). Text goes in with textContent only, never parsed as HTML.
 *
 *   line: [[epoch_ms, cumulative_usd], ...] in time order
 *   bars: [{"tag": "chop_lowvol", "trades": 4, "pnl": -12.5}, ...]
 *   revision-bars: [{"label": "Revision 3", "n": 4, "avg": 2.5, "kind": "revision"}, ...]
 *     average realized PnL per lessons revision; "avg" is null when n is 0 ("no trades yet", no bar);
 *     kind "none" marks the no-lessons row; optional "low"/"high" (its 95% interval, given from the
 *     minimum sample on) draw a whisker across the bar.
 *   signal-lines: [{"t": epoch_ms, "p": 62.5, "c": 80, "direction": "YES",
 *                   "events": [{"type": "probability_shift", "description": "..."}]}, ...] in time order
 *     one agent's fair probability and confidence (percent, 0–100) per signal, with the evolution
 *     events detected at that signal marked at its time (the market page; the key is the agent name).
 *
 * Charts in content that htmx swaps in are drawn on htmx:load.
 */
(function () {
  "use strict";

  var SVG_NS = "http://www.w3.org/2000/svg";

  function svgElement(name, attributes, text) {
    var node = document.createElementNS(SVG_NS, name);
    Object.keys(attributes || {}).forEach(function (key) {
      node.setAttribute(key, String(attributes[key]));
    });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function niceStep(span, count) {
    var raw = span / Math.max(count, 1);
    var power = Math.pow(10, Math.floor(Math.log10(raw)));
    var multiples = [1, 2, 2.5, 5, 10];
    for (var i = 0; i < multiples.length; i++) {
      if (raw <= multiples[i] * power) return multiples[i] * power;
    }
    return 10 * power;
  }

  // An axis from min to max widened to round steps, with its tick values.
  function axis(min, max, count) {
    if (min === max) {
      var pad = Math.abs(min) || 1;
      min -= pad;
      max += pad;
    }
    var step = niceStep(max - min, count);
    var low = Math.floor(min / step) * step;
    var high = Math.ceil(max / step) * step;
    var values = [];
    for (var value = low; value <= high + step / 2; value += step) {
      values.push(Math.abs(value) < step / 1e6 ? 0 : value);
    }
    return { min: low, max: high, values: values };
  }

  function usd(value) {
    var sign = value < 0 ? "\u2212" : "";
    var digits = Math.abs(value) >= 10000 ? 0 : 2;
    var text = Math.abs(value).toLocaleString("en-US", {
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    });
    return sign + "$" + text;
  }

  function usdCompact(value) {
    var abs = Math.abs(value);
    var sign = value < 0 ? "\u2212" : "";
    if (abs >= 1e6) return sign + "$" + +(abs / 1e6).toFixed(1) + "M";
    if (abs >= 1e4) return sign + "$" + +(abs / 1e3).toFixed(1) + "k";
    return sign + "$" + +abs.toFixed(2);
  }

  function utc(ms) {
    return new Date(ms).toISOString().slice(0, 16).replace("T", " ");
  }

  function signClass(value) {
    return value > 0 ? "pos" : value < 0 ? "neg" : "flat";
  }

  function newSvg(width, height, label) {
    var svg = svgElement("svg", {
      viewBox: "0 0 " + width + " " + height,
      class: "chart-svg",
      role: "img",
      "aria-label": label,
      preserveAspectRatio: "xMidYMid meet",
    });
    svg.appendChild(svgElement("title", {}, label));
    return svg;
  }

  function showEmpty(container, text) {
    var note = document.createElement("p");
    note.className = "chart-empty";
    note.textContent = text;
    container.replaceChildren(note);
  }

  function drawLine(container, points) {
    if (!points.length) return showEmpty(container, "No closed trades yet.");
    var width = Math.max(Math.round(container.clientWidth) || 0, 320);
    var height = 240;
    var margin = { top: 14, right: 18, bottom: 30, left: 62 };
    var plotWidth = width - margin.left - margin.right;
    var plotHeight = height - margin.top - margin.bottom;

    // The line starts at zero, just before the first close.
    var series = [[points[0][0], 0]].concat(points);
    var start = series[0][0];
    var end = series[series.length - 1][0];
    if (start === end) {
      start -= 3600e3;
      end += 3600e3;
    }
    var values = series.map(function (point) { return point[1]; });
    var yAxis = axis(Math.min(0, Math.min.apply(null, values)), Math.max(0, Math.max.apply(null, values)), 4);
    var x = function (t) { return margin.left + ((t - start) / (end - start)) * plotWidth; };
    var y = function (v) { return margin.top + ((yAxis.max - v) / (yAxis.max - yAxis.min)) * plotHeight; };

    var last = points[points.length - 1];
    var label = "Cumulative realized PnL, " + points.length + " points from " + utc(points[0][0]) +
      " to " + utc(last[0]) + " UTC, ending at " + usd(last[1]);
    var svg = newSvg(width, height, label);

    var grid = svgElement("g", { class: "grid-lines" });
    yAxis.values.forEach(function (value) {
      grid.appendChild(svgElement("line", {
        x1: margin.left, x2: width - margin.right, y1: y(value), y2: y(value),
        class: value === 0 ? "zero" : "",
      }));
      grid.appendChild(svgElement("text", {
        x: margin.left - 8, y: y(value), "text-anchor": "end", "dominant-baseline": "middle", class: "axis-label",
      }, usdCompact(value)));
    });
    svg.appendChild(grid);

    // Realized PnL only moves at a close: a step line, flat until the next close.
    var path = series.map(function (point, index) {
      var px = x(point[0]).toFixed(1);
      var py = y(point[1]).toFixed(1);
      return index ? "H" + px + " V" + py : "M" + px + " " + py;
    }).join(" ");
    var baseline = y(0).toFixed(1);
    svg.appendChild(svgElement("path", {
      d: path + " L" + x(series[series.length - 1][0]).toFixed(1) + " " + baseline +
        " L" + x(series[0][0]).toFixed(1) + " " + baseline + " Z",
      class: "area",
    }));
    svg.appendChild(svgElement("path", { d: path, class: "line " + signClass(last[1]) }));
    var dot = svgElement("circle", { cx: x(last[0]), cy: y(last[1]), r: 3.5, class: "end " + signClass(last[1]) });
    dot.appendChild(svgElement("title", {}, utc(last[0]) + " UTC: " + usd(last[1])));
    svg.appendChild(dot);

    var axisY = height - margin.bottom + 18;
    svg.appendChild(svgElement("text", { x: margin.left, y: axisY, class: "axis-label" }, utc(series[0][0])));
    svg.appendChild(svgElement("text", {
      x: width - margin.right, y: axisY, "text-anchor": "end", class: "axis-label",
    }, utc(last[0]) + " UTC"));
    container.replaceChildren(svg);
  }

  // One horizontal bar per row, scaled so zero and every value fit: the frame both bar charts share.
  function barFrame(container, rowCount, values, rightMargin) {
    var frame = { width: Math.max(Math.round(container.clientWidth) || 0, 320), rowHeight: 28 };
    frame.margin = { top: 6, right: rightMargin, bottom: 6, left: 136 };
    frame.height = frame.margin.top + frame.margin.bottom + frame.rowHeight * rowCount;
    var plotWidth = frame.width - frame.margin.left - frame.margin.right;
    var low = Math.min.apply(null, [0].concat(values));
    var high = Math.max.apply(null, [0].concat(values));
    if (low === high) high = 1;
    frame.x = function (v) { return frame.margin.left + ((v - low) / (high - low)) * plotWidth; };
    frame.top = function (index) { return frame.margin.top + index * frame.rowHeight; };
    frame.zeroLine = function () {
      return svgElement("line", {
        x1: frame.x(0), x2: frame.x(0), y1: frame.margin.top, y2: frame.height - frame.margin.bottom, class: "zero",
      });
    };
    return frame;
  }

  function drawBars(container, bars) {
    if (!bars.length) return showEmpty(container, "No closed trades yet.");
    var frame = barFrame(container, bars.length, bars.map(function (bar) { return bar.pnl; }), 118);
    var width = frame.width, rowHeight = frame.rowHeight, margin = frame.margin, x = frame.x;

    var svg = newSvg(width, frame.height, "Realized PnL by entry regime tag, " + bars.length + " tags");
    bars.forEach(function (bar, index) {
      var top = frame.top(index);
      var middle = top + rowHeight / 2;
      var left = Math.min(x(0), x(bar.pnl));
      var row = svgElement("g", { class: "bar-row" });
      row.appendChild(svgElement("text", {
        x: margin.left - 10, y: middle, "text-anchor": "end", "dominant-baseline": "middle", class: "bar-label",
      }, bar.tag));
      var rect = svgElement("rect", {
        x: left, y: top + 5, width: Math.max(Math.abs(x(bar.pnl) - x(0)), 1), height: rowHeight - 10,
        rx: 2, class: "bar " + signClass(bar.pnl), "data-tag": bar.tag,
      });
      var trades = bar.trades + (bar.trades === 1 ? " trade" : " trades");
      rect.appendChild(svgElement("title", {}, bar.tag + ": " + usd(bar.pnl) + " over " + trades));
      row.appendChild(rect);
      row.appendChild(svgElement("text", {
        x: width - 8, y: middle, "text-anchor": "end", "dominant-baseline": "middle", class: "bar-value " + signClass(bar.pnl),
      }, usd(bar.pnl) + " \u00b7 " + bar.trades));
      svg.appendChild(row);
    });
    svg.appendChild(frame.zeroLine());
    container.replaceChildren(svg);
  }

  function drawRevisionBars(container, rows) {
    if (!rows.length) return showEmpty(container, "No lessons revisions yet.");
    var averages = [];
    rows.forEach(function (row) {
      if (row.n > 0 && row.avg !== null) averages.push(row.avg);
      if (row.low !== undefined && row.low !== null) averages.push(row.low, row.high);
    });
    var frame = barFrame(container, rows.length, averages, 150);
    var width = frame.width, rowHeight = frame.rowHeight, margin = frame.margin, x = frame.x;

    var svg = newSvg(width, frame.height, "Average realized PnL per closed trade by lessons revision, " +
      rows.length + (rows.length === 1 ? " row" : " rows"));
    rows.forEach(function (row, index) {
      var top = frame.top(index);
      var middle = top + rowHeight / 2;
      var group = svgElement("g", { class: "bar-row" + (row.kind === "none" ? " no-lessons" : "") });
      group.appendChild(svgElement("text", {
        x: margin.left - 10, y: middle, "text-anchor": "end", "dominant-baseline": "middle",
        class: "bar-label" + (row.kind === "none" ? " control" : ""),
      }, row.label));
      var count = "n=" + row.n;
      if (row.n > 0 && row.avg !== null) {
        var rect = svgElement("rect", {
          x: Math.min(x(0), x(row.avg)), y: top + 5, width: Math.max(Math.abs(x(row.avg) - x(0)), 1),
          height: rowHeight - 10, rx: 2, class: "bar " + signClass(row.avg), "data-label": row.label,
        });
        rect.appendChild(svgElement("title", {}, row.label + ": " + usd(row.avg) + " average over " + row.n +
          (row.n === 1 ? " closed trade" : " closed trades")));
        group.appendChild(rect);
        if (row.low !== undefined && row.low !== null) {
          var whisker = svgElement("path", {
            d: "M" + x(row.low) + " " + (middle - 5) + "v10M" + x(row.low) + " " + middle + "H" + x(row.high) +
              "M" + x(row.high) + " " + (middle - 5) + "v10",
            class: "ci", "data-label": row.label,
          });
          whisker.appendChild(svgElement("title", {}, "95% interval " + usd(row.low) + " to " + usd(row.high)));
          group.appendChild(whisker);
        }
        group.appendChild(svgElement("text", {
          x: width - 8, y: middle, "text-anchor": "end", "dominant-baseline": "middle",
          class: "bar-value " + signClass(row.avg),
        }, usd(row.avg) + " \u00b7 " + count));
      } else {
        group.appendChild(svgElement("text", {
          x: x(0) + 6, y: middle, "dominant-baseline": "middle", class: "no-trades", "data-label": row.label,
        }, "no trades yet"));
        group.appendChild(svgElement("text", {
          x: width - 8, y: middle, "text-anchor": "end", "dominant-baseline": "middle", class: "bar-value flat",
        }, count));
      }
      svg.appendChild(group);
    });
    svg.appendChild(frame.zeroLine());
    container.replaceChildren(svg);
  }

  function percent(value) {
    return (+value.toFixed(2)) + "%";
  }

  // One agent's signals on a market: fair probability and confidence (0–100%) over time, two lines
  // with a dot per signal, and a marker at the time of each signal where evolution events were detected.
  function drawSignalLines(container, points) {
    if (!points.length) return showEmpty(container, "No signals yet.");
    var width = Math.max(Math.round(container.clientWidth) || 0, 320);
    // A band above the plot holds the event markers: one row per event detected at the same signal.
    var stacked = points.reduce(function (most, point) { return Math.max(most, (point.events || []).length); }, 0);
    var margin = { top: 12 + Math.max(stacked, 1) * 12, right: 18, bottom: 30, left: 44 };
    var height = 220 + margin.top;
    var plotWidth = width - margin.left - margin.right;
    var plotHeight = height - margin.top - margin.bottom;

    var start = points[0].t;
    var end = points[points.length - 1].t;
    if (start === end) {
      start -= 3600e3;
      end += 3600e3;
    }
    var x = function (t) { return margin.left + ((t - start) / (end - start)) * plotWidth; };
    var y = function (v) { return margin.top + ((100 - v) / 100) * plotHeight; };

    var eventCount = points.reduce(function (sum, point) { return sum + (point.events || []).length; }, 0);
    var last = points[points.length - 1];
    var label = "Fair probability and confidence, " + points.length + (points.length === 1 ? " signal" : " signals") +
      " from " + utc(points[0].t) + " to " + utc(last.t) + " UTC, " + eventCount +
      (eventCount === 1 ? " evolution event" : " evolution events") + "; latest " + percent(last.p) +
      " fair probability at " + percent(last.c) + " confidence";
    var svg = newSvg(width, height, label);

    var grid = svgElement("g", { class: "grid-lines" });
    [0, 25, 50, 75, 100].forEach(function (value) {
      grid.appendChild(svgElement("line", { x1: margin.left, x2: width - margin.right, y1: y(value), y2: y(value) }));
      grid.appendChild(svgElement("text", {
        x: margin.left - 8, y: y(value), "text-anchor": "end", "dominant-baseline": "middle", class: "axis-label",
      }, value + "%"));
    });
    svg.appendChild(grid);

    // Event markers first, under the lines: a guide at the signal's time, one dot per event above the plot.
    var markers = svgElement("g", { class: "event-markers" });
    points.forEach(function (point) {
      var events = point.events || [];
      if (!events.length) return;
      var px = x(point.t);
      markers.appendChild(svgElement("line", {
        x1: px, x2: px, y1: margin.top - 12 * events.length, y2: height - margin.bottom, class: "event-guide",
      }));
      events.forEach(function (event, index) {
        var marker = svgElement("g", { class: "event-marker event-" + event.type, "data-type": event.type });
        marker.appendChild(svgElement("circle", { cx: px, cy: margin.top - 8 - index * 12, r: 5 }));
        marker.appendChild(svgElement("title", {}, utc(point.t) + " UTC: " + event.description));
        markers.appendChild(marker);
      });
    });
    svg.appendChild(markers);

    [["p", "probability", "Fair probability"], ["c", "confidence", "Confidence"]].forEach(function (series) {
      var key = series[0];
      var path = points.map(function (point, index) {
        return (index ? "L" : "M") + x(point.t).toFixed(1) + " " + y(point[key]).toFixed(1);
      }).join(" ");
      svg.appendChild(svgElement("path", { d: path, class: "line series-" + series[1], "data-series": series[1] }));
      var dots = svgElement("g", { class: "dots series-" + series[1] });
      points.forEach(function (point) {
        var dot = svgElement("circle", { cx: x(point.t), cy: y(point[key]), r: 3 });
        dot.appendChild(svgElement("title", {}, utc(point.t) + " UTC: " + series[2].toLowerCase() + " " +
          percent(point[key]) + " (" + point.direction + ")"));
        dots.appendChild(dot);
      });
      svg.appendChild(dots);
    });

    var axisY = height - margin.bottom + 18;
    svg.appendChild(svgElement("text", { x: margin.left, y: axisY, class: "axis-label" }, utc(points[0].t)));
    if (points.length > 1) {
      svg.appendChild(svgElement("text", {
        x: width - margin.right, y: axisY, "text-anchor": "end", class: "axis-label",
      }, utc(last.t) + " UTC"));
    }
    container.replaceChildren(svg);
  }

  var DRAW = {
    line: drawLine, bars: drawBars, "revision-bars": drawRevisionBars, "signal-lines": drawSignalLines,
  };

  function drawAll(root) {
    if (!root || !root.querySelectorAll) return;
    var containers = Array.prototype.slice.call(root.querySelectorAll("[data-chart]"));
    if (root.matches && root.matches("[data-chart]")) containers.unshift(root);
    containers.forEach(function (container) {
      var draw = DRAW[container.dataset.chart];
      var island = document.getElementById(container.dataset.chartSource || "");
      if (!draw || !island || container.dataset.drawn) return;
      var data;
      try {
        data = JSON.parse(island.textContent)[container.dataset.chartKey];
      } catch (error) {
        return showEmpty(container, "The chart data could not be read.");
      }
      draw(container, Array.isArray(data) ? data : []);
      container.dataset.drawn = "true";
    });
  }

  window.journalCharts = {
    drawLine: drawLine, drawBars: drawBars, drawRevisionBars: drawRevisionBars, drawSignalLines: drawSignalLines,
    drawAll: drawAll,
  };
  // Content swapped in by htmx (the lessons page's version filter) brings undrawn charts with it.
  document.addEventListener("htmx:load", function (event) { drawAll(event.detail && event.detail.elt); });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { drawAll(document); });
  } else {
    drawAll(document);
  }
})();
