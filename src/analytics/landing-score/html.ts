// The static leaderboard page (index.html): one self-contained file rendered from a snapshot. It
// loads nothing (a Content-Security-Policy forbids any fetch), works without JavaScript (the table
// is in the HTML, ranked), and a small inline script only re-sorts it. Readable on a phone: the
// less important columns fold away on narrow screens. The web app's dark theme (src/web/style.css
// colours), so the page reads as part of txray where the server serves it (/landing-score/). No
// time in it but the snapshot's own.

import type { ScoreRow, Snapshot } from "./snapshot";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

const percent = (x: number, digits = 1) => `${(x * 100).toFixed(digits)}%`;
const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
const sampleRateText = (rate: number) => (rate === 1 ? "100%" : `${Number((rate * 100).toPrecision(3))}%`);
const shortId = (id: string) => `${id.slice(0, 4)}…${id.slice(-4)}`;
const isoMinute = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace("T", " ");

/** Lower end of the bars' common scale: a tenth at or below the lowest interval bound (at most 90%). */
function scaleMin(rows: ScoreRow[]): number {
  if (rows.length === 0) return 0;
  const lowest = Math.min(...rows.map((r) => r.ci95[0]));
  return Math.max(0, Math.min(0.9, Math.floor(lowest * 10) / 10));
}

function intervalSvg(row: ScoreRow, min: number): string {
  const x = (v: number) => (((v - min) / (1 - min)) * 100).toFixed(2);
  const [lo, hi] = row.ci95;
  const width = Math.max(0.6, Number(x(hi)) - Number(x(lo))).toFixed(2);
  return (
    `<svg class="ci" viewBox="0 0 100 12" preserveAspectRatio="none" role="img" aria-label="95% interval ${percent(lo)} to ${percent(hi)}">` +
    `<rect class="track" x="0" y="5" width="100" height="2"/>` +
    `<rect class="band" x="${x(lo)}" y="2" width="${width}" height="8" rx="1"/>` +
    `<rect class="point" x="${(Number(x(row.landingRate)) - 0.6).toFixed(2)}" y="0" width="1.2" height="12"/></svg>`
  );
}

function providersText(row: ScoreRow): string {
  const top = row.providers.slice(0, 3).map((p) => `${escapeHtml(p.rpcLabel)} ${percent(p.share, 0)}`);
  const more = row.providers.length - top.length;
  return top.join(" · ") + (more > 0 ? ` · +${more}` : "");
}

function rowHtml(row: ScoreRow, min: number): string {
  const name = row.name === null ? "" : `<span class="name">${escapeHtml(row.name)}</span>`;
  const program = escapeHtml(row.program);
  const cells = [
    `<td class="num" data-v="${row.rank}">${row.rank}</td>`,
    `<td data-v="${escapeHtml((row.name ?? `~${row.program}`).toLowerCase())}">${name}<code class="id" title="${program}"><span class="short">${shortId(program)}</span><span class="full">${program}</span></code></td>`,
    `<td data-v="${row.ci95[0]}"><div class="rate"><span class="value">${percent(row.landingRate)}</span>${intervalSvg(row, min)}</div><div class="interval">95%: ${percent(row.ci95[0])} – ${percent(row.ci95[1])}</div></td>`,
    `<td class="num" data-v="${row.sends}">${thousands(row.sends)}</td>`,
    `<td class="num opt" data-v="${row.sampleRate}">${sampleRateText(row.sampleRate)}</td>`,
    `<td class="num" data-v="${row.dropRate}">${percent(row.dropRate)}</td>`,
    `<td class="num opt" data-v="${row.failedOnchain / row.sends}">${percent(row.failedOnchain / row.sends)}</td>`,
    `<td class="num opt" data-v="${row.accounts}">${row.accounts}</td>`,
    `<td class="num opt" data-v="${row.topAccountShare}">${percent(row.topAccountShare, 0)}</td>`,
    `<td class="opt providers" data-v="${escapeHtml(row.providers[0]?.rpcLabel ?? "")}">${providersText(row)}</td>`,
  ];
  return `<tr>${cells.join("")}</tr>`;
}

const COLUMNS: { label: string; title: string; first: "asc" | "desc"; numeric: boolean; optional?: boolean }[] = [
  { label: "#", title: "Rank: by the lower bound of the 95% interval", first: "asc", numeric: true },
  { label: "Program", title: "Display name and program id", first: "asc", numeric: false },
  { label: "Landing rate", title: "landed / sends, with its 95% Wilson interval", first: "desc", numeric: true },
  { label: "Sends", title: "Sampled sends with a decided outcome", first: "desc", numeric: true },
  {
    label: "Sample",
    title: "Share of the program's sends that were sampled",
    first: "desc",
    numeric: true,
    optional: true,
  },
  { label: "Dropped", title: "Share of sends that never landed (blockhash expired)", first: "asc", numeric: true },
  { label: "Failed", title: "Share of sends that landed with an error", first: "asc", numeric: true, optional: true },
  { label: "Accounts", title: "Accounts whose sends were counted", first: "desc", numeric: true, optional: true },
  {
    label: "Top account",
    title: "Largest share of the sends that one account carries",
    first: "asc",
    numeric: true,
    optional: true,
  },
  { label: "Providers", title: "Provider mix of the sends", first: "asc", numeric: false, optional: true },
];

