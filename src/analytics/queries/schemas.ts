// The response contract of every read question, once, as zod schemas (docs/api.md): the MCP tools'
// outputSchema, the OpenAPI document and the tests that validate real answers all use these. Objects
// are loose on purpose: fields may be added freely (never renamed), so a schema written today keeps
// validating tomorrow's answers. The query functions' own types must stay assignable to these (the
// checks at the bottom fail the type-check otherwise).

import { z } from "zod";
import { ERROR_STATUS, type ErrorCode } from "../../shared/errors";
import { OUTCOMES } from "../../shared/outcome";
import type { BaselineResponse } from "./baseline";
import type { CuHeadroomResponse } from "./cu-headroom";
import type { DiagnoseDropAnswer } from "./diagnose-drop";
import type { EcosystemResponse } from "./ecosystem";
import type { IssueDetailResponse } from "./issue-detail";
import type { IssueListResponse } from "./issue-list";
import type { IssueStateAnswer } from "./issue-state";
import type { ProviderReportResponse } from "./provider-report";
import type { ReleaseDiffResponse } from "./release-diff";
import type { TopIssuesResponse } from "./top-issues";
import type { ChainFigures, TransactionAnswer } from "./transaction";
import type { WalletHistoryResponse } from "./wallet-history";
import type { WhyAnswer } from "./why";

const count = z.number().int().min(0);
const ms = z.number().int().describe("Unix milliseconds");
const share = z.number().min(0).max(1);
const interval = z.tuple([z.number(), z.number()]).describe("95% Wilson interval [lo, hi]");
const outcome = z.enum(OUTCOMES);
const windowName = z.enum(["1d", "7d", "30d"]);
const title = z.string().describe("the issue's title, the same on every surface (docs/api.md#issue-titles)");

export const ErrorBodySchema = z
  .looseObject({
    error: z.looseObject({
      code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
    }),
  })
  .meta({ id: "Error", description: "Every error: `{ error: { code, message } }` with the status of its code." });

export const RatesSchema = z
  .looseObject({
    attempts: count.describe("resolved attempts in the window (pending excluded)"),
    landed: count,
    failedOnchain: count,
    dropped: count,
    preflight: count,
    landingRate: share,
    failureRate: share,
    dropRate: share,
    preflightRate: share,
    ci95: z.looseObject({ landingRate: interval, dropRate: interval }),
  })
  .meta({ id: "Rates" });

export const WindowRangeSchema = z.looseObject({ name: windowName, since: ms, until: ms }).meta({ id: "WindowRange" });

const IssueRefSchema = z.looseObject({
  fingerprint: z.string(),
  count7d: count,
  firstSeen: ms,
  title,
});

/** The failing instruction as people read it (docs/api.md): Explorer's number of `ixPath`. */
const ixNumber = z
  .string()
  .nullable()
  .describe(
    'Solana Explorer\'s number of ixPath ("#3", "#3.2"), as pages and texts show it; null without an ixPath, or for a call the call stack cannot place',
  );

export const CallFrameSchema = z
  .looseObject({
    index: count.describe("position in invocation order"),
    parent: count.nullable().describe("index of the calling frame; null at top level"),
    program: z.string(),
    programName: z.string().nullable().describe("display name of a well-known program"),
    instruction: z.string().nullable().describe("instruction name when the logs or the stored story name it"),
    depth: z.number().int().min(1).describe("invoke depth: 1 = top level, +1 per CPI"),
    path: z
      .string()
      .nullable()
      .describe(
        'instruction path as why\'s ixPath, 0-based at each call level ("2", "2.1"); pages show Solana Explorer\'s 1-based #N.M',
      ),
    number: z
      .string()
      .nullable()
      .describe(
        'Solana Explorer\'s number of the frame, as pages and texts show it ("#3", "#3.2": 1-based, inner instructions counted in invoke order at any depth); null when the logs cannot place the frame',
      ),
    computeUnits: count.nullable().describe("`consumed N of M`: N"),
    computeLimit: count.nullable().describe("`consumed N of M`: M"),
    result: z.enum(["success", "failed", "unfinished"]),
    error: z.string().nullable().describe("the text after `failed: `"),
    failing: z.boolean().describe("the innermost failing frame (where the error was raised)"),
    lines: z.tuple([count, count]).describe("first and last log line of the frame (0-based, inclusive)"),
  })
  .meta({ id: "CallFrame", description: "One frame of the call stack, rebuilt from the program logs." });

