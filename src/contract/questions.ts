// The read questions txray answers, once, for every surface: each has its HTTP route, its MCP tool
// name, its parameters, its response schema and the one query function that answers it. The HTTP
// routes, the MCP tools, the Slack bot and the OpenAPI document are all built from this table, so a
// tool and its route cannot drift apart: they call the same function with the same raw arguments
// (validation and its 400s live in the query layer).

import type { z } from "zod";
import {
  BaselineSchema,
  baseline,
  CuHeadroomSchema,
  cuHeadroom,
  DiagnoseDropSchema,
  diagnoseDrop,
  EcosystemSchema,
  ecosystem,
  IssueDetailSchema,
  issueDetail,
  ProviderReportSchema,
  providerReport,
  ReleaseDiffSchema,
  releaseDiff,
  StatusSchema,
  TopIssuesSchema,
  TransactionSchema,
  topIssues,
  transaction,
  WalletHistorySchema,
  WhySchema,
  walletHistory,
  why,
} from "../analytics/queries";
import { callStack } from "../chain/decode";
import type { Context } from "../context";
import type { ErrorCode } from "../shared/errors";
import { instructionNumber } from "../shared/instruction-number";
import type { chainAccess } from "./chain-access";
import { serviceStatus } from "./status";

export type ParamName =
  | "sig"
  | "program"
  | "wallet"
  | "fingerprint"
  | "window"
  | "deploy"
  | "segment"
  | "limit"
  | "cursor"
  | "scope"
  | "state";
/** Raw arguments, as a route reads them from its path and query string (absent: undefined or null). */
export type QuestionArgs = Partial<Record<ParamName, string | null>>;

/** What answering needs besides the context: chain access for `why`, the spool backlog for `status`. */
export type QuestionDeps = {
  ctx: Context;
  chain: ReturnType<typeof chainAccess>;
  spool: { backlogBytes(): number } | null;
};

export type ParamSpec = { description: string; example?: string; enum?: string[]; integer?: boolean };

export const PARAMS: Record<ParamName, ParamSpec> = {
  sig: {
    description: "Transaction signature (base58, 64 bytes).",
    example: "5UfDuX7WXY18keiz9mZ6zKkY8JyNuLDFz2QPFsFh4sN3KJtjC6nw2vGyEuMqNWcRW9o6ymbXvYAN9BjNGxFxgXPL",
  },
  program: {
    description: "Program id (base58, 32 bytes) the attempts targeted.",
    example: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
  },
  wallet: {
    description: "Fee payer address (base58, 32 bytes).",
    example: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
  },
  fingerprint: {
    description: "Issue fingerprint: `v1:` and 16 lower-case hex digits (top_issues, why and release_diff give it).",
    example: "v1:5b0c2e8a91d3f4c7",
  },
  window: {
    description: "Time window relative to the last tables build: 1d, 7d or 30d (default 7d).",
    enum: ["1d", "7d", "30d"],
  },
  deploy: {
    description: "ProgramData slot of the deploy to compare around (default: the latest deploy).",
    integer: true,
  },
  segment: {
    description: "Only this payer segment: human, mixed or bot (default: all three).",
    enum: ["human", "mixed", "bot"],
  },
  limit: { description: "Most items per list, 1 to 500 (default 50).", integer: true },
  cursor: { description: "Opaque cursor from a previous answer's nextCursor." },
  scope: {
    description: "public (default): all accounts; account: only the calling key's account (needs a key).",
    enum: ["public", "account"],
  },
  state: {
    description:
      "With scope=account: open (default) leaves out issues the account resolved or ignored; all lists every issue.",
    enum: ["open", "all"],
  },
};

export type Question = {
  /** MCP tool name. */
  name: string;
  /** Elysia route path (`:param` segments). */
  path: string;
  pathParams: ParamName[];
  queryParams: ParamName[];
  summary: string;
  /** For a model choosing among the tools (and the OpenAPI description). */
  description: string;
  response: z.ZodType;
  /** A representative answer for the reference page (validated against `response` by the tests). */
  example?: Record<string, unknown>;
  errors: ErrorCode[];
  /** `client`: who asks (the HTTP client's IP), for limits that are per client (why's chain look-ups). */
  answer(deps: QuestionDeps, args: QuestionArgs, accountId: string | null, client?: string): Promise<unknown>;
};

