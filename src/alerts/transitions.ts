// The alert state machine (docs/alerts.md#states): each subject a rule watches is firing or
// resolved, and a message goes out only when it changes. A finding for a subject that is not firing
// fires it; a firing subject without a finding resolves once its condition has stayed false for
// `resolveAfterMs` (so a value hovering at the line does not flap). Pure: the caller stores what it returns.

import type { AlertSubjectState } from "../control";
import type { Finding } from "./finding";

export type Change = {
  subject: string;
  state: "firing" | "resolved";
  title: string;
  lines: string[];
  data: Record<string, unknown>;
  links: Finding["links"];
  firingSince: number;
};
export type TransitionResult = { states: AlertSubjectState[]; changes: Change[] };

type StoredEvidence = { lines: string[]; data: Record<string, unknown>; links: Finding["links"] };

export function transitions(
  ruleId: string,
  previous: AlertSubjectState[],
  findings: Finding[],
  now: number,
  resolveAfterMs: number,
): TransitionResult {
  const states: AlertSubjectState[] = [];
  const changes: Change[] = [];
  const before = new Map(previous.map((state) => [state.subject, state]));
  const seen = new Set<string>();
  for (const finding of findings) {
    if (seen.has(finding.subject)) continue; // one finding per subject (the first)
    seen.add(finding.subject);
    const prior = before.get(finding.subject);
    const evidence = JSON.stringify({
      lines: finding.lines,
      data: finding.data,
      links: finding.links,
    } satisfies StoredEvidence);
    if (prior?.state === "firing") {
      // Still firing: keep the latest evidence (for the resolved message), no message.
      if (prior.clearSince !== null || prior.data !== evidence || prior.title !== finding.title) {
        states.push({ ...prior, clearSince: null, evaluatedAt: now, title: finding.title, data: evidence });
      }
      continue;
    }
    states.push({
      ruleId,
      subject: finding.subject,
      state: "firing",
      changedAt: now,
      clearSince: null,
      evaluatedAt: now,
      title: finding.title,
      data: evidence,
    });
    changes.push({
      subject: finding.subject,
      state: "firing",
      title: finding.title,
      lines: finding.lines,
      data: finding.data,
      links: finding.links,
      firingSince: now,
    });
  }
  for (const prior of previous) {
    if (prior.state !== "firing" || seen.has(prior.subject)) continue;
    const clearSince = prior.clearSince ?? now;
    if (now - clearSince < resolveAfterMs) {
      if (prior.clearSince === null) states.push({ ...prior, clearSince, evaluatedAt: now });
      continue;
    }
    const last = JSON.parse(prior.data) as StoredEvidence;
    states.push({ ...prior, state: "resolved", changedAt: now, clearSince: null, evaluatedAt: now });
    changes.push({
      subject: prior.subject,
      state: "resolved",
      title: `Resolved: ${prior.title}`,
      lines: [
        `The condition has not held since ${new Date(clearSince).toISOString()}. When it last held:`,
        ...last.lines,
      ],
      data: last.data,
      links: last.links,
      firingSince: prior.changedAt,
    });
  }
  return { states, changes };
}