export const WhySchema = z
  .looseObject({
    sig: z.string(),
    outcome,
    program: z.string().nullable(),
    instruction: z.string().nullable(),
    ixPath: z.string().nullable(),
    ixNumber: ixNumber,
    cpiDepth: z.number().int().nullable(),
    errCode: z.number().int().nullable(),
    errName: z.string().nullable(),
    cuUsed: z.number().int().nullable(),
    cuRequested: z.number().int().nullable(),
    payer: z.string().nullable(),
    payerBotScore: z.number().nullable(),
    issue: IssueRefSchema.nullable(),
    failingProgram: z.string().nullable(),
    // Added to the story by a parallel change (fields are added, never renamed: docs/api.md); optional until every
    // answer carries it.
    failingInstruction: z.string().nullable().optional(),
    errMessage: z.string().nullable(),
    computeExceeded: z.boolean(),
    logTruncated: z.boolean(),
    slot: z.number().int().nullable(),
    blockTime: ms.nullable(),
    sentAt: ms.nullable(),
    dropClass: z.string().nullable(),
    rpcLabel: z.string().nullable(),
    source: z.enum(["ingested", "chain"]),
    logs: z
      .array(z.string())
      .nullable()
      .describe("program logs of a failure (transaction or simulation) as recorded; null otherwise"),
    callStack: z
      .array(CallFrameSchema)
      .nullable()
      .describe("the call stack rebuilt from those logs, the failing frame marked"),
    links: z
      .looseObject({ solanaExplorer: z.string(), solscan: z.string() })
      .nullable()
      .describe("the transaction on public explorers; null when EXPLORER_CLUSTER is off"),
    fee: count.nullable().describe("meta.fee in lamports, when txray holds the transaction"),
    cuPriceMicroLamports: count
      .nullable()
      .describe("the SetComputeUnitPrice paid, µlamports per compute unit (0 without one)"),
    priorityFee: count.nullable().describe("ceil(cuPriceMicroLamports × requested compute units / 1e6) lamports"),
    costUnits: count.nullable().describe("meta.costUnits (the scheduler's cost); null where the RPC does not give it"),
    outsideSample: z
      .boolean()
      .describe(
        "a success decided from its status alone (outside the success sample): its compute, fee and logs are fetched on demand, null when the chain cannot be asked now",
      ),
  })
  .meta({
    id: "Why",
    description: "The decoded failure story of a signature; every field present, null where it does not apply.",
  });

const lamports = z.number().int().nullable();
const TxInstructionFields = {
  number: z.string().describe('as Solana Explorer numbers it: "3" top level, "3.2" the second instruction #3 invoked'),
  programId: z.string().nullable(),
  programName: z.string().nullable(),
  name: z.string().nullable(),
  stackHeight: z.number().int().nullable().describe("invoke depth: 1 at top level"),
  accounts: z.array(z.string()),
  data: z.string().nullable().describe("instruction data, base58; null when the RPC returned it parsed"),
  args: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe("arguments decoded by the program's IDL, or parsed by the RPC"),
  argsSource: z.enum(["idl", "rpc"]).nullable(),
  failed: z.boolean().describe("the top-level instruction meta.err names"),
};

