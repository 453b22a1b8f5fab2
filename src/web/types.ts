// Shapes of the /v1 answers the web app reads (docs/api.md). Declared here, not
// imported from the server: the app is a client of the HTTP API like any other.

export type Interval = [number, number];
export type Rates = {
  attempts: number; landed: number; failedOnchain: number; dropped: number; preflight: number;
  landingRate: number; failureRate: number; dropRate: number; preflightRate: number;
  ci95: { landingRate: Interval; dropRate: Interval };
};
export type Window = { name?: string; since: number; until: number };
export type Ecosystem = { window: Window; rates: Rates; programs: { program: string; attempts: number; lastSeen: number | null; rates: Rates }[] };
export type ProgramsPage = { items: { program: string; attempts: number; lastSeen: number }[]; nextCursor: string | null };
export type Baseline = { program: string; window: Window; rates: Rates; ecosystem: Rates; providers: ({ rpcLabel: string; rpcHash: string } & Rates)[]; pending?: number };
export type Issue = {
  fingerprint: string; outcome: string; failingProgram: string | null; instruction: string | null; errCode: number | null; errName: string | null;
  dropClass: string | null; count: number; count7d: number; share: number; wallets: number; firstSeen: number; lastSeen: number; sampleSig: string | null; botShare: number;
};
export type Segment = "human" | "mixed" | "bot";
export type TopIssues = { program: string; window: Window; segments: Record<Segment, Issue[]> };
export type CuHeadroom = {
  program: string; window: Window;
  instructions: { instruction: string; samples: number; cuUsed: { p50: number; p95: number; max: number }; cuRequestedP50: number | null; headroomP95: number | null; exceeded: number; trend: { day: string | number; cuP95: number | null }[] }[];
};
export type ProviderReport = {
  program: string; window: Window;
  providers: { rpcLabel: string; rpcHash: string; attempts: number; dropped: number; dropRate: number; ci95: Interval; expiredShare: number; timeToLandMs: { p50: number | null; p95: number | null } }[];
};
export type Deploy = { slot: number; deployedAt: number | null; detectedAt?: number; effectiveAt?: number; authority?: string | null };
export type ReleaseDiff = {
  program: string; deploy: Deploy; previousDeploy: Deploy | null; pre: Rates; post: Rates;
  issues: { fingerprint: string; instruction: string | null; errName: string | null; outcome?: string; failingProgram?: string | null; errCode?: number | null; dropClass?: string | null; preCount?: number; postCount?: number; preRate: number; postRate: number; delta: number; pValue: number | null; status: string }[];
  instructions: { instruction: string; preAttempts?: number; postAttempts?: number; preFailureRate: number | null; postFailureRate: number | null; cuP95Pre: number | null; cuP95Post: number | null }[];
};
export type Why = {
  sig: string; outcome: string; program: string | null; instruction: string | null; ixPath: string | null; cpiDepth: number | null;
  errCode: number | null; errName: string | null; cuUsed: number | null; cuRequested: number | null; payer: string | null; payerBotScore: number | null;
  issue: { fingerprint: string; count7d: number; firstSeen: number } | null;
  failingProgram?: string | null; failingInstruction?: string | null; errMessage?: string | null; computeExceeded?: boolean; logTruncated?: boolean;
  slot?: number | null; blockTime?: number | null; sentAt?: number | null; dropClass?: string | null; rpcLabel?: string | null; source?: string;
};
export type DiagnoseDrop = {
  sig: string; outcome: string; dropClass: string | null; confidence: number | null;
  evidence: { kind: string; detail: string; value: number | null }[];
  provider: { rpcLabel: string; rpcHash: string; dropRate: number | null; sends7d?: number } | null; advice: string | null;
};
export type WalletPage = {
  program: string; wallet: string; summary: Rates;
  items: { sig: string | null; sentAt: number; outcome: string | null; pending?: boolean; dropClass: string | null; instruction: string | null; errName: string | null; rpcLabel: string }[];
  nextCursor: string | null;
};
export type LandingScore = {
  schemaVersion: number; sample: true; date: string; window: { since: number | string; until: number | string }; methodology: string | Record<string, unknown>; minimumSends: number;
  programs: { rank: number; program: string; name: string | null; sampleRate: number; sends: number; landed: number; failedOnchain: number; dropped: number; landingRate: number; ci95: Interval; dropRate: number; providers: number; accounts: number; topAccountShare: number }[];
};
