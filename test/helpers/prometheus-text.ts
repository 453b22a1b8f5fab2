// A small, strict reader of the Prometheus text exposition format (version 0.0.4), for the tests of
// GET /metrics: it throws on anything a scraper would reject or misread (a sample before its TYPE, a
// family declared twice, a badly escaped label value, a histogram whose buckets are not cumulative).

export type Sample = { name: string; labels: Record<string, string>; value: number };
export type ParsedFamily = { name: string; help: string; type: string; samples: Sample[] };

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL = '([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL})(?:,${LABEL})*)?\\})? (\\S+)$`);
const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped"]);

const unescapeLabelValue = (value: string) => value.replace(/\\(["\\n])/g, (_, c: string) => (c === "n" ? "\n" : c));

function parseValue(text: string): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return Number.NaN;
  if (!/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(text)) throw new Error(`bad sample value ${text}`);
  return Number(text);
}

export function parsePrometheusText(text: string): Map<string, ParsedFamily> {
  if (!text.endsWith("\n")) throw new Error("the exposition must end with a line feed");
  const families = new Map<string, ParsedFamily>();
  let current: ParsedFamily | null = null;
  const helps = new Map<string, string>();
  for (const line of text.slice(0, -1).split("\n")) {
    const help = line.match(new RegExp(`^# HELP (${NAME}) (.*)$`));
    if (help) {
      if (helps.has(help[1])) throw new Error(`HELP twice for ${help[1]}`);
      helps.set(help[1], help[2]);
      continue;
    }
    const type = line.match(new RegExp(`^# TYPE (${NAME}) (\\w+)$`));
    if (type) {
      if (families.has(type[1])) throw new Error(`TYPE twice for ${type[1]}`);
      if (!TYPES.has(type[2])) throw new Error(`unknown type ${type[2]}`);
      if (!helps.has(type[1])) throw new Error(`TYPE before HELP for ${type[1]}`);
      current = { name: type[1], help: helps.get(type[1])!, type: type[2], samples: [] };
      families.set(type[1], current);
      continue;
    }
    if (line.startsWith("#") || line === "") throw new Error(`unexpected line: ${JSON.stringify(line)}`);
    const match = line.match(SAMPLE);
    if (!match) throw new Error(`bad sample line: ${JSON.stringify(line)}`);
    const name = match[1];
    if (!current) throw new Error(`sample ${name} before any TYPE`);
    const suffixes = current.type === "histogram" ? ["_bucket", "_sum", "_count"] : [""];
    if (!suffixes.some((suffix) => name === current!.name + suffix))
      throw new Error(`sample ${name} outside its family (${current.name})`);
    const labels: Record<string, string> = {};
    const labelText = line.slice(name.length).match(/^\{(.*)\} /)?.[1] ?? "";
    for (const pair of labelText.matchAll(new RegExp(LABEL, "g"))) {
      if (pair[1] in labels) throw new Error(`label ${pair[1]} twice in ${line}`);
      labels[pair[1]] = unescapeLabelValue(pair[2]);
    }
    current.samples.push({ name, labels, value: parseValue(match[match.length - 1]) });
  }
  for (const family of families.values()) if (family.type === "histogram") checkHistogram(family);
  return families;
}

/** Each series' buckets ascend in `le`, are cumulative, end with +Inf equal to _count, and have a _sum. */
function checkHistogram(family: ParsedFamily) {
  const seriesKey = (labels: Record<string, string>) =>
    JSON.stringify(Object.entries(labels).filter(([name]) => name !== "le"));
  const series = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const sample of family.samples) {
    const key = seriesKey(sample.labels);
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (sample.name.endsWith("_bucket")) entry.buckets.push([parseValue(sample.labels.le), sample.value]);
    else if (sample.name.endsWith("_sum")) entry.sum = sample.value;
    else entry.count = sample.value;
  }
  for (const [key, entry] of series) {
    if (entry.sum === undefined || entry.count === undefined)
      throw new Error(`${family.name}${key}: no _sum or _count`);
    const last = entry.buckets.at(-1);
    if (!last || last[0] !== Infinity || last[1] !== entry.count)
      throw new Error(`${family.name}${key}: the +Inf bucket is not the count`);
    for (let i = 1; i < entry.buckets.length; i++)
      if (entry.buckets[i][0] <= entry.buckets[i - 1][0] || entry.buckets[i][1] < entry.buckets[i - 1][1])
        throw new Error(`${family.name}${key}: buckets not ascending and cumulative`);
  }
}