export const TransactionSchema = z
  .looseObject({
    sig: z.string(),
    outcome: z.enum(["landed", "failed_onchain"]),
    err: z.unknown().describe("meta.err as the chain reported it; null on success"),
    slot: z.number().int().nullable(),
    blockTime: ms.nullable(),
    confirmationStatus: z.enum(["processed", "confirmed", "finalized"]).nullable(),
    version: z.union([z.literal("legacy"), z.number().int()]).nullable(),
    signatures: z.array(z.string()),
    recentBlockhash: z.string().nullable(),
    lastValidBlockHeight: z.number().int().nullable().describe("from the envelope txray took in, when it did"),
    accounts: z.array(
      z.looseObject({
        index: count,
        address: z.string(),
        signer: z.boolean(),
        writable: z.boolean(),
        source: z.enum(["transaction", "lookupTable"]),
        lookupTable: z.string().nullable(),
        preLamports: lamports,
        postLamports: lamports,
        changeLamports: lamports,
      }),
    ),
    tokenBalances: z.array(
      z.looseObject({
        accountIndex: count,
        account: z.string().nullable(),
        owner: z.string().nullable(),
        mint: z.string(),
        programId: z.string().nullable(),
        decimals: count,
        pre: z.string().nullable().describe("raw amount (base units) before; null when the account had none"),
        post: z.string().nullable(),
        change: z.string().describe("post − pre, raw amount"),
        uiChange: z.string().describe("the change in whole tokens"),
      }),
    ),
    fee: z.looseObject({
      lamports,
      baseLamports: count,
      cuPriceMicroLamports: count,
      priorityLamports: count,
    }),
    compute: z.looseObject({ used: lamports, requested: lamports, costUnits: lamports }),
    instructions: z.array(
      z.looseObject({ ...TxInstructionFields, inner: z.array(z.looseObject(TxInstructionFields)) }),
    ),
    logs: z.array(z.string()).nullable(),
    raw: z.unknown().describe("the getTransaction result as the RPC returned it"),
    links: z.looseObject({ solanaExplorer: z.string(), solscan: z.string() }).nullable(),
  })
  .meta({
    id: "Transaction",
    description: "Everything the chain recorded about one transaction, laid out as an explorer shows it.",
  });

export const DiagnoseDropSchema = z
  .looseObject({
    sig: z.string(),
    outcome,
    dropClass: z.string().nullable(),
    confidence: z.number().nullable(),
    evidence: z.array(
      z.looseObject({
        kind: z.string(),
        detail: z.string(),
        value: z.union([z.string(), z.number(), z.boolean(), z.null()]),
      }),
    ),
    provider: z.looseObject({
      rpcLabel: z.string(),
      rpcHash: z.string(),
      dropRate: share,
      sends7d: count,
      accounts: count,
    }),
    advice: z.string(),
  })
  .meta({ id: "DiagnoseDrop" });

export const BaselineSchema = z
  .looseObject({
    program: z.string(),
    window: WindowRangeSchema,
    rates: RatesSchema,
    ecosystem: RatesSchema,
    providers: z.array(RatesSchema.extend({ rpcLabel: z.string(), rpcHash: z.string(), accounts: count })),
    pending: count,
    accounts: count.describe("accounts the rates count (public: docs/serving.md#public-figures)"),
    ecosystemAccounts: count,
  })
  .meta({ id: "Baseline" });

const periodSchema = z.looseObject({ since: ms, until: ms });
const deploySource = z
  .looseObject({ repository: z.string(), commit: z.string() })
  .nullable()
  .describe(
    "the repository and commit named by the deploy's verified-build record (OtterSec verify program); null without one",
  );
const rateChange = z.looseObject({ delta: z.number(), pValue: z.number(), significant: z.boolean() });
export const ReleaseDiffSchema = z
  .looseObject({
    program: z.string(),
    window: z.string().describe("the window name: 1d, 7d or 30d"),
    deploy: z.looseObject({
      slot: count,
      deployedAt: ms.nullable(),
      detectedAt: ms.nullable(),
      effectiveAt: ms,
      authority: z.string().nullable(),
      source: deploySource.optional(),
    }),
    previousDeploy: z.looseObject({ slot: count, deployedAt: ms, source: deploySource.optional() }).nullable(),
    compareUrl: z
      .string()
      .nullable()
      .optional()
      .describe(
        "the commits between the previous deploy's source and this one's (GitHub compare view), when both are known",
      ),
    periods: z.looseObject({ pre: periodSchema, post: periodSchema }),
    pre: RatesSchema,
    post: RatesSchema,
    rateChanges: z
      .looseObject({
        landingRate: rateChange,
        failureRate: rateChange,
        dropRate: rateChange,
        preflightRate: rateChange,
      })
      .describe(
        "each outcome rate's change across the deploy: post − pre, two-sided two-proportion p-value, significant at p < 0.05",
      ),
    issues: z.array(
      z.looseObject({
        fingerprint: z.string(),
        title,
        instruction: z.string().nullable(),
        errName: z.string().nullable(),
        outcome: z.string(),
        failingProgram: z.string().nullable().describe("the innermost failing program, as in top-issues"),
        errCode: z.number().int().nullable().describe("custom program error code, as in top-issues"),
        dropClass: z.string().nullable().describe("drop class of a dropped issue, as in top-issues"),
        preCount: count,
        postCount: count,
        preRate: share,
        postRate: share,
        delta: z.number(),
        pValue: z.number(),
        status: z.enum(["new", "regressed", "resolved", "unchanged"]),
      }),
    ),
    instructions: z.array(
      z.looseObject({
        instruction: z.string(),
        preAttempts: count,
        postAttempts: count,
        preFailureRate: share,
        postFailureRate: share,
        cuP95Pre: z.number().nullable(),
        cuP95Post: z.number().nullable(),
        cuP95Shift: z.number().nullable(),
      }),
    ),
  })
  .meta({ id: "ReleaseDiff" });