const analyticErrors: ErrorCode[] = [
  "bad_request",
  "unauthorized",
  "forbidden",
  "not_found",
  "rate_limited",
  "unavailable",
  "internal",
];

/** The logs of the examples' failed Jupiter route (the reference page shows them with their call stack). */
const EXAMPLE_LOGS = [
  "Program ComputeBudget111111111111111111111111111111 invoke [1]",
  "Program ComputeBudget111111111111111111111111111111 success",
  "Program ComputeBudget111111111111111111111111111111 invoke [1]",
  "Program ComputeBudget111111111111111111111111111111 success",
  "Program JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4 invoke [1]",
  "Program log: Instruction: Route",
  "Program 675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8 invoke [2]",
  "Program 675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8 consumed 29658 of 140350 compute units",
  "Program 675kPX9MHTjS2zt1qfr1NYHuzeLXfQM9H24wFSUt1Mp8 success",
  "Program log: AnchorError occurred. Error Code: SlippageToleranceExceeded. Error Number: 6001. Error Message: Slippage tolerance exceeded.",
  "Program JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4 consumed 104005 of 145700 compute units",
  "Program JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4 failed: custom program error: 0x1771",
];
const EXAMPLE_STACK = callStack(EXAMPLE_LOGS, {
  program: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
  instruction: "Route",
  failingInstruction: "Route",
  ixPath: "2",
});
const base = (args: QuestionArgs, accountId: string | null) => ({
  program: args.program ?? "",
  window: args.window ?? null,
  accountId,
});