const STYLE = `
:root { color-scheme: dark; --fg: #e6e9ef; --muted: #9aa4b2; --line: #2a3140; --band: #5ab0ff; --track: #2a3140; --bg: #0e1117; --head: #161b24; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header, main { max-width: 1200px; margin: 0 auto; padding: 0 16px; }
h1 { font-size: 1.6rem; margin: 4px 0 4px; }
p.brand { margin: 16px 0 0; font-size: 1.2rem; }
h2 { font-size: 1.15rem; margin: 28px 0 8px; }
.sub, .scale, .interval, .notice, footer { color: var(--muted); }
.notice { border-left: 3px solid var(--band); padding: 6px 10px; background: var(--head); }
.table-wrap { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; margin-top: 12px; }
th, td { padding: 8px 6px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: var(--head); position: sticky; top: 0; white-space: nowrap; }
th button { font: inherit; font-weight: 600; color: inherit; background: none; border: 0; padding: 0; cursor: pointer; }
a { color: var(--band); text-underline-offset: 2px; }
.brand { font-weight: 800; letter-spacing: -0.5px; color: var(--fg); text-decoration: none; }
.brand span { color: var(--band); }
th[aria-sort=ascending] button::after { content: " ▲"; }
th[aria-sort=descending] button::after { content: " ▼"; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.name { display: block; font-weight: 600; }
code.id { font-size: 0.85em; color: var(--muted); }
code.id .full { display: none; }
.rate { display: flex; align-items: center; gap: 8px; }
.rate .value { font-weight: 600; font-variant-numeric: tabular-nums; min-width: 3.6em; }
svg.ci { width: 120px; height: 12px; flex: none; }
svg.ci .track { fill: var(--track); }
svg.ci .band { fill: var(--band); opacity: 0.45; }
svg.ci .point { fill: var(--band); }
.interval { font-size: 0.8em; font-variant-numeric: tabular-nums; }
.providers { font-size: 0.85em; }
.methodology p { max-width: 75ch; }
@media (min-width: 1100px) { code.id .full { display: inline; } code.id .short { display: none; } }
@media (max-width: 700px) { .opt { display: none; } .rate { flex-direction: column; align-items: flex-start; gap: 2px; } svg.ci { width: 76px; } body { font-size: 14px; } th, td { padding: 7px 4px; } header, main { padding: 0 10px; } }
`;

const SCRIPT = `
(function () {
  var table = document.getElementById("board");
  var body = table.tBodies[0];
  var heads = table.tHead.rows[0].cells;
  Array.prototype.forEach.call(heads, function (th) {
    var button = th.querySelector("button");
    if (!button) return;
    button.addEventListener("click", function () {
      var column = th.cellIndex;
      var current = th.getAttribute("aria-sort");
      var direction = current === "ascending" ? "descending" : current === "descending" ? "ascending" : th.dataset.first === "desc" ? "descending" : "ascending";
      Array.prototype.forEach.call(heads, function (other) { other.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", direction);
      var numeric = th.dataset.numeric === "true";
      var sign = direction === "ascending" ? 1 : -1;
      var rows = Array.prototype.slice.call(body.rows).filter(function (row) { return row.cells.length === heads.length; });
      rows.sort(function (a, b) {
        var x = a.cells[column].dataset.v, y = b.cells[column].dataset.v;
        var order = numeric ? Number(x) - Number(y) : x < y ? -1 : x > y ? 1 : 0;
        return order * sign || Number(a.cells[0].dataset.v) - Number(b.cells[0].dataset.v);
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
})();
`;

export function renderPage(snapshot: Snapshot): string {
  const rows = snapshot.programs;
  const min = scaleMin(rows);
  const head = COLUMNS.map(
    (c, k) =>
      `<th scope="col" class="${[c.numeric && k !== 2 ? "num" : "", c.optional ? "opt" : ""].filter(Boolean).join(" ")}" title="${escapeHtml(c.title)}" data-first="${c.first}" data-numeric="${c.numeric}"${k === 0 ? ' aria-sort="ascending"' : ""}><button type="button">${escapeHtml(c.label)}</button></th>`,
  ).join("");
  const body =
    rows.length > 0
      ? rows.map((row) => rowHtml(row, min)).join("\n")
      : `<tr><td colspan="${COLUMNS.length}">No program reached ${snapshot.minimumSends} sampled sends in this window.</td></tr>`;
  const windowText = `${isoMinute(snapshot.window.since)} – ${isoMinute(snapshot.window.until)} UTC`;
  const methodology = snapshot.methodology
    .split("\n\n")
    .map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`)
    .join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>Landing Score · ${escapeHtml(snapshot.date)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<p class="brand">tx<span>ray</span></p>
<h1>Landing Score</h1>
<p class="sub">Solana programs ranked by how reliably their sent transactions land · the 7 days ending ${escapeHtml(snapshot.date)} (${windowText})</p>
<p class="notice"><strong>This is a sample.</strong> Each program's figures come from a deterministic hash sample of its send attempts (its rate is in the Sample column on wider screens and in the JSON; about ${thousands(snapshot.sampling.maxSampledSends)} sends at most). Programs with fewer than ${snapshot.minimumSends} sampled sends are not listed. Ranked by the lower end of the landing rate's 95% interval.</p>
</header>
<main>
<div class="table-wrap">
<table id="board">
<caption class="scale">Bars: the landing rate (line) and its 95% interval (band), on a scale from ${percent(min, 0)} to 100%. Click a column to sort.</caption>
<thead><tr>${head}</tr></thead>
<tbody>
${body}
</tbody>
</table>
</div>
<section class="methodology" id="methodology">
<h2>Methodology</h2>
${methodology}
</section>
<section id="data">
<h2>Data</h2>
<p>The same figures as JSON (<a href="${escapeHtml(snapshot.date)}.json">${escapeHtml(snapshot.date)}.json</a>, <a href="latest.json">latest.json</a>) and Parquet (<a href="${escapeHtml(snapshot.date)}.parquet">${escapeHtml(snapshot.date)}.parquet</a>), schema version ${snapshot.schemaVersion}.</p>
</section>
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}