/** What makes an issue (its fingerprint's parts) and its title, in every answer that lists issues. */
const issueIdentity = {
  fingerprint: z.string(),
  title,
  outcome: z.string(),
  failingProgram: z.string().nullable(),
  instruction: z.string().nullable(),
  errCode: z.number().int().nullable(),
  errName: z.string().nullable(),
  dropClass: z.string().nullable(),
};

export const IssueSchema = z
  .looseObject({
    ...issueIdentity,
    count,
    count7d: count,
    share,
    wallets: count,
    firstSeen: ms,
    lastSeen: ms,
    sampleSig: z.string().nullable(),
    botShare: share,
  })
  .meta({ id: "Issue" });

export const TopIssuesSchema = z
  .looseObject({
    program: z.string(),
    window: WindowRangeSchema,
    segment: z.enum(["human", "mixed", "bot"]).nullable(),
    segments: z.looseObject({ human: z.array(IssueSchema), mixed: z.array(IssueSchema), bot: z.array(IssueSchema) }),
  })
  .meta({ id: "TopIssues" });

export const CuHeadroomSchema = z
  .looseObject({
    program: z.string(),
    window: WindowRangeSchema,
    instructions: z.array(
      z.looseObject({
        instruction: z.string(),
        samples: count,
        cuUsed: z.looseObject({ p50: z.number(), p95: z.number(), max: z.number() }),
        cuRequestedP50: z.number().nullable(),
        headroomP95: z.number().nullable(),
        exceeded: count,
        trend: z.array(z.looseObject({ day: z.string(), cuP95: z.number() })),
      }),
    ),
  })
  .meta({ id: "CuHeadroom" });

export const WalletHistorySchema = z
  .looseObject({
    program: z.string(),
    wallet: z.string(),
    window: WindowRangeSchema,
    summary: RatesSchema,
    items: z.array(
      z.looseObject({
        sig: z.string().nullable(),
        sentAt: ms,
        receivedAt: ms,
        outcome: z.string().nullable().describe("landed, failed_onchain, dropped, preflight; null while pending"),
        pending: z.boolean(),
        dropClass: z.string().nullable(),
        instruction: z.string().nullable(),
        errName: z.string().nullable(),
        rpcLabel: z.string(),
      }),
    ),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: "WalletHistory" });

export const ProviderReportSchema = z
  .looseObject({
    program: z.string(),
    window: WindowRangeSchema,
    providers: z.array(
      z.looseObject({
        rpcLabel: z.string(),
        rpcHash: z.string(),
        attempts: count,
        dropped: count,
        dropRate: share,
        ci95: interval,
        expiredShare: share,
        timeToLandMs: z.looseObject({ p50: z.number().nullable(), p95: z.number().nullable() }),
        timeToLandSlots: z
          .looseObject({ p50: count.nullable(), p95: count.nullable(), measured: count })
          .describe(
            "time to land in slots (landed slot − the slot the client saw before sending), over the `measured` sends whose client sent that slot; null quantiles when none did",
          ),
        accounts: count,
      }),
    ),
  })
  .meta({ id: "ProviderReport" });

export const ProgramsSchema = z
  .looseObject({
    items: z.array(z.looseObject({ program: z.string(), attempts: count, lastSeen: ms.nullable() })),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: "Programs" });

