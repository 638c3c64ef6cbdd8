// A form's numbers in the console (`GET /v1/admin/forms/{id}/stats`): submissions, rejections and
// drafts started per day as bars in an SVG drawn through the DOM (the Content-Security-Policy allows
// no inline styles, so colors are classes in formhouse.css), the share of drafts that were submitted,
// and the inputs that are refused most. Screen readers get a summary and a table of the same numbers.

import { t, formatNumber, formatDateTime } from "./i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 720;
const HEIGHT = 260;
/** Room for the axes' text; on the right, for half of the newest day's date. */
const MARGIN = { top: 12, right: 24, bottom: 34, left: 44 };
/** How many of the inputs refused most are listed. */
const FAILING_SHOWN = 5;

/** The series drawn per day: the member of a `daily` entry, its name, its color class, and a count of it in words. */
const SERIES = [
  ["submissions", t("stats.submissions"), "st-submissions", (n) => t("stats.countSubmissions", { count: n })],
  ["rejected", t("stats.rejected"), "st-rejected", (n) => t("stats.countRejected", { count: n })],
  ["draftsStarted", t("stats.draftsStarted"), "st-drafts", (n) => t("stats.countDraftsStarted", { count: n })],
];

function node(tag, attributes = {}, children = [], namespace = null) {
  const element = namespace ? document.createElementNS(namespace, tag) : document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null) continue;
    if (name === "text") element.textContent = String(value);
    else element.setAttribute(name, String(value));
  }
  for (const child of children) if (child !== null && child !== undefined) element.append(child);
  return element;
}

const html = (tag, attributes, children) => node(tag, attributes, children);
const svg = (tag, attributes, children) => node(tag, attributes, children, SVG);

function count(value) {
  return Number.isFinite(value) ? value : 0;
}

/** "2026-11-27" → "Nov 27" in English, "27 de nov." in Portuguese: the server's days are UTC days. */
function dayLabel(date) {
  const parsed = new Date(`${date}T00:00:00Z`);
  return Number.isNaN(parsed.getTime()) ? String(date)
    : formatDateTime(parsed, { month: "short", day: "numeric", timeZone: "UTC" });
}

/** A round step for the value axis, so that at most five lines reach past `max`. */
function axisStep(max) {
  const rough = Math.max(max, 1) / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough);
  return Math.max(1, step);
}

function sum(days, key) {
  return days.reduce((total, day) => total + count(day[key]), 0);
}

/** The one-sentence summary the chart is named by. */
function summarize(stats, days) {
  const totals = SERIES.map(([key, , , words]) => words(sum(days, key))).join(", ");
  const last = days[days.length - 1];
  const today = last ? ` ${t("stats.lastDay", { day: dayLabel(last.date), counts: SERIES.map(([key, , , words]) => words(count(last[key]))).join(", ") })}` : "";
  return `${t("stats.summary", { from: dayLabel(stats.from), to: dayLabel(stats.to), totals })}${today}`;
}

function chart(stats, days) {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const highest = Math.max(0, ...days.flatMap((day) => SERIES.map(([key]) => count(day[key]))));
  const step = axisStep(highest);
  const top = Math.max(step, Math.ceil(highest / step) * step);
  const y = (value) => MARGIN.top + plotHeight - (value / top) * plotHeight;
  const slot = plotWidth / Math.max(days.length, 1);
  const bar = Math.max(1, (slot - 4) / SERIES.length);

  const figure = svg("svg", {
    class: "st-chart", id: "stats-chart", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": summarize(stats, days),
  });
  for (let value = 0; value <= top; value += step) {
    figure.append(
      svg("line", { class: value === 0 ? "st-axis-line" : "st-grid-line", x1: MARGIN.left, x2: WIDTH - MARGIN.right, y1: y(value), y2: y(value) }),
      svg("text", { class: "st-axis", x: MARGIN.left - 6, y: y(value) + 4, "text-anchor": "end", text: formatNumber(value) }));
  }
  days.forEach((day, index) => {
    const left = MARGIN.left + index * slot + 2;
    SERIES.forEach(([key, , className, words], k) => {
      const value = count(day[key]);
      if (value === 0) return;
      figure.append(svg("rect", {
        class: `st-bar ${className}`, x: left + k * bar, y: y(value), width: Math.max(bar - 1, 1), height: y(0) - y(value),
      }, [svg("title", { text: `${dayLabel(day.date)}: ${words(value)}` })]));
    });
    // A date under every seventh day, counted back from the last, so the newest day is always named.
    if ((days.length - 1 - index) % 7 === 0) {
      figure.append(svg("text", {
        class: "st-axis", x: left + (slot - 4) / 2, y: HEIGHT - MARGIN.bottom + 18, "text-anchor": "middle", text: dayLabel(day.date),
      }));
    }
  });
  return figure;
}

