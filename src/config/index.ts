// The one config loader. Every setting is read from the environment once, validated, and handed to
// the rest of the program as a typed object; a bad value stops start-up with a message naming the
// setting. The README's settings table mirrors SETTINGS below (test/config checks they agree).

import { resolve } from "node:path";
import { z } from "zod";
import { parseNetworks } from "../shared/ip-address";

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
const milliseconds = z.coerce.number().int().min(10);
const onOff = z.enum(["on", "off"]);

/** `scheme://host[:port]` of http(s), with nothing after it. */
function isWebOrigin(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === text.toLowerCase();
  } catch {
    return false;
  }
}

/** Every setting, its type, default and meaning. */
export const SETTINGS = {
  API_PORT: { schema: port.default(8790), doc: "Port of the HTTP server (ingest and read routes)." },
  API_HOST: {
    schema: z.string().min(1).default("127.0.0.1"),
    doc: "Interface to listen on; `0.0.0.0` to expose beyond this machine.",
  },
  TXRAY_DATA_DIR: {
    schema: z.string().min(1).default("./data"),
    doc: "Where the lake, spool, control database and serving tables live.",
  },
  TXRAY_NODE_ID: {
    schema: z
      .string()
      .regex(/^[a-z0-9][a-z0-9-]{0,31}$/, "lower-case letters, digits and '-', at most 32")
      .default("node1"),
    doc: "Names this process's spool and its Parquet parts; unique per ingest process sharing a lake.",
  },
  TXRAY_SCHEDULER: {
    schema: onOff.default("on"),
    doc: "`off` disables the in-process job scheduler (tests, split deployments).",
  },
  TXRAY_LOG_LEVEL: {
    schema: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
    doc: "Log verbosity (JSON lines on stderr).",
  },
  TXRAY_ACCESS_LOG: {
    schema: onOff.default("on"),
    doc: "`on`: one info line per HTTP request (method, route pattern, status, duration, request id; never a key or query string); `off`: none.",
  },
  SOLANA_RPC_URL: {
    schema: z.url().default("https://api.mainnet-beta.solana.com"),
    doc: "Solana JSON-RPC endpoint used to resolve attempts and detect deploys.",
  },
  SOLANA_RPC_CONCURRENCY: {
    schema: positiveInt.default(4),
    doc: "Concurrent JSON-RPC requests the jobs may have in flight.",
  },
  SOLANA_RPC_BATCH_CALLS: {
    schema: z.coerce.number().int().min(1).max(1000).default(10),
    doc: "Most JSON-RPC calls the resolver packs into one HTTP request (a JSON-RPC batch; `1` sends plain requests, for providers that refuse batches). Providers bill each call, not each request; some cap batches (often at 10 for archival methods such as getTransaction).",
  },
  SOLANA_RPC_TIMEOUT_MS: {
    schema: milliseconds.default(30_000),
    doc: "Longest wait for one JSON-RPC HTTP request; a slower answer counts as a failure and is retried.",
  },
  LOCALNET_PORT: { schema: port.default(8899), doc: "Port of `bun run localnet`, the LiteSVM-backed local chain." },
  EXPLORER_CLUSTER: {
    schema: z.enum(["auto", "mainnet-beta", "devnet", "testnet", "off"]).default("auto"),
    doc: "Cluster of the Solana Explorer and Solscan links on transaction pages; `auto`: off when `SOLANA_RPC_URL` is on this machine (a local chain), devnet or testnet when its host names one, else mainnet-beta.",
  },
  INGEST_WORKERS: {
    schema: z
      .string()
      .regex(/^(auto|\d{1,2})$/, "`auto` or a number of threads")
      .default("auto"),
    doc: "Worker threads that parse, validate and encode ingest batches; `auto` = one per core (at most 8), `0` = on the main thread.",
  },
  INGEST_NATIVE: {
    schema: onOff.default("on"),
    doc: "`on`: compile (with the machine's C compiler, once) and use the native ingest fast path when possible; `off`: JavaScript only.",
  },
  INGEST_MAX_BODY_BYTES: {
    schema: positiveInt.default(1024 * 1024),
    doc: "Largest ingest body accepted; larger gets 413.",
  },
  INGEST_MAX_BATCH: { schema: positiveInt.default(1000), doc: "Most envelopes in one ingest batch." },
  INGEST_RATE_PER_SECOND: {
    schema: positiveInt.default(50_000),
    doc: "Envelopes per second each key may ingest (token bucket refill).",
  },
  INGEST_BURST: { schema: positiveInt.default(200_000), doc: "Token bucket size per key, in envelopes." },
  INGEST_UNAUTHENTICATED_PER_MINUTE: {
    schema: positiveInt.default(60),
    doc: "Ingest requests per minute per client IP without a key that authenticates in `x-api-key` (a key in the body, none, or a bad one); the IP's further such requests get 429 before their body is read. A batch whose body key authenticates gives its request back.",
  },
  ACCOUNT_PROGRAMS_PER_DAY: {
    schema: z.coerce.number().int().min(0).default(100),
    doc: "Distinct programs each account's envelopes may name per UTC day; a batch naming one more is refused whole (429); `0` = no limit.",
  },
  PUBLIC_RATE_PER_MINUTE: {
    schema: positiveInt.default(600),
    doc: "Requests per minute per client IP on the public read routes.",
  },
  PUBLIC_LAKE_READ_COST: {
    schema: positiveInt.default(10),
    doc: "Requests of the public limit (`PUBLIC_RATE_PER_MINUTE`) that one wallet page that may read the lake counts for (a serving version without a wallet-page store, and a page it has not answered yet or an account-scoped one); a page read from the store, a cached page and every other request count 1.",
  },
  PUBLIC_WORK_MS: {
    schema: positiveInt.default(1),
    doc: "Milliseconds of a public request's measured work (a wallet page read from the store: a bot's scans its rows) that count for one request more of the public limit, charged once the page is done; most pages take well under one.",
  },
  PUBLIC_MAX_ACCOUNT_SHARE: {
    schema: z.coerce.number().gt(0).max(1).default(0.5),
    doc: "Public figures: largest share of a program's public sample one account may carry, where more than 1 ÷ this many accounts report it (docs/serving.md#public-figures); `1` = no cap. A deployment whose data holds one account is never weighted.",
  },
  PUBLIC_UNCONFIRMED_PER_CONFIRMED: {
    schema: z
      .union([z.literal("off"), z.coerce.number().min(0)])
      .default(1)
      .transform((limit) => (limit === "off" ? Number.POSITIVE_INFINITY : limit)),
    doc: "Public figures and the Landing Score: drops and preflight failures (outcomes the chain cannot confirm) one account may count per send of it the chain confirmed for the program (landed or failed on chain); beyond it they are scaled down (docs/serving.md#public-figures); `off` = no limit.",
  },
  TRUSTED_PROXY_HEADER: {
    schema: z
      .string()
      .regex(/^[a-z0-9-]+$/i)
      .optional(),
    doc: "Header carrying the client IP (e.g. `x-forwarded-for`), trusted only when set; read from the right, per TRUSTED_PROXY_HOPS.",
  },
  TRUSTED_PROXY_HOPS: {
    schema: z.coerce.number().int().min(0).max(16).optional(),
    doc: "Proxies in front of txray that append to TRUSTED_PROXY_HEADER (default `x-forwarded-for` when this is set); the client is the entry this many from the right, the address the outermost proxy saw. `0`: the socket's peer. Unset: 1 when TRUSTED_PROXY_HEADER is set, else 0. The leftmost entries, written by the client, are never trusted.",
  },
  METRICS_TOKEN: {
    schema: z.string().min(16).optional(),
    doc: "Bearer token `GET /metrics` requires (`authorization: Bearer …`); unset, the route is open on the listener.",
  },
  READY_CHAIN_UNREACHABLE_MS: {
    // Unset means 10 minutes; `off` reads as undefined: the chain never makes a node unready.
    schema: z.preprocess(
      (value) => (value === undefined ? 600_000 : value),
      z.union([z.literal("off").transform(() => undefined), milliseconds], {
        error: "milliseconds (10 or more), or `off`",
      }),
    ),
    doc: "`GET /readyz` answers 503 `chain_unreachable` on a node with the jobs role once no Solana RPC request has succeeded for this long (ingest and read nodes keep answering without the chain); `off`: the chain never makes a node unready.",
  },
  SPOOL_SEAL_MS: {
    schema: milliseconds.default(1000),
    doc: "Age after which the active spool segment is sealed and becomes flushable.",
  },
  SPOOL_SEGMENT_MAX_BYTES: {
    schema: positiveInt.default(64 * 1024 * 1024),
    doc: "Size at which the active spool segment is sealed early.",
  },
  DUCKDB_MEMORY_LIMIT: {
    schema: z
      .string()
      .regex(/^\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, "a size such as `1GB` or `512MiB`")
      .default("1GB"),
    doc: "Memory ceiling of each DuckDB instance of a txray process (flush, the resolver's thread, the serving reader; the tables build and compaction in their own processes, TABLES_PROCESS and COMPACT_PROCESS); beyond it each spills to its own directory under `<data dir>/tmp/duckdb`.",
  },
  FLUSH_NATIVE: {
    schema: onOff.default("on"),
    doc: "`on`: compile (with the machine's C compiler, once) and use the native Parquet writer for flush passes it fully understands; `off`: DuckDB writes every pass.",
  },
  FLUSH_INTERVAL_MS: { schema: milliseconds.default(2000), doc: "Scheduler: spool → Parquet." },
  RESOLVE_INTERVAL_MS: {
    schema: milliseconds.default(5_000),
    doc: "Scheduler: the longest wait between resolve runs. A run also starts as soon as flush commits new envelopes and when an open attempt is due (a second after it was seen processed, 2 s after its blockhash expired, …).",
  },
  RESOLVE_THREAD: {
    schema: onOff.default("on"),
    doc: "`on`: the scheduler's resolve runs happen on a thread of their own, with the resolver's memory kept there, so ingest and reads do not share a thread with it; `off`: on the main thread.",
  },
  RESOLVE_RPC_CALLS_PER_SECOND: {
    schema: z.coerce.number().min(0).default(5_000),
    doc: "JSON-RPC calls per second the resolver may make to SOLANA_RPC_URL on average (each call of a batch counts; bursts up to 10 s of it); beyond it, due sends wait for a later round, shared round-robin across accounts. `0` = no limit. `why`'s look-ups have their own budgets (WHY_CHAIN_PER_MINUTE, WHY_CHAIN_LOOKUPS_PER_MINUTE).",
  },
  RESOLVE_SAMPLE_RATE: {
    schema: z.coerce
      .number()
      .gt(0)
      .max(1)
      .default(1 / 32),
    doc: "Share of landed successes whose transaction the resolver fetches (a deterministic sample by a hash of the attempt id, docs/lake.md); compute-unit figures of successes are estimated from it. `1` fetches every success.",
  },
  WHY_CHAIN_PER_MINUTE: {
    schema: positiveInt.default(120),
    doc: "Chain look-ups `why` may make per client and minute for signatures txray has not resolved (answers are reused for a second); beyond it, 404 `pending` or 429 with Retry-After. HTTP (per IP), MCP (per IP) and Slack (per user) each have their own budgets.",
  },
  WHY_CHAIN_TIMEOUT_MS: {
    schema: milliseconds.default(4_000),
    doc: "Longest time `why` waits for the chain (one look-up, retries included) before it answers without it: 503 `unavailable`, or for an attempt txray holds, 404 `pending` saying the chain cannot be reached.",
  },
  WHY_CHAIN_LOOKUPS_PER_MINUTE: {
    schema: positiveInt.default(600),
    doc: "Chain look-ups `why` may make per minute in all, from every client and surface together, for signatures txray never ingested; beyond it, 429 with Retry-After.",
  },
  DEPLOYS_INTERVAL_MS: {
    schema: milliseconds.default(5_000),
    doc: "Scheduler: detect program deploys (one `getMultipleAccounts` of the programs' ProgramData headers a run; program accounts and missing IDLs every 5 minutes).",
  },
  TABLES_INTERVAL_MS: {
    schema: milliseconds.default(30_000),
    doc: "Scheduler: refresh the serving tables from what arrived in the lake (docs/serving.md).",
  },
  TABLES_PROCESS: {
    schema: onOff.default("on"),
    doc: "`on`: the scheduler's tables refreshes happen in a child process at a lower CPU priority (`nice -n 10`), so that on a busy machine ingest, reads and the resolver go first and the dashboards fall behind instead (/v1/status shows it); `off`: in the server process.",
  },
  COMPACT_INTERVAL_MS: {
    schema: milliseconds.default(60_000),
    doc: "Scheduler: merge small Parquet parts (each part is a file every read of its day opens: docs/lake.md).",
  },
  COMPACT_PROCESS: {
    schema: onOff.default("on"),
    doc: "`on`: the scheduler's compactions happen in a child process at a lower CPU priority (`nice -n 10`), so that their merges do not take CPU from ingest, reads and the resolver; `off`: in the server process.",
  },
  TXRAY_SNAPSHOTS_DIR: {
    schema: z.string().min(1).default("./snapshots"),
    doc: "Where published snapshots (the Landing Score) are written.",
  },
  LANDING_SCORE_MIN_ACCOUNTS: {
    schema: positiveInt.default(1),
    doc: "Landing Score: fewest accounts that must have reported a program's sampled sends for it to be listed.",
  },
  LANDING_SCORE_MAX_ACCOUNT_SHARE: {
    schema: z.coerce.number().gt(0).max(1).optional(),
    doc: "Landing Score: largest share of a program's sampled sends one account may carry (its sends are down-weighted to it), on every program; `1` = off. Unset: `PUBLIC_MAX_ACCOUNT_SHARE`, where more than 1 ÷ it accounts report a program, and nothing in a window whose sends come from one account (docs/publishing.md).",
  },
  SLACK_SIGNING_SECRET: {
    schema: z.string().min(1).optional(),
    doc: "Slack app signing secret; when set, `POST /chat/slack` answers slash commands.",
  },
  SLACK_TRIAGE_ACCOUNT: {
    schema: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, "expected an account name")
      .optional(),
    doc: "Account whose issues `/txray resolve`, `ignore` and `unresolve` change from Slack (anyone in the workspace may); unset: off.",
  },
  ALERTS_INTERVAL_MS: {
    schema: milliseconds.default(10_000),
    doc: "Scheduler: evaluate the alert rules and send due alerts and retries; the alerts job also runs after every tables build.",
  },
  ALERTS_RETRY_BASE_MS: {
    schema: milliseconds.default(5_000),
    doc: "First pause before retrying a failed alert delivery; doubled after each failure (with jitter), at most 15 minutes, unless the receiver's `Retry-After` says otherwise.",
  },
  ALERTS_GIVE_UP_MS: {
    schema: milliseconds.default(86_400_000),
    doc: "An alert delivery still failing this long after the alert was raised is given up and marked failed.",
  },
  ALERTS_FLOOD_LIMIT: {
    schema: positiveInt.default(10),
    doc: "Most alert messages one destination gets per `ALERTS_FLOOD_WINDOW_MS`; beyond it, alerts come folded into one summary per rule.",
  },
  ALERTS_FLOOD_WINDOW_MS: { schema: milliseconds.default(600_000), doc: "The window of `ALERTS_FLOOD_LIMIT`." },
  ALERTS_ALLOWED_NETWORKS: {
    schema: z
      .string()
      .refine(
        (text) => parseNetworks(text) !== null,
        "a comma-separated list of networks such as `127.0.0.0/8,::1/128`",
      )
      .optional(),
    doc: "Internal networks alert webhooks may reach, as comma-separated CIDR ranges (e.g. `127.0.0.0/8,::1/128` for a receiver on this machine); unset: loopback, private, link-local, CGNAT, multicast and cloud metadata addresses are refused.",
  },
  TXRAY_PUBLIC_URL: {
    schema: z.url().optional(),
    doc: "The server's address as people reach it (e.g. `https://txray.example.com`), for the links in alerts and Slack messages; unset: where the server listens (`API_HOST` and the port it bound, the real one when `API_PORT=0`), and for the CLI a live server of the data directory, else `http://API_HOST:API_PORT`.",
  },
  MCP_ALLOWED_ORIGINS: {
    schema: z
      .string()
      .refine(
        (text) => text.split(",").every((item) => isWebOrigin(item.trim())),
        "a comma-separated list of origins such as `https://app.example.com`",
      )
      .optional(),
    doc: "Web origins whose pages may call `/mcp` (comma-separated, e.g. `https://app.example.com`); a request with any other `Origin` header gets 403 (DNS rebinding protection, docs/mcp.md). Always allowed: the origin of `TXRAY_PUBLIC_URL` and the server's own; clients that are not browsers send no `Origin`.",
  },
  MCP_ALLOWED_HOSTS: {
    schema: z
      .string()
      .refine(
        (text) => text.split(",").every((item) => /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)$/.test(item.trim())),
        "a comma-separated list of host names (no ports) such as `txray.internal`",
      )
      .optional(),
    doc: "Names besides loopback and the host of `TXRAY_PUBLIC_URL` by which `/mcp` may be reached (comma-separated host names, e.g. `txray.internal`); a request with another `Host` header gets 403. Checked when `API_HOST` is a loopback address, or whenever this is set.",
  },
  TXRAY_RETENTION_DAYS: {
    // Unset means 90; `off` reads as undefined, which every reader of the setting takes as "keep everything".
    schema: z.preprocess(
      (value) => (value === undefined ? 90 : value),
      z.union([z.literal("off").transform(() => undefined), positiveInt], {
        error: "a whole number of days (1 or more), or `off` to keep everything",
      }),
    ),
    doc: "Lake partitions and serving data older than this many days are removed by the hourly retention job; `off` keeps everything.",
  },
  TXRAY_ROLES: {
    schema: z
      .string()
      .regex(/^(ingest|read|jobs)(,(ingest|read|jobs))*$/, "a comma-separated subset of ingest, read, jobs")
      .default("ingest,read,jobs"),
    doc: "What this process runs: any of `ingest`, `read`, `jobs`, comma-separated.",
  },
  SHUTDOWN_TIMEOUT_MS: {
    schema: milliseconds.default(10_000),
    doc: "Graceful shutdown (SIGTERM): longest wait for in-flight requests, the current group commit and running jobs to finish before the process exits anyway.",
  },
  TXRAY_FAULT_POINT: {
    schema: z
      .string()
      .regex(/^[a-z-]+:[a-z-]+:(pause|kill|throw)(@\d+)?$/, "`<moment>:<pause|kill|throw>[@n]`")
      .optional(),
    doc: "Test only (`bun run chaos`, test/reliability): pause, kill or fail the process at a named moment (`src/shared/fault.ts` lists them); unset in production.",
  },
  TXRAY_CONTROL_URL: {
    schema: z
      .string()
      .regex(/^postgres(ql)?:\/\/\S+$/, "a postgres:// URL")
      .optional(),
    doc: "PostgreSQL URL of a shared control plane (accounts, keys, programs, job runs, segments, leases); unset: SQLite in the data directory.",
  },
} as const;

type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;
export type Config = { [K in SettingName]: z.output<Settings[K]["schema"]> } & {
  /** TXRAY_DATA_DIR made absolute. */
  dataDir: string;
  /** TXRAY_SNAPSHOTS_DIR made absolute. */
  snapshotsDir: string;
};

export class ConfigError extends Error {}

/** Reads and validates every setting; throws ConfigError naming each bad setting. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, setting] of Object.entries(SETTINGS)) {
    const raw = env[name];
    const parsed = (setting.schema as z.ZodType).safeParse(raw === "" ? undefined : raw);
    if (parsed.success) values[name] = parsed.data;
    else problems.push(`${name}=${JSON.stringify(raw)}: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  }
  if (problems.length > 0) throw new ConfigError(`invalid settings:\n  ${problems.join("\n  ")}`);
  const config = values as Config;
  config.dataDir = resolve(config.TXRAY_DATA_DIR);
  config.snapshotsDir = resolve(config.TXRAY_SNAPSHOTS_DIR);
  return config;
}
export { parseRoles, type Role, type Roles } from "./roles";
