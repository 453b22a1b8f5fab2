// What a rule's condition reports: one finding per subject whose condition holds now (an issue, a
// deploy's failure rate, a provider, an instruction), with a title, the numbers as short lines, the
// evidence and the web app's pages it points to. The state machine (transitions.ts) turns findings
// into firing and resolved alerts; the payload and the Slack message are built from them.

import type { Issue } from "../analytics/queries";
import type { Context } from "../context";
import type { RuleKind, RuleParams } from "./rules";

export type FindingLinks = { program: string; issue?: string; example?: string };
export type Finding = {
  /** Stable name of what is watched: `issue:<fingerprint>`, `deploy:<slot>:failureRate`, `provider:<rpcHash>`, … */
  subject: string;
  title: string;
  /** The numbers, one short line each (the message text). */
  lines: string[];
  /** The evidence (documented per rule in docs/alerts.md). */
  data: Record<string, unknown>;
  /** Web app paths (made absolute with TXRAY_PUBLIC_URL when sent). */
  links: FindingLinks;
};

/** A rule as its condition sees it. */
export type WatchedRule<K extends RuleKind = RuleKind> = {
  id: string;
  accountId: string;
  program: string;
  createdAt: number;
  rule: K;
  params: RuleParams[K];
};
export type Condition<K extends RuleKind> = (ctx: Context, rule: WatchedRule<K>) => Promise<Finding[]>;

/** The web app's pages, with each segment encoded as the app's own links do (`v1:…` → `v1%3A…`). */
export const programPath = (program: string) => `/p/${encodeURIComponent(program)}`;
export const issuePath = (fingerprint: string) => `/i/${encodeURIComponent(fingerprint)}`;
export const transactionPath = (sig: string) => `/tx/${encodeURIComponent(sig)}`;

/** `JUP6…aV4`: enough of a program id to recognise it in a title. */
export const shortId = (id: string) => (id.length > 12 ? `${id.slice(0, 4)}…${id.slice(-4)}` : id);

/** A share as a percentage with one decimal (0.4123 → "41.2%"). */
export const percent = (share: number) => `${(Math.round(share * 1000) / 10).toFixed(1)}%`;

export const formatCount = (n: number) => n.toLocaleString("en-US");

/** A p-value for people: "p = 0.003", "p < 0.0001". */

/** Top-issues' entries of one fingerprint merged across payer segments (counts add up). */
export function issuesByFingerprint(segments: Record<string, Issue[]>): Map<string, Issue & { segmentCount: number }> {
  const merged = new Map<string, Issue & { segmentCount: number }>();
  for (const list of Object.values(segments)) {
    for (const issue of list) {
      const seen = merged.get(issue.fingerprint);
      if (seen) {
        seen.count += issue.count;
        seen.wallets += issue.wallets;
        seen.segmentCount++;
      } else merged.set(issue.fingerprint, { ...issue, segmentCount: 1 });
    }
  }
  return merged;
}