function legend() {
  return html("ul", { class: "st-legend" }, SERIES.map(([, name, className]) =>
    html("li", {}, [html("span", { class: `st-swatch ${className}`, "aria-hidden": "true" }), name])));
}

/** The same numbers as the chart, for screen readers (drawn off screen). */
function dailyTable(stats, days) {
  const columns = [t("stats.date"), t("stats.submissions"), t("stats.rejected"), t("stats.draftsStarted"), t("stats.draftsSubmitted")];
  const keys = ["submissions", "rejected", "draftsStarted", "draftsSubmitted"];
  // Hidden by its wrapper: a table is never narrower than its text, whatever width it is given.
  return html("div", { class: "fh-visually-hidden" }, [html("table", { id: "stats-table" }, [
    html("caption", { text: t("stats.caption", { from: dayLabel(stats.from), to: dayLabel(stats.to) }) }),
    html("thead", {}, [html("tr", {}, columns.map((title) => html("th", { scope: "col", text: title })))]),
    html("tbody", {}, days.map((day) => html("tr", { "data-date": day.date }, [
      html("th", { scope: "row", text: dayLabel(day.date) }),
      ...keys.map((key) => html("td", { "data-key": key, text: count(day[key]) })),
    ]))),
  ])]);
}

function completion(stats) {
  const rate = stats.completionRate;
  if (!Number.isFinite(rate)) {
    return html("div", { class: "st-rate" }, [
      html("p", { class: "st-rate-number", id: "completion-rate", text: t("stats.noDrafts") }),
      html("p", { class: "st-rate-text", text: t("stats.draftsHelp") }),
    ]);
  }
  const started = count(stats.draftsStarted);
  const submitted = count(stats.draftsSubmitted);
  return html("div", { class: "st-rate" }, [
    html("p", { class: "st-rate-number", id: "completion-rate", text: formatNumber(rate, { style: "percent" }) }),
    html("p", { class: "st-rate-text", text: t("stats.rate", { submitted, count: started }) }),
  ]);
}

function totals(stats) {
  const rows = [
    [t("stats.submissions"), stats.submissions], [t("stats.rejected"), stats.rejected],
    [t("stats.draftsStarted"), stats.draftsStarted], [t("stats.draftsSubmitted"), stats.draftsSubmitted],
  ];
  return html("dl", { class: "fh-facts st-totals" }, rows.flatMap(([name, value]) => [
    html("dt", { text: name }), html("dd", { text: formatNumber(count(value)) }),
  ]));
}

/** The inputs refused most, each with its commonest error code, as a ranked list with bars. */
function failing(stats) {
  const ranked = Object.entries(stats.rejections && typeof stats.rejections === "object" ? stats.rejections : {})
    .map(([path, codes]) => {
      const counts = Object.entries(codes && typeof codes === "object" ? codes : {}).map(([code, n]) => [code, count(n)]);
      const total = counts.reduce((all, [, n]) => all + n, 0);
      const [code, times] = counts.reduce((best, entry) => (entry[1] > best[1] ? entry : best), ["", 0]);
      return { path, total, code, times };
    })
    .filter((entry) => entry.total > 0)
    .sort((a, b) => b.total - a.total || a.path.localeCompare(b.path))
    .slice(0, FAILING_SHOWN);
  const heading = html("h3", { text: t("stats.failing") });
  if (ranked.length === 0) return html("div", {}, [heading, html("p", { text: t("stats.noFailing") })]);
  const most = ranked[0].total;
  return html("div", {}, [heading, html("ol", { class: "st-failing", id: "stats-failing" }, ranked.map((entry) =>
    html("li", { "data-field": entry.path }, [
      html("code", { class: "st-failing-path", text: entry.path }),
      svg("svg", { class: "st-failing-bar", viewBox: "0 0 100 10", preserveAspectRatio: "none", "aria-hidden": "true" }, [
        svg("rect", { class: "st-bar st-rejected", x: 0, y: 0, width: Math.max(1, (entry.total / most) * 100), height: 10 }),
      ]),
      html("span", { class: "st-failing-count", text: t("stats.refusals", { count: entry.total, code: entry.code, times: entry.times }) }),
    ])))]);
}

/**
 * The panel for one form's stats, as `GET /v1/admin/forms/{id}/stats` answers them: `{ from, to,
 * draftsStarted, draftsSubmitted, submissions, rejected, completionRate, rejections, daily }`.
 */
export function statsPanel(stats) {
  const days = Array.isArray(stats.daily) ? stats.daily : [];
  return html("section", { class: "ad-panel st-panel", "aria-labelledby": "stats-title" }, [
    html("h2", { id: "stats-title", text: t("stats.lastDays", { count: days.length }) }),
    html("div", { class: "st-head" }, [completion(stats), totals(stats)]),
    html("figure", { class: "st-figure" }, [html("div", { class: "st-scroll" }, [chart(stats, days)]), html("figcaption", {}, [legend()])]),
    dailyTable(stats, days),
    failing(stats),
  ]);
}
