// The per-unit rollups of the serving tables (docs/serving.md): for each (program, account, hour)
// and (program, account, day) unit, mergeable states of the attempts received in it — exact counts,
// maxima and minima, and log-bucketed histograms (the quantile sketch, serving/sketch.ts). A
// refresh turns its changes (attempts added, attempts whose resolution arrived) into signed deltas
// and adds them to the units they belong to, so its cost follows what arrived; every figure a route
// shows is a merge of units over a range (units.ts), plus the attempts of the partial hours at the
// range's ends. This module only describes the rollups and writes their SQL.

export type Merge = "sum" | "max" | "min";
export type Measure = {
  name: string;
  type: string;
  merge: Merge /** SQL over an attempt row: summed (× sign), or max/min of. */;
  of: string;
};
export type Dim = { name: string; type: string; of: string };
export type Rollup = {
  name: string;
  /** Which attempt rows count in it. */
  where: string;
  dims: Dim[];
  measures: Measure[];
  /** Hour units kept for the last days too (besides the days ranges need): the issue page's hourly series. */
  hoursForDays?: number;
};

const count = (name: string, condition = "true"): Measure => ({
  name,
  type: "BIGINT",
  merge: "sum",
  of: `(${condition})::INT`,
});
const text = (name: string, of = name): Dim => ({ name, type: "VARCHAR", of });
const bucket = (value: string): Dim => ({ name: "bucket", type: "INTEGER", of: `sketch_key(${value})` });

/**
 * Time to land, in ms, of an attempt that landed (docs/api.md#time-to-land): from its send to the end
 * of the second its block time names (block times have second precision, so the transaction landed
 * within that second). The send is the client's `sent_at`, but no later than the server received
 * the attempt's report, which the SDK posts after sending: a client clock ahead of the chain's cannot
 * move the send past its own report. What is left is never above the truth by more than the block
 * time's second and a clock behind; where it is not positive the client's clock is ahead of the chain
 * by more than the attempt took, and the time is unknown (the attempt is left out, not counted as 0).
 */
export const TIME_TO_LAND = "(block_time + 1000 - least(sent_at, received_at))";

/**
 * Slots an attempt's time to land spans beyond which the send slot is taken for a wrong one: far more than a
 * blockhash lives (150 blocks, a few more slots where leaders skip theirs), so only a durable-nonce send could
 * honestly reach it, and one that waited that long was stuck, not slow. A bound in slots, not in time: slot times
 * change (docs/solana.md#slot-time).
 */
export const MAX_SLOTS_TO_LAND = 10_000;

/**
 * Time to land, in slots, of an attempt that landed (docs/api.md#time-to-land): the slot it landed in minus the slot
 * its client last saw before sending (the envelope's `sentSlot`). The client writes that slot, so where the difference
 * is negative (a slot after the landing) or above MAX_SLOTS_TO_LAND (a slot from long before, or none at all: 0)
 * the time is unknown and the attempt left out, never clamped.
 */
export const SLOTS_TO_LAND = "(slot - sent_slot)";

/** Resolved attempts that landed or failed on chain with a named instruction: the compute-unit figures' rows. */
const ON_CHAIN = "outcome IN ('landed', 'failed_onchain') AND instruction IS NOT NULL";

