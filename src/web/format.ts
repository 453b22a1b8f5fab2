// Number, time and address formatting shared by the pages.

export const pct = (value: number | null | undefined, digits = 1) => (value === null || value === undefined || !Number.isFinite(value) ? "–" : `${(value * 100).toFixed(digits)}%`);
export const num = (value: number | null | undefined) => (value === null || value === undefined ? "–" : value.toLocaleString("en-US"));
export const interval = (ci: [number, number] | null | undefined) => (ci ? `${pct(ci[0])} – ${pct(ci[1])}` : "–");
export const short = (text: string | null | undefined, keep = 4) => (!text ? "–" : text.length <= keep * 2 + 1 ? text : `${text.slice(0, keep)}…${text.slice(-keep)}`);

export function when(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "–";
  return new Date(ms).toISOString().replace("T", " ").slice(0, 19) + " UTC";
}

export function ago(ms: number | null | undefined, now = Date.now()): string {
  if (ms === null || ms === undefined) return "–";
  const seconds = Math.round((now - ms) / 1000);
  if (seconds < 60) return `${Math.max(seconds, 0)} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} d ago`;
}

const NAMES: Record<string, string> = {
  "11111111111111111111111111111111": "System Program",
  TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA: "SPL Token",
  TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb: "Token-2022",
  ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL: "Associated Token",
  ComputeBudget111111111111111111111111111111: "Compute Budget",
  JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4: "Jupiter v6",
};
export const programName = (program: string | null | undefined) => (program ? NAMES[program] ?? null : null);

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
/** What a search string looks like: a signature (64 bytes), an address (32 bytes) or neither. */
export function classify(text: string): "signature" | "address" | null {
  const value = text.trim();
  if (!BASE58.test(value)) return null;
  if (value.length >= 86 && value.length <= 88) return "signature";
  if (value.length >= 32 && value.length <= 44) return "address";
  return null;
}

export const OUTCOME_LABEL: Record<string, string> = { landed: "Landed", failed_onchain: "Failed on chain", dropped: "Dropped", preflight: "Preflight failure" };
export const outcomeLabel = (outcome: string | null | undefined) => (outcome ? OUTCOME_LABEL[outcome] ?? outcome : "Pending");
export const dropLabel = (dropClass: string | null | undefined) => (dropClass ? dropClass.replaceAll("_", " ") : "–");

/**
 * An issue's name, the same wherever an issue is listed (top issues, the release diff): its error
 * name, else its drop class, else its custom error code, else "Unknown error".
 */
export function issueName(issue: { errName: string | null; errCode?: number | null; dropClass?: string | null }): string {
  if (issue.errName) return issue.errName;
  if (issue.dropClass) return dropLabel(issue.dropClass);
  if (issue.errCode !== null && issue.errCode !== undefined) return `Custom ${issue.errCode}`;
  return "Unknown error";
}

/**
 * Where in the transaction an instruction sits (ixPath, docs/architecture.md, "Outcomes, drops and issues"): "2" is the third top-level
 * instruction (indexes count from 0, as the runtime's "Error processing Instruction 2" does, and
 * Compute Budget instructions count too); "2.1" is the second instruction that top-level 2 invoked.
 */
export function ixPathLabel(ixPath: string): string {
  const [top, ...inner] = ixPath.split(".");
  return inner.length === 0 ? `top-level #${top} (from 0)` : `${ixPath} (inside top-level #${top})`;
}