const jobRun = z.looseObject({
  lastRunAt: ms.nullable(),
  ok: z.boolean().nullable().describe("null while the latest run is still going"),
  durationMs: z.number().nullable(),
  error: z.string().nullable(),
  details: z.unknown().describe("what the job reported about its run (its own shape per job); null while running"),
  lastFinished: z
    .looseObject({
      startedAt: ms,
      ok: z.boolean(),
      durationMs: z.number().nullable(),
      error: z.string().nullable(),
      details: z.unknown(),
    })
    .nullable()
    .describe("while a run is going, the latest run that ended; null otherwise"),
  consecutiveFailures: count.describe("failed runs since the job's last success"),
});
export const StatusSchema = z
  .looseObject({
    version: z.string(),
    build: z.string().describe('the git commit this server runs (12 hex digits), or "unknown" outside a git checkout'),
    lake: z.looseObject({
      envelopes: count,
      spoolBacklog: count.nullable().describe("bytes acknowledged, not yet in the lake; null: not known here"),
      lastFlushAt: ms.nullable(),
      spoolIntegrity: z
        .looseObject({
          corruptFrames: count,
          corruptBytes: count,
          tornBytes: count,
          segmentsRepaired: count,
          lastAt: ms.nullable(),
          lastSegment: z.string().nullable(),
        })
        .describe("what flush skipped because a spool checksum failed (docs/lake.md, spool)"),
      // Spool segments flush set aside because their rows cannot be read (docs/lake.md, "Quarantined segments").
      quarantine: z.looseObject({
        segments: count,
        envelopes: count,
        lastAt: ms.nullable(),
        lastSegment: z.string().nullable(),
      }),
    }),
    resolver: z
      .looseObject({
        pendingAttempts: count.describe("open attempts waiting to land or to expire"),
        awaitingIntake: count.describe("envelopes in the lake not yet taken in"),
        lagMs: count.describe("how long the oldest waiting work has waited"),
      })
      .describe("the resolver's backlog"),
    freshness: z.looseObject({
      lastFlushAt: ms.nullable(),
      lastResolveAt: ms.nullable(),
      lastTablesAt: ms.nullable(),
      serving: z
        .looseObject({
          version: z.number().int().nullable().describe("the serving version answering; null before the first build"),
          dataUntil: ms.nullable().describe("every window ends here; the answers' age is now − dataUntil"),
          refreshEveryMs: count,
          refreshEverySource: z
            .enum(["scheduler", "unknown"])
            .describe("scheduler: its recorded TABLES_INTERVAL_MS; unknown: none recorded, this process's own"),
          stale: z.boolean(),
          reason: z.string().nullable().describe("why, in words, when stale; null otherwise"),
        })
        .describe("how old the analytical answers are, and why when they are stale"),
    }),
    chain: z
      .looseObject({
        reachable: z.boolean().nullable().describe("whether the latest RPC request answered; null before any ended"),
        since: ms.nullable().describe("since when it has (or has not) answered"),
        lastError: z
          .enum(["timeout", "connection", "http_429", "http_5xx", "http_4xx", "bad_reply"])
          .nullable()
          .describe("the latest failure's kind (no answer within the timeout counts as `timeout`)"),
        lastOkAt: ms.nullable(),
        failuresLastMinute: count.describe("failed RPC requests (resolver, deploys job and why) in the last minute"),
      })
      .optional()
      .describe("the Solana RPC endpoint as txray's RPC requests found it (docs/operations.md)"),
    jobs: z.record(z.string(), jobRun).describe("each background job's latest run, by job name"),
    disk: z
      .looseObject({
        lakeBytes: count,
        spoolBytes: count,
        tablesBytes: count,
        controlBytes: count,
        idlBytes: count,
        retiredBytes: count,
        stagingBytes: count,
        totalBytes: count,
        bytesPerAttempt: z.number().nullable().describe("totalBytes / envelopes in the lake; null while it is empty"),
        measuredAt: ms,
      })
      .describe("bytes on disk by part (measured at most every few seconds)"),
    alerts: z
      .looseObject({
        rules: count,
        firing: count.describe("subjects of all rules firing now"),
        pending: count.describe("deliveries waiting to be sent or retried"),
        held: count.describe("alerts held back by the flood cap"),
        oldestPendingAt: ms.nullable(),
        lastSentAt: ms.nullable(),
        last24h: z
          .looseObject({ sent: count, failed: count, summarized: count })
          .describe("deliveries created in the last 24 hours, by outcome"),
      })
      .optional()
      .describe("alert rules and deliveries (docs/alerts.md), counts only"),
  })
  .meta({ id: "Status" });

