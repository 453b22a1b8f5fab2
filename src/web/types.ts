// Shapes of the /v1 answers the web app reads (docs/api.md). Declared here, not
// imported from the server: the app is a client of the HTTP API like any other.

export type Interval = [number, number];
export type Rates = {
  attempts: number;
  landed: number;
  failedOnchain: number;
  dropped: number;
  preflight: number;
  landingRate: number;
  failureRate: number;
  dropRate: number;
  preflightRate: number;
  ci95: { landingRate: Interval; dropRate: Interval };
};
export type Window = { name?: string; since: number; until: number };
export type Ecosystem = {
  window: Window;
  rates: Rates;
  programs: { program: string; name?: string | null; attempts: number; lastSeen: number | null; rates: Rates }[];
};
export type ProgramsPage = {
  items: { program: string; attempts: number; lastSeen: number }[];
  nextCursor: string | null;
};
export type Baseline = {
  program: string;
  window: Window;
  rates: Rates;
  ecosystem: Rates;
  providers: ({ rpcLabel: string; rpcHash: string } & Rates)[];
  pending?: number;
};
export type Issue = {
  fingerprint: string;
  title: string;
  outcome: string;
  failingProgram: string | null;
  instruction: string | null;
  errCode: number | null;
  errName: string | null;
  dropClass: string | null;
  count: number;
  count7d: number;
  share: number;
  wallets: number;
  firstSeen: number;
  lastSeen: number;
  sampleSig: string | null;
  botShare: number;
};
export type Segment = "human" | "mixed" | "bot";
export type TopIssues = { program: string; window: Window; segments: Record<Segment, Issue[]> };
export type CuHeadroom = {
  program: string;
  window: Window;
  instructions: {
    instruction: string;
    samples: number;
    cuUsed: { p50: number; p95: number; max: number };
    cuRequestedP50: number | null;
    headroomP95: number | null;
    exceeded: number;
    trend: { day: string | number; cuP95: number | null }[];
  }[];
};
export type ProviderReport = {
  program: string;
  window: Window;
  providers: {
    rpcLabel: string;
    rpcHash: string;
    attempts: number;
    dropped: number;
    dropRate: number;
    ci95: Interval;
    expiredShare: number;
    timeToLandMs: { p50: number | null; p95: number | null };
    timeToLandSlots: { p50: number | null; p95: number | null; measured: number };
  }[];
};
export type Deploy = {
  slot: number;
  deployedAt: number | null;
  detectedAt?: number;
  effectiveAt?: number;
  authority?: string | null;
  source?: { repository: string; commit: string } | null;
};
export type ReleaseDiff = {
  program: string;
  deploy: Deploy;
  previousDeploy: Deploy | null;
  compareUrl?: string | null;
  pre: Rates;
  post: Rates;
  rateChanges?: Partial<Record<"landingRate" | "failureRate" | "dropRate" | "preflightRate", RateChange>>;
  issues: {
    fingerprint: string;
    title: string;
    instruction: string | null;
    errName: string | null;
    outcome?: string;
    failingProgram?: string | null;
    errCode?: number | null;
    dropClass?: string | null;
    preCount?: number;
    postCount?: number;
    preRate: number;
    postRate: number;
    delta: number;
    pValue: number | null;
    status: string;
  }[];
  instructions: {
    instruction: string;
    preAttempts?: number;
    postAttempts?: number;
    preFailureRate: number | null;
    postFailureRate: number | null;
    cuP95Pre: number | null;
    cuP95Post: number | null;
  }[];
};
export type RateChange = { delta: number; pValue: number; significant: boolean };
export type CallFrame = {
  index: number;
  parent: number | null;
  program: string;
  programName: string | null;
  instruction: string | null;
  depth: number;
  path: string | null;
  /** Solana Explorer's number (a hash sign, then 3.2); older servers send none. */
  number?: string | null;
  computeUnits: number | null;
  computeLimit: number | null;
  result: "success" | "failed" | "unfinished";
  error: string | null;
  failing: boolean;
  lines: [number, number];
};
export type Why = {
  sig: string;
  outcome: string;
  program: string | null;
  instruction: string | null;
  ixPath: string | null;
  ixNumber?: string | null;
  cpiDepth: number | null;
  errCode: number | null;
  errName: string | null;
  cuUsed: number | null;
  cuRequested: number | null;
  payer: string | null;
  payerBotScore: number | null;
  issue: { fingerprint: string; count7d: number; firstSeen: number; title: string } | null;
  failingProgram?: string | null;
  failingInstruction?: string | null;
  errMessage?: string | null;
  computeExceeded?: boolean;
  logTruncated?: boolean;
  slot?: number | null;
  blockTime?: number | null;
  sentAt?: number | null;
  dropClass?: string | null;
  rpcLabel?: string | null;
  source?: string;
  logs?: string[] | null;
  callStack?: CallFrame[] | null;
  links?: { solanaExplorer: string; solscan: string } | null;
  fee?: number | null;
  cuPriceMicroLamports?: number | null;
  priorityFee?: number | null;
  costUnits?: number | null;
  outsideSample?: boolean;
};
export type TxInstruction = {
  number: string;
  programId: string | null;
  programName: string | null;
  name: string | null;
  stackHeight: number | null;
  accounts: string[];
  data: string | null;
  args: Record<string, unknown> | null;
  argsSource: "idl" | "rpc" | null;
  failed: boolean;
};
/** GET /v1/tx/{sig} (docs/api.md#get-v1txsig). */
export type TxRecord = {
  sig: string;
  outcome: string;
  err: unknown;
  slot: number | null;
  blockTime: number | null;
  confirmationStatus: string | null;
  version: "legacy" | number | null;
  signatures: string[];
  recentBlockhash: string | null;
  lastValidBlockHeight: number | null;
  accounts: {
    index: number;
    address: string;
    signer: boolean;
    writable: boolean;
    source: "transaction" | "lookupTable";
    lookupTable: string | null;
    preLamports: number | null;
    postLamports: number | null;
    changeLamports: number | null;
  }[];
  tokenBalances: {
    accountIndex: number;
    account: string | null;
    owner: string | null;
    mint: string;
    decimals: number;
    pre: string | null;
    post: string | null;
    change: string;
    uiChange: string;
  }[];
  fee: { lamports: number | null; baseLamports: number; cuPriceMicroLamports: number; priorityLamports: number };
  compute: { used: number | null; requested: number | null; costUnits: number | null };
  instructions: (TxInstruction & { inner: TxInstruction[] })[];
  logs: string[] | null;
  raw: unknown;
};
export type Slice = { key: string | null; count: number; share: number };
export type Series = { since: number; stepMs: number; counts: number[] };
export type IssueDetail = {
  fingerprint: string;
  program: string;
  title: string;
  outcome: string;
  instruction: string | null;
  failingProgram: string | null;
  failingInstruction: string | null;
  errCode: number | null;
  errName: string | null;
  errMessage: string | null;
  dropClass: string | null;
  window: Window;
  firstSeen: number;
  lastSeen: number;
  introducedBy: {
    slot: number;
    deployedAt: number;
    source?: { repository: string; commit: string } | null;
    compareUrl?: string | null;
  } | null;
  counts: { "1d": number; "7d": number; "30d": number };
  wallets: number;
  botShare: number;
  /** `minute`: the last 24 hours (absent from servers before it). */
  series: { minute?: Series; hourly: Series; daily: Series };
  deploys: { slot: number; deployedAt: number }[];
  breakdowns: { providers: Slice[]; walletAdapters: Slice[]; instructions: Slice[]; segments: Slice[] };
  representative: {
    sig: string | null;
    sentAt: number;
    receivedAt: number;
    payer: string;
    rpcLabel: string;
    outcome: string;
    slot: number | null;
    blockTime: number | null;
    ixPath: string | null;
    ixNumber?: string | null;
    cpiDepth: number | null;
    failingInstruction: string | null;
    cuUsed: number | null;
    cuRequested: number | null;
    logTruncated: boolean;
    logs: string[] | null;
    callStack: CallFrame[] | null;
  } | null;
  examples: { sig: string; sentAt: number; receivedAt: number; payer: string; rpcLabel: string }[];
};
export type DiagnoseDrop = {
  sig: string;
  outcome: string;
  dropClass: string | null;
  confidence: number | null;
  evidence: { kind: string; detail: string; value: number | null }[];
  provider: { rpcLabel: string; rpcHash: string; dropRate: number | null; sends7d?: number } | null;
  advice: string | null;
};
export type WalletPage = {
  program: string;
  wallet: string;
  summary: Rates;
  items: {
    sig: string | null;
    sentAt: number;
    outcome: string | null;
    pending?: boolean;
    dropClass: string | null;
    instruction: string | null;
    errName: string | null;
    rpcLabel: string;
  }[];
  nextCursor: string | null;
};
export type LandingScore = {
  schemaVersion: number;
  sample: true;
  date: string;
  window: { since: number | string; until: number | string };
  methodology: string | Record<string, unknown>;
  minimumSends: number;
  programs: {
    rank: number;
    program: string;
    name: string | null;
    sampleRate: number;
    sends: number;
    landed: number;
    failedOnchain: number;
    dropped: number;
    landingRate: number;
    ci95: Interval;
    dropRate: number;
    providers: number;
    accounts: number;
    topAccountShare: number;
  }[];
};