export const QUESTIONS: Question[] = [
  {
    name: "why",
    path: "/v1/why/:sig",
    pathParams: ["sig"],
    queryParams: [],
    summary: "Why a transaction failed",
    description:
      "The decoded failure story of one Solana transaction signature: outcome (landed, failed_onchain, dropped, preflight), the program and instruction that failed, the CPI path, the program error code and name, compute units used vs requested, the payer's bot score and the issue (fingerprint, 7-day count) it belongs to. Works for signatures txray ingested and, for landed ones, any mainnet signature. Use this first when someone asks why a specific transaction failed.",
    response: WhySchema,
    example: {
      sig: "58FymHW9QzxHd8hS4Xb7cJxtnr7YkRGq2vZ3NXpFwVYm6Vz7GjM6qk4x4p3o9H1Z2UfR6bnmqv3mJg2sXLQ9aBcD",
      outcome: "failed_onchain",
      program: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
      instruction: "Route",
      ixPath: "2",
      ixNumber: instructionNumber("2", EXAMPLE_STACK),
      cpiDepth: 0,
      errCode: 6001,
      errName: "SlippageToleranceExceeded",
      cuUsed: 104305,
      cuRequested: 146000,
      payer: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
      payerBotScore: 0.12,
      issue: {
        fingerprint: "v1:5b0c2e8a91d3f4c7",
        count7d: 312,
        firstSeen: 1763000000000,
        title: "SlippageToleranceExceeded in Route",
      },
      failingProgram: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
      failingInstruction: "Route",
      errMessage: "Slippage tolerance exceeded",
      computeExceeded: false,
      logTruncated: false,
      slot: 289000001,
      blockTime: 1763700001000,
      sentAt: 1763700000000,
      dropClass: null,
      rpcLabel: "helius",
      source: "ingested",
      logs: EXAMPLE_LOGS,
      callStack: EXAMPLE_STACK,
      links: {
        solanaExplorer:
          "https://explorer.solana.com/tx/58FymHW9QzxHd8hS4Xb7cJxtnr7YkRGq2vZ3NXpFwVYm6Vz7GjM6qk4x4p3o9H1Z2UfR6bnmqv3mJg2sXLQ9aBcD",
        solscan:
          "https://solscan.io/tx/58FymHW9QzxHd8hS4Xb7cJxtnr7YkRGq2vZ3NXpFwVYm6Vz7GjM6qk4x4p3o9H1Z2UfR6bnmqv3mJg2sXLQ9aBcD",
      },
      fee: 5146,
      cuPriceMicroLamports: 1000,
      priorityFee: 146,
      costUnits: null,
      outsideSample: false,
    },
    errors: ["bad_request", "not_found", "pending", "rate_limited", "unavailable", "internal"],
    answer: (deps, args, _accountId, client) => why(deps.ctx, deps.chain.whyDeps(), { sig: args.sig ?? "", client }),
  },
  {
    name: "transaction",
    path: "/v1/tx/:sig",
    pathParams: ["sig"],
    queryParams: [],
    summary: "Everything the chain recorded about a transaction",
    description:
      "One landed Solana transaction as a block explorer shows it: its accounts (signer, writable, loaded from an address lookup table), SOL and token balance changes, fee and priority fee, compute used, requested and cost units, recent blockhash and the envelope's last valid block height, finality, instructions numbered as Solana Explorer numbers them (#3, #3.1) with arguments decoded by registered IDLs, logs and the raw JSON. Use `why` for the decoded failure story; this for the full record.",
    response: TransactionSchema,
    errors: ["bad_request", "not_found", "rate_limited", "unavailable", "internal"],
    answer: (deps, args, _accountId, client) =>
      transaction(deps.ctx, deps.chain.whyDeps(), { sig: args.sig ?? "", client }),
  },
  {
    name: "diagnose_drop",
    path: "/v1/diagnose-drop/:sig",
    pathParams: ["sig"],
    queryParams: [],
    summary: "Why a transaction never landed",
    description:
      "For a signature that was sent but never landed: the drop class (superseded_by_retry, stale_blockhash_at_send, rpc_not_forwarding, network_congestion, priority_fee_too_low, expired_blockhash, nonce_advanced, unknown), the evidence that decided it, the RPC provider's measured drop rate and advice. Use when a transaction 'disappeared' or 'expired'; for transactions that landed and failed use `why`.",
    response: DiagnoseDropSchema,
    example: {
      sig: "3iWKx8bTGx6d5QfHn7y2GQm1hq9Zr6v4XbqkY7Xz2mZt3Lx8aJxPp6b2vN5wD4cY1oR7sE9uF2gH3jK4LmNpQrSt",
      outcome: "dropped",
      dropClass: "rpc_not_forwarding",
      confidence: 0.78,
      evidence: [
        {
          kind: "blockhash_expired",
          detail:
            "confirmed block height 1001 passed lastValidBlockHeight 1000; two status look-ups after expiry found no transaction",
          value: 1,
        },
        {
          kind: "provider_drop_rate",
          detail: "charlie dropped 30 of 60 sends within 15 min (95% CI 37.7%–62.3%)",
          value: 0.5,
        },
        {
          kind: "other_providers_drop_rate",
          detail: "other providers dropped 4 of 200 in the same window (95% CI 0.8%–5.0%)",
          value: 0.02,
        },
      ],
      provider: { rpcLabel: "charlie", rpcHash: "a1b2c3d4e5f60718", dropRate: 0.41, sends7d: 1204, accounts: 3 },
      advice:
        "This provider is not getting transactions to leaders as often as others: send through a second provider or a staked/landing service, and rebroadcast until lastValidBlockHeight.",
    },
    errors: ["bad_request", "not_found", "pending", "rate_limited", "internal"],
    answer: async (deps, args) => diagnoseDrop(deps.ctx, { sig: args.sig ?? "" }),
  },
  {
    name: "baseline",
    path: "/v1/baseline/:program",
    pathParams: ["program"],
    queryParams: ["window", "scope"],
    summary: "A program's landing, failure, drop and preflight rates",
    description:
      "A program's outcome rates in a window (landing, on-chain failure, drop, preflight failure, with 95% intervals) next to the whole ecosystem's and each RPC provider's. Use to answer 'is my program healthy / worse than usual / worse than others'.",
    response: BaselineSchema,
    errors: analyticErrors,
    answer: (deps, args, accountId) => baseline(deps.ctx, base(args, accountId)),
  },
  {
    name: "release_diff",
    path: "/v1/release-diff/:program",
    pathParams: ["program"],
    queryParams: ["window", "deploy", "scope"],
    summary: "What changed at a program deploy",
    description:
      "Before/after comparison around a program deploy (the latest, or the one at `deploy` slot): outcome rates, each failure issue's rate with a significance test and status (new, regressed, resolved, unchanged), and per-instruction failure rate and compute-unit p95. Use for 'did our last release break something'.",
    response: ReleaseDiffSchema,
    errors: analyticErrors,
    answer: (deps, args, accountId) => releaseDiff(deps.ctx, { ...base(args, accountId), deploy: args.deploy ?? null }),
  },
  {
    name: "top_issues",
    path: "/v1/top-issues/:program",
    pathParams: ["program"],
    queryParams: ["window", "segment", "limit", "scope", "state"],
    summary: "A program's most frequent failures",
    description:
      "The program's most frequent failure issues (failures grouped by fingerprint: instruction, error, drop class) in a window, ranked by count and split by payer segment (human, mixed, bot by bot-likelihood score), with wallets affected, share, first/last seen and a sample signature. Use for 'what are our users hitting most'.",
    response: TopIssuesSchema,
    errors: analyticErrors,
    answer: (deps, args, accountId) =>
      topIssues(deps.ctx, {
        ...base(args, accountId),
        segment: args.segment ?? null,
        limit: args.limit ?? null,
        state: args.state ?? null,
      }),
  },
  {
    name: "issue",
    path: "/v1/issue/:fingerprint",
    pathParams: ["fingerprint"],
    queryParams: ["window", "scope"],
    summary: "Everything about one issue",
    description:
      "One failure issue (a fingerprint from top_issues, why or release_diff) on one page: its title, program, instruction, failing program and instruction, error code, name and message, first and last seen and the deploy it first appeared after, counts per window with a per-minute (24 hours), hourly (7 days) and daily (30 days) series and the program's deploys, distinct wallets, breakdowns by RPC provider, wallet adapter, instruction and bot segment, the newest example signatures, and a representative recent event with its call stack (the failing frame marked) and program logs. Use it to answer what broke, where, since when, for whom.",
    response: IssueDetailSchema,
    example: {
      fingerprint: "v1:5b0c2e8a91d3f4c7",
      program: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
      title: "SlippageToleranceExceeded in Route",
      outcome: "failed_onchain",
      instruction: "Route",
      failingProgram: "JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4",
      failingInstruction: "Route",
      errCode: 6001,
      errName: "SlippageToleranceExceeded",
      errMessage: "Slippage tolerance exceeded",
      dropClass: null,
      window: { name: "7d", since: 1763095200000, until: 1763700000000 },
      firstSeen: 1763000000000,
      lastSeen: 1763699990000,
      introducedBy: { slot: 288990000, deployedAt: 1762990000000 },
      counts: { "1d": 41, "7d": 312, "30d": 940 },
      wallets: 97,
      botShare: 0.18,
      series: {
        minute: { since: 1763611140000, stepMs: 60000, counts: [0, 1, 3] },
        hourly: { since: 1763092800000, stepMs: 3600000, counts: [2, 0, 5] },
        daily: { since: 1761091200000, stepMs: 86400000, counts: [30, 28, 41] },
      },
      deploys: [{ slot: 288990000, deployedAt: 1762990000000 }],
      breakdowns: {
        providers: [
          { key: "helius", count: 200, share: 0.641 },
          { key: "public", count: 112, share: 0.359 },
        ],
        walletAdapters: [
          { key: "Phantom", count: 250, share: 0.801 },
          { key: "Solflare", count: 62, share: 0.199 },
        ],
        instructions: [{ key: "Route", count: 312, share: 1 }],
        segments: [
          { key: "human", count: 256, share: 0.821 },
          { key: "mixed", count: 0, share: 0 },
          { key: "bot", count: 56, share: 0.179 },
        ],
      },
      representative: {
        sig: "58FymHW9QzxHd8hS4Xb7cJxtnr7YkRGq2vZ3NXpFwVYm6Vz7GjM6qk4x4p3o9H1Z2UfR6bnmqv3mJg2sXLQ9aBcD",
        sentAt: 1763699989000,
        receivedAt: 1763699990000,
        payer: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
        rpcLabel: "helius",
        outcome: "failed_onchain",
        slot: 289000001,
        blockTime: 1763699990000,
        ixPath: "2",
        ixNumber: instructionNumber("2", EXAMPLE_STACK),
        cpiDepth: 0,
        failingInstruction: "Route",
        cuUsed: 104305,
        cuRequested: 146000,
        logTruncated: false,
        logs: EXAMPLE_LOGS,
        callStack: EXAMPLE_STACK,
      },
      examples: [
        {
          sig: "58FymHW9QzxHd8hS4Xb7cJxtnr7YkRGq2vZ3NXpFwVYm6Vz7GjM6qk4x4p3o9H1Z2UfR6bnmqv3mJg2sXLQ9aBcD",
          sentAt: 1763699989000,
          receivedAt: 1763699990000,
          payer: "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM",
          rpcLabel: "helius",
        },
      ],
      state: null,
    },
    errors: analyticErrors,
    answer: (deps, args, accountId) =>
      issueDetail(
        deps.ctx,
        { idls: deps.chain.idls() },
        { fingerprint: args.fingerprint ?? "", window: args.window ?? null, accountId },
      ),
  },
  {
    name: "cu_headroom",
    path: "/v1/cu-headroom/:program",
    pathParams: ["program"],
    queryParams: ["window", "scope"],
    summary: "Compute-unit usage vs requested limits per instruction",
    description:
      "Per instruction of a program: compute units used (p50, p95, max), the typical requested limit, headroom at p95, how often the compute budget was exceeded, and the daily p95 trend. Use for compute-budget tuning and 'are we running out of compute'.",
    response: CuHeadroomSchema,
    errors: analyticErrors,
    answer: (deps, args, accountId) => cuHeadroom(deps.ctx, base(args, accountId)),
  },
  {
    name: "wallet_history",
    path: "/v1/wallet/:program/:wallet",
    pathParams: ["program", "wallet"],
    queryParams: ["window", "limit", "cursor", "scope"],
    summary: "One wallet's attempts at a program",
    description:
      "One fee payer's send attempts at a program, newest first (signature, outcome, drop class, instruction, error, provider), with a rates summary of the window; paginated with `cursor`. Use when a specific user reports problems.",
    response: WalletHistorySchema,
    errors: analyticErrors,
    answer: (deps, args, accountId) =>
      walletHistory(deps.ctx, {
        ...base(args, accountId),
        wallet: args.wallet ?? "",
        limit: args.limit ?? null,
        cursor: args.cursor ?? null,
      }),
  },
  {
    name: "provider_report",
    path: "/v1/provider-report/:program",
    pathParams: ["program"],
    queryParams: ["window", "scope"],
    summary: "Drop rate per RPC provider",
    description:
      "Measured drop rate of each RPC provider the program's clients sent through (with 95% intervals), the share of drops that were blockhash expiry, and time to land p50/p95. Use for 'which RPC provider loses our transactions'.",
    response: ProviderReportSchema,
    errors: analyticErrors,
    answer: (deps, args, accountId) => providerReport(deps.ctx, base(args, accountId)),
  },
  {
    name: "ecosystem",
    path: "/v1/ecosystem",
    pathParams: [],
    queryParams: ["window", "limit"],
    summary: "The ecosystem's rates and the programs with public data",
    description:
      "The whole ecosystem's outcome rates in a window (every account, every program txray has public data for) and each program's own rates, busiest first. Use to find which programs txray knows about, or to compare one program with the rest; for one program's detail use `baseline`.",
    response: EcosystemSchema,
    errors: ["bad_request", "rate_limited", "unavailable", "internal"],
    answer: (deps, args) => ecosystem(deps.ctx, { window: args.window ?? null, limit: args.limit ?? null }),
  },
  {
    name: "status",
    path: "/v1/status",
    pathParams: [],
    queryParams: [],
    summary: "Service health",
    description:
      "txray's own health: version, lake size, spool backlog, each background job's last run and the data freshness. Use when answers look stale or empty.",
    response: StatusSchema,
    errors: ["rate_limited", "internal"],
    answer: async (deps) => serviceStatus(deps.ctx, deps.spool),
  },
];

export const questionByName = (name: string): Question | undefined => QUESTIONS.find((q) => q.name === name);

/** A question's arguments from an HTTP request's path parameters and query string. */
export function argsFromRequest(question: Question, params: Record<string, string>, url: URL): QuestionArgs {
  const args: QuestionArgs = {};
  for (const name of question.pathParams) args[name] = params[name] ?? "";
  for (const name of question.queryParams) args[name] = url.searchParams.get(name);
  return args;
}