export const ROLLUPS: Rollup[] = [
  {
    // Outcome counts per provider (baseline, ecosystem, release rates, provider report's sends).
    name: "outcomes",
    where: "true",
    dims: [text("rpc_label"), text("rpc_hash")],
    measures: [
      count("attempts"),
      count("landed", "outcome = 'landed'"),
      count("failed_onchain", "outcome = 'failed_onchain'"),
      count("dropped", "outcome = 'dropped'"),
      count("preflight", "outcome = 'preflight'"),
      count("pending", "outcome IS NULL"),
      count("sends", "kind = 'send' AND outcome IN ('landed', 'failed_onchain', 'dropped')"),
      count("sends_dropped", "kind = 'send' AND outcome = 'dropped'"),
      count(
        "expired",
        "kind = 'send' AND outcome = 'dropped' AND drop_class IN ('expired_blockhash', 'stale_blockhash_at_send')",
      ),
      { name: "last_seen", type: "BIGINT", merge: "max", of: "received_at" },
    ],
  },
  {
    // Time to land of sends that landed or failed on chain, where it can be known (TIME_TO_LAND).
    name: "land",
    where: `kind = 'send' AND outcome IN ('landed', 'failed_onchain') AND block_time IS NOT NULL AND ${TIME_TO_LAND} > 0`,
    dims: [text("rpc_label"), text("rpc_hash"), bucket(TIME_TO_LAND)],
    measures: [count("n")],
  },
  {
    // Time to land in slots of the same sends, where the client sent the slot it saw (SLOTS_TO_LAND).
    name: "land_slots",
    where: `kind = 'send' AND outcome IN ('landed', 'failed_onchain') AND ${SLOTS_TO_LAND} BETWEEN 0 AND ${MAX_SLOTS_TO_LAND}`,
    dims: [text("rpc_label"), text("rpc_hash"), bucket(SLOTS_TO_LAND)],
    measures: [count("n")],
  },
  {
    // Per instruction: attempts and on-chain failures (release diff), compute-unit samples, budget exceeded, max.
    name: "cu",
    where: ON_CHAIN,
    dims: [text("instruction")],
    measures: [
      count("ix_attempts"),
      count("ix_failed", "outcome = 'failed_onchain'"),
      count("samples", "cu_used IS NOT NULL"),
      count("exceeded", "cu_used IS NOT NULL AND compute_exceeded"),
      { name: "cu_max", type: "BIGINT", merge: "max", of: "cu_used" },
      { name: "cu_min", type: "BIGINT", merge: "min", of: "cu_used" },
    ],
  },
  {
    // Compute units used, weighted by the success sample's weight (docs/lake.md, "The success sample").
    name: "cu_used",
    where: `${ON_CHAIN} AND cu_used IS NOT NULL`,
    dims: [text("instruction"), bucket("cu_used")],
    measures: [{ name: "n", type: "DOUBLE", merge: "sum", of: "cu_weight" }],
  },
  {
    // Requested compute-unit limits of the same rows, by exact value: a sender sets a limit exactly and
    // uses a few, so the typical one is reported as requested, not as a sketch's approximation.
    name: "cu_requested",
    where: `${ON_CHAIN} AND cu_used IS NOT NULL AND cu_requested IS NOT NULL`,
    dims: [text("instruction"), { name: "requested", type: "BIGINT", of: "cu_requested" }],
    measures: [{ name: "n", type: "DOUBLE", merge: "sum", of: "cu_weight" }],
  },
  {
    // Failures per issue (release diff, issue lifetimes, the issue detail's series).
    name: "issues",
    where: "fingerprint IS NOT NULL",
    hoursForDays: 8,
    dims: [text("fingerprint")],
    measures: [
      count("n"),
      { name: "first_at", type: "BIGINT", merge: "min", of: "received_at" },
      { name: "last_at", type: "BIGINT", merge: "max", of: "received_at" },
    ],
  },
  {
    // Failures per issue and provider, and per issue and wallet adapter (the issue detail's breakdowns).
    name: "issue_providers",
    where: "fingerprint IS NOT NULL",
    dims: [text("fingerprint"), text("rpc_label")],
    measures: [count("n")],
  },
  {
    name: "issue_adapters",
    where: "fingerprint IS NOT NULL",
    dims: [text("fingerprint"), text("wallet_adapter", "coalesce(wallet_adapter, '')")],
    measures: [count("n")],
  },
];

export const rollup = (name: string): Rollup => ROLLUPS.find((r) => r.name === name)!;

export type Level = "h" | "d" | "m";
/** The unit column of a level and its SQL from received_at (minutes: recent.ts's rollups only). */
export const LEVEL = {
  h: { column: "hour", of: "received_at // 3600000" },
  d: { column: "day", of: "received_at // 86400000" },
  m: { column: "minute", of: "received_at // 60000" },
} as const;

export const unitTable = (r: Rollup, level: Level) => `u_${r.name}_${level}`;
const keyColumns = (r: Rollup, level: Level) => [
  "program",
  "account_id",
  LEVEL[level].column,
  ...r.dims.map((d) => d.name),
];