export const EcosystemSchema = z
  .looseObject({
    window: WindowRangeSchema,
    rates: RatesSchema,
    programs: z.array(
      z.looseObject({
        program: z.string(),
        name: z
          .string()
          .nullable()
          .describe("a well-known program's name, else the name its registered IDL declares; null when neither"),
        attempts: count,
        lastSeen: ms.nullable(),
        rates: RatesSchema,
      }),
    ),
  })
  .meta({ id: "Ecosystem" });

const sliceSchema = z.looseObject({ key: z.string().nullable(), count, share });
const seriesSchema = z.looseObject({
  since: ms.describe("start of the first bucket (UTC-aligned)"),
  stepMs: z.number().int().describe("bucket length: 3600000 (hour) or 86400000 (day)"),
  counts: z.array(count).describe("attempts per bucket, oldest first; the last bucket holds the build's clock"),
});

const storedIssueState = z.enum(["unresolved", "resolved", "resolved_next_release", "ignored"]);
export const IssueStateSchema = z
  .looseObject({
    state: z
      .enum(["unresolved", "resolved", "resolved_next_release", "ignored", "regressed"])
      .describe("the state now, derived from the stored one and the events since (docs/api.md#issue-states)"),
    stored: storedIssueState.describe("what an admin key last set (unresolved when nobody did)"),
    changedAt: ms.nullable(),
    changedBy: z.string().nullable().describe("`key <id> (<account>)` or the surface's user; never a key"),
    assignee: z.string().nullable(),
    ignoreUntilEvents: count.nullable(),
    ignoreUntilAt: ms.nullable(),
    eventsSinceChange: count.nullable().describe("events received after the change (a lower bound past 20)"),
    release: z
      .looseObject({ slot: count, deployedAt: ms })
      .nullable()
      .describe("resolved_next_release: the deploy that shipped the fix, once observed"),
  })
  .meta({ id: "IssueState", description: "An issue's triage state in the key's account." });

export const IssueDetailSchema = z
  .looseObject({
    fingerprint: z.string(),
    program: z.string(),
    title,
    outcome: z.string(),
    instruction: z.string().nullable(),
    failingProgram: z.string().nullable(),
    failingInstruction: z.string().nullable(),
    errCode: z.number().int().nullable(),
    errName: z.string().nullable(),
    errMessage: z.string().nullable(),
    dropClass: z.string().nullable(),
    window: WindowRangeSchema,
    firstSeen: ms,
    lastSeen: ms,
    introducedBy: z
      .looseObject({
        slot: count,
        deployedAt: ms,
        previousSlot: count.nullable().optional().describe("the deploy before it"),
        source: deploySource.optional(),
        compareUrl: z.string().nullable().optional().describe("the commits between the previous deploy and this one"),
      })
      .nullable()
      .describe("the program's last deploy before firstSeen"),
    counts: z.looseObject({ "1d": count, "7d": count, "30d": count }),
    wallets: count.describe("distinct payers in the window"),
    botShare: share,
    series: z.looseObject({ minute: seriesSchema, hourly: seriesSchema, daily: seriesSchema }),
    deploys: z
      .array(z.looseObject({ slot: count, deployedAt: ms, source: deploySource.optional() }))
      .describe("the program's deploys in the last 30 days"),
    breakdowns: z.looseObject({
      providers: z.array(sliceSchema),
      walletAdapters: z.array(sliceSchema),
      instructions: z.array(sliceSchema),
      segments: z.array(sliceSchema),
    }),
    representative: z
      .looseObject({
        sig: z.string().nullable(),
        sentAt: ms,
        receivedAt: ms,
        payer: z.string(),
        rpcLabel: z.string(),
        outcome: z.string(),
        slot: count.nullable(),
        blockTime: ms.nullable(),
        ixPath: z.string().nullable(),
        ixNumber: ixNumber,
        cpiDepth: z.number().int().nullable(),
        failingInstruction: z.string().nullable(),
        cuUsed: count.nullable(),
        cuRequested: count.nullable(),
        logTruncated: z.boolean(),
        logs: z.array(z.string()).nullable(),
        callStack: z.array(CallFrameSchema).nullable(),
      })
      .nullable(),
    examples: z.array(
      z.looseObject({ sig: z.string(), sentAt: ms, receivedAt: ms, payer: z.string(), rpcLabel: z.string() }),
    ),
    state: IssueStateSchema.nullable().describe("with scope=account: the issue's state in the key's account"),
  })
  .meta({
    id: "IssueDetail",
    description: "One issue: identity, when, how often, for whom, a representative event with its logs and call stack.",
  });