export function createUnitTableSql(r: Rollup, level: Level): string {
  const columns = [
    "program VARCHAR",
    "account_id VARCHAR",
    `${LEVEL[level].column} INTEGER`,
    ...r.dims.map((d) => `${d.name} ${d.type}`),
    ...r.measures.map((m) => `${m.name} ${m.type}`),
  ];
  return `CREATE TABLE IF NOT EXISTS ${unitTable(r, level)} (${columns.join(", ")})`;
}

/** One measure aggregated over rows of `source` (with a `sign` column: +1 added, −1 removed). */
function aggregate(m: Measure, signed: boolean): string {
  if (m.merge === "sum") return `sum(${signed ? "sign * " : ""}(${m.of}))::${m.type} AS ${m.name}`;
  // Changes only ever add information (a pending attempt gains its outcome), so maxima and minima
  // come from the added rows alone.
  return `${m.merge}(${m.of})${signed ? " FILTER (WHERE sign > 0)" : ""}::${m.type} AS ${m.name}`;
}

/**
 * The states of the attempt rows in `source` (any table or subquery with the attempt columns, and
 * `sign` when signed), grouped by `keys` (columns of source), the unit of `level` (none: null) and
 * the rollup's dims.
 */
export function unitsOfRowsSql(
  r: Rollup,
  level: Level | null,
  source: string,
  signed: boolean,
  keys = ["program", "account_id"],
): string {
  const unit = level === null ? [] : [`(${LEVEL[level].of})::INTEGER AS ${LEVEL[level].column}`];
  const dims = r.dims.map((d) => `${d.of} AS ${d.name}`);
  return `SELECT ${[...keys, ...unit, ...dims, ...r.measures.map((m) => aggregate(m, signed))].join(", ")}
    FROM ${source} WHERE ${r.where}
    GROUP BY ALL`;
}

/** Merges states of the same key (sum, max, min per measure). */
export function mergeStatesSql(r: Rollup, keys: string[], source: string): string {
  const measures = r.measures.map((m) => `${m.merge}(${m.name})::${m.type} AS ${m.name}`);
  return `SELECT ${[...keys, ...measures].join(", ")} FROM ${source} GROUP BY ${keys.join(", ")}`;
}

/** A state with nothing left in it (every sum 0): a pending attempt that resolved into another rollup's rows. */
export const emptyStateSql = (r: Rollup) => {
  const sums = r.measures.filter((m) => m.merge === "sum");
  return sums.length === 0 ? "false" : sums.map((m) => `${m.name} = 0`).join(" AND ");
};

/** The first hour a rollup keeps hour units for whatever ranges need (null: only what they need). */
export const keptHoursFrom = (r: Rollup, today: number): number | null =>
  r.hoursForDays ? (today - r.hoursForDays + 1) * 24 : null;

/**
 * Adds the signed delta of `changes` to the units of a level (only those meeting `kept`, a condition
 * on the delta's rows `d`): the rows of the keys it touches are merged with it and replaced, so a
 * refresh rewrites what it changed, not whole units (a day's unit grows all day).
 */
export function applyDeltaSql(r: Rollup, level: Level, changes: string, kept: string | null): string {
  const table = unitTable(r, level);
  const delta = `delta_${r.name}_${level}`;
  const keys = keyColumns(r, level);
  // NULL dims (an unnamed instruction) are keys too.
  const same = (a: string, b: string) => keys.map((k) => `${a}.${k} IS NOT DISTINCT FROM ${b}.${k}`).join(" AND ");
  return `
    CREATE OR REPLACE TEMP TABLE ${delta} AS SELECT * FROM (${unitsOfRowsSql(r, level, changes, true)}) d${kept === null ? "" : ` WHERE ${kept}`};
    CREATE OR REPLACE TEMP TABLE ${delta}_merged AS ${mergeStatesSql(r, keys, `(SELECT t.* FROM ${table} t SEMI JOIN ${delta} d ON ${same("t", "d")} UNION ALL BY NAME SELECT * FROM ${delta})`)};
    DELETE FROM ${table} USING ${delta} d WHERE ${same(table, "d")};
    INSERT INTO ${table} BY NAME SELECT * FROM ${delta}_merged WHERE NOT (${emptyStateSql(r)});
    DROP TABLE ${delta}; DROP TABLE ${delta}_merged`;
}