export const IssueStateAnswerSchema = z
  .looseObject({
    fingerprint: z.string(),
    program: z.string(),
    state: IssueStateSchema,
    history: z
      .array(
        z.looseObject({
          at: ms,
          actor: z.string(),
          change: z.enum(["state", "assignee"]),
          from: z.unknown(),
          to: z.unknown(),
        }),
      )
      .describe("every change, oldest first"),
  })
  .meta({ id: "IssueStateAnswer", description: "An issue's state in the key's account and who changed what, when." });

export const IssueListSchema = z
  .looseObject({
    program: z.string(),
    window: WindowRangeSchema,
    state: z.string().describe("the state filter applied: open (default), all, or one state"),
    sort: z.enum(["events", "wallets"]),
    items: z.array(
      z.looseObject({
        ...issueIdentity,
        count: count.describe("events in the window"),
        wallets: count.describe("distinct payers hit in the window"),
        botShare: share,
        firstSeen: ms,
        lastSeen: ms,
        state: IssueStateSchema,
      }),
    ),
    nextCursor: z.string().nullable(),
  })
  .meta({ id: "IssueList", description: "An account's issues of a program for triage, one page." });

export const IngestAcceptedSchema = z.looseObject({ accepted: count }).meta({ id: "IngestAccepted" });

export type ErrorBody = z.infer<typeof ErrorBodySchema>;
export type WhyBody = z.infer<typeof WhySchema>;
export type TransactionBody = z.infer<typeof TransactionSchema>;
export type DiagnoseDropBody = z.infer<typeof DiagnoseDropSchema>;
export type BaselineBody = z.infer<typeof BaselineSchema>;
export type ReleaseDiffBody = z.infer<typeof ReleaseDiffSchema>;
export type TopIssuesBody = z.infer<typeof TopIssuesSchema>;
export type CuHeadroomBody = z.infer<typeof CuHeadroomSchema>;
export type WalletHistoryBody = z.infer<typeof WalletHistorySchema>;
export type ProviderReportBody = z.infer<typeof ProviderReportSchema>;
export type StatusBody = z.infer<typeof StatusSchema>;
export type EcosystemBody = z.infer<typeof EcosystemSchema>;
export type IssueDetailBody = z.infer<typeof IssueDetailSchema>;
export type IssueStateAnswerBody = z.infer<typeof IssueStateAnswerSchema>;
export type IssueListBody = z.infer<typeof IssueListSchema>;

// Static conformance: each query function's answer type fits its documented schema.
type Fits<A, B> = A extends B ? true : never;
export const CONFORMS: [
  Fits<WhyAnswer & ChainFigures, WhyBody>,
  Fits<TransactionAnswer, TransactionBody>,
  Fits<DiagnoseDropAnswer, DiagnoseDropBody>,
  Fits<BaselineResponse, BaselineBody>,
  Fits<ReleaseDiffResponse, ReleaseDiffBody>,
  Fits<TopIssuesResponse, TopIssuesBody>,
  Fits<CuHeadroomResponse, CuHeadroomBody>,
  Fits<WalletHistoryResponse, WalletHistoryBody>,
  Fits<ProviderReportResponse, ProviderReportBody>,
  Fits<EcosystemResponse, EcosystemBody>,
  Fits<IssueDetailResponse, IssueDetailBody>,
  Fits<IssueStateAnswer, IssueStateAnswerBody>,
  Fits<IssueListResponse, IssueListBody>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true];
