// Short human renderings of each question's answer: the text an MCP tool returns next to the
// structured object, and the lines the Slack bot puts into Block Kit. A summary never adds facts the
// object does not carry; it picks the few that answer the question at a glance.

import type {
  BaselineBody,
  CuHeadroomBody,
  DiagnoseDropBody,
  EcosystemBody,
  IssueDetailBody,
  ProviderReportBody,
  ReleaseDiffBody,
  StatusBody,
  TopIssuesBody,
  TransactionBody,
  WalletHistoryBody,
  WhyBody,
} from "../analytics/queries";
import { instructionPlace } from "../shared/instruction-number";
import { countOf, formatPValue } from "../shared/wording";

export type Summary = { title: string; lines: string[] };

const pct = (x: number) => `${(x * 100).toFixed(x > 0 && x < 0.001 ? 3 : 1)}%`;
const short = (id: string | null | undefined) =>
  id ? (id.length > 12 ? `${id.slice(0, 4)}…${id.slice(-4)}` : id) : "—";
const num = (x: number | null | undefined) => (x === null || x === undefined ? "—" : x.toLocaleString("en-US"));
const when = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? "—" : new Date(ms).toISOString().replace(".000Z", "Z");

function why(a: WhyBody): Summary {
  const lines = [`Outcome: ${a.outcome}${a.source === "chain" ? " (decoded from chain)" : ""}`];
  if (a.outcome === "landed") {
    // A success decided from its status alone has no compute units (docs/api.md#get-v1whysig).
    const compute =
      a.cuUsed === null
        ? "compute units not fetched (decided from its status; the chain could not be asked now)"
        : `${num(a.cuUsed)} CU used of ${num(a.cuRequested)} requested`;
    lines.push(`Landed in slot ${num(a.slot)}; ${compute}.`);
  } else if (a.outcome === "dropped")
    lines.push(
      `Never landed: drop class ${a.dropClass ?? "unknown"} via ${a.rpcLabel ?? "?"}. See diagnose_drop for the evidence.`,
    );
  else {
    const failing = a.failingInstruction ?? a.instruction;
    const place = instructionPlace(a.ixPath, a.ixNumber);
    lines.push(
      `Failed in ${failing ?? "an instruction"}${place ? ` (${place}, CPI depth ${a.cpiDepth ?? 0})` : ""} of ${short(a.failingProgram ?? a.program)}.`,
    );
    lines.push(errorLine(a));
    if (a.cuUsed !== null)
      lines.push(
        `Compute: ${num(a.cuUsed)} of ${num(a.cuRequested)} CU${a.computeExceeded ? " (budget exceeded)" : ""}.`,
      );
  }
  if (a.callStack) lines.push(...callStackLines(a.callStack));
  if (a.issue)
    lines.push(
      `Issue ${a.issue.fingerprint} "${a.issue.title}": ${num(a.issue.count7d)} time(s) in 7 days, first seen ${when(a.issue.firstSeen)}.`,
    );
  return { title: `why ${short(a.sig)}`, lines };
}

function transaction(a: TransactionBody): Summary {
  const changed = a.tokenBalances.filter((t) => t.change !== "0");
  return {
    title: `tx ${short(a.sig)}`,
    lines: [
      `${a.outcome} in slot ${num(a.slot)} (${a.confirmationStatus ?? "confirmed at least"}); fee ${num(a.fee.lamports)} lamports, priority ${num(a.fee.priorityLamports)}.`,
      `Compute: ${num(a.compute.used)} used of ${num(a.compute.requested)} requested; cost units ${num(a.compute.costUnits)}.`,
      `${a.accounts.length} accounts (${a.accounts.filter((x) => x.source === "lookupTable").length} from lookup tables), ${a.instructions.length} instructions.`,
      ...a.instructions.map(
        (ix) =>
          `#${ix.number} ${ix.programName ?? short(ix.programId)} ${ix.name ?? "?"}${ix.failed ? " (failed)" : ""}`,
      ),
      ...changed.map((t) => `Token ${short(t.mint)} of ${short(t.owner)}: ${t.uiChange}`),
    ],
  };
}

function diagnoseDrop(a: DiagnoseDropBody): Summary {
  const lines = [
    a.dropClass
      ? `Drop class: ${a.dropClass} (confidence ${a.confidence === null ? "—" : pct(a.confidence)})`
      : `Not dropped: ${a.outcome}`,
  ];
  for (const e of a.evidence.slice(0, 3)) lines.push(`• ${e.detail}`);
  lines.push(
    `Provider ${a.provider.rpcLabel}: drop rate ${pct(a.provider.dropRate)} over ${num(a.provider.sends7d)} sends in 7 days.`,
  );
  lines.push(a.advice);
  return { title: `diagnose-drop ${short(a.sig)}`, lines };
}

const ratesLine = (label: string, r: BaselineBody["rates"]) =>
  `${label}: ${num(r.attempts)} attempts — landed ${pct(r.landingRate)}, failed ${pct(r.failureRate)}, dropped ${pct(r.dropRate)}, preflight ${pct(r.preflightRate)}`;

function baseline(a: BaselineBody): Summary {
  const lines = [ratesLine("Program", a.rates), ratesLine("Ecosystem", a.ecosystem)];
  for (const p of a.providers.slice(0, 5)) lines.push(ratesLine(`• ${p.rpcLabel}`, p));
  return { title: `baseline ${short(a.program)} (${a.window.name})`, lines };
}

/** The error of a story or an issue: name, custom code, the program's message. */
const errorLine = (e: { errName: string | null; errCode: number | null; errMessage: string | null }) =>
  `Error: ${e.errName ?? "unnamed"}${e.errCode !== null ? ` (code ${e.errCode})` : ""}${e.errMessage ? ` — ${e.errMessage}` : ""}`;

/** The frames of a call stack, indented by depth, the failing one marked (at most `limit`). */
function callStackLines(frames: NonNullable<WhyBody["callStack"]>, limit = 12): string[] {
  const lines = frames.slice(0, limit).map((f) => {
    const name = f.programName ?? short(f.program);
    const cu = f.computeUnits !== null ? `, ${num(f.computeUnits)} CU` : "";
    const number = f.number;
    return `${"  ".repeat(f.depth - 1)}${f.failing ? "✗" : f.result === "failed" ? "↑" : "·"} ${name}${f.instruction ? ` ${f.instruction}` : ""}${number ? ` [${number}]` : ""}${cu}${f.failing && f.error ? ` — ${f.error}` : ""}`;
  });
  if (frames.length > limit) lines.push(`… ${frames.length - limit} more frame(s)`);
  return ["Call stack:", ...lines];
}

function releaseDiff(a: ReleaseDiffBody): Summary {
  const lines = [
    `Deploy at slot ${a.deploy.slot} (${when(a.deploy.deployedAt ?? a.deploy.effectiveAt)}).`,
    ...(a.deploy.source
      ? [
          `Built from commit ${a.deploy.source.commit} of ${a.deploy.source.repository}${a.compareUrl ? `; changes since the previous deploy: ${a.compareUrl}` : ""}.`,
        ]
      : []),
    `Before: failed ${pct(a.pre.failureRate)}, dropped ${pct(a.pre.dropRate)} of ${num(a.pre.attempts)}; after: failed ${pct(a.post.failureRate)}, dropped ${pct(a.post.dropRate)} of ${num(a.post.attempts)}.`,
  ];
  const notable = a.issues.filter((i) => i.status === "new" || i.status === "regressed").slice(0, 5);
  for (const i of notable)
    lines.push(
      `• ${i.status}: ${i.title} ${pct(i.preRate)} → ${pct(i.postRate)} (${formatPValue(i.pValue)}) · ${i.fingerprint}`,
    );
  if (notable.length === 0) lines.push("No new or regressed issues.");
  return { title: `release-diff ${short(a.program)}`, lines };
}

function topIssues(a: TopIssuesBody): Summary {
  const lines: string[] = [];
  for (const segment of ["human", "mixed", "bot"] as const) {
    const issues = a.segments[segment];
    if (issues.length === 0) continue;
    lines.push(`${segment}:`);
    for (const i of issues.slice(0, 5))
      lines.push(`• ${num(i.count)}× ${i.title} (${pct(i.share)}, ${countOf(i.wallets, "wallet")}) · ${i.fingerprint}`);
  }
  if (lines.length === 0) lines.push("No failures in this window.");
  return { title: `top issues ${short(a.program)} (${a.window.name})`, lines };
}

function issue(a: IssueDetailBody): Summary {
  const slices = (list: { key: string | null; share: number }[]) =>
    list
      .slice(0, 4)
      .map((s) => `${s.key || "(none)"} ${pct(s.share)}`)
      .join(", ") || "—";
  const lines = [
    `Program ${short(a.program)}; ${a.outcome}${a.failingProgram && a.failingProgram !== a.program ? `, raised by ${short(a.failingProgram)}${a.failingInstruction ? ` ${a.failingInstruction}` : ""}` : ""}.`,
  ];
  if (a.errName || a.errCode !== null || a.errMessage) lines.push(errorLine(a));
  lines.push(
    `${num(a.counts["1d"])} in 1 day, ${num(a.counts["7d"])} in 7 days, ${num(a.counts["30d"])} in 30 days; ${num(a.wallets)} wallet(s) in ${a.window.name}; bot share ${pct(a.botShare)}.`,
  );
  lines.push(
    `First seen ${when(a.firstSeen)}${a.introducedBy ? ` after the deploy at slot ${a.introducedBy.slot} (${when(a.introducedBy.deployedAt)})` : ""}; last seen ${when(a.lastSeen)}.`,
  );
  lines.push(
    `Providers: ${slices(a.breakdowns.providers)} · segments: ${slices(a.breakdowns.segments.filter((s) => s.count > 0))}`,
  );
  if (a.representative?.callStack) lines.push(...callStackLines(a.representative.callStack));
  const examples = a.examples.slice(0, 3).map((e) => short(e.sig));
  if (examples.length) lines.push(`Examples: ${examples.join(", ")}`);
  return { title: a.title, lines };
}

function cuHeadroom(a: CuHeadroomBody): Summary {
  const lines = a.instructions
    .slice(0, 8)
    .map(
      (i) =>
        `• ${i.instruction}: p50 ${num(i.cuUsed.p50)}, p95 ${num(i.cuUsed.p95)}, max ${num(i.cuUsed.max)} CU; requested ${num(i.cuRequestedP50)}; headroom ${num(i.headroomP95)}; exceeded ${num(i.exceeded)}×`,
    );
  if (lines.length === 0) lines.push("No decoded instructions in this window.");
  return { title: `CU headroom ${short(a.program)} (${a.window.name})`, lines };
}

function walletHistory(a: WalletHistoryBody): Summary {
  const lines = [ratesLine("Summary", a.summary)];
  for (const i of a.items.slice(0, 10))
    lines.push(
      `• ${when(i.sentAt)} ${short(i.sig)} ${i.pending ? "pending" : i.outcome}${i.errName ? ` ${i.errName}` : ""}${i.dropClass ? ` ${i.dropClass}` : ""} via ${i.rpcLabel}`,
    );
  if (a.nextCursor) lines.push("More: pass nextCursor as cursor.");
  return { title: `wallet ${short(a.wallet)} at ${short(a.program)} (${a.window.name})`, lines };
}

/** Time to land p50 in ms and in slots, each said unknown where it is (slots: where no client sent the slot it saw). */
function timeToLand(p: ProviderReportBody["providers"][number]): string {
  const p50 = p.timeToLandSlots.p50;
  const slots = p50 === null ? "slots unknown" : `${num(p50)} ${p50 === 1 ? "slot" : "slots"}`;
  if (p.timeToLandMs.p50 !== null) return `time to land p50 ${num(p.timeToLandMs.p50)} ms · ${slots}`;
  return p.timeToLandSlots.p50 === null ? "time to land unknown" : `time to land unknown in ms · p50 ${slots}`;
}

function providerReport(a: ProviderReportBody): Summary {
  const lines = a.providers.map(
    (p) =>
      `• ${p.rpcLabel}: dropped ${num(p.dropped)} of ${num(p.attempts)} = ${pct(p.dropRate)} (95% CI ${pct(p.ci95[0])}–${pct(p.ci95[1])}); ${timeToLand(p)}`,
  );
  if (lines.length === 0) lines.push("No resolved sends in this window.");
  return { title: `providers ${short(a.program)} (${a.window.name})`, lines };
}

function status(a: StatusBody): Summary {
  const lines = [
    `Version ${a.version}; lake ${num(a.lake.envelopes)} envelopes; spool backlog ${num(a.lake.spoolBacklog)} bytes.`,
  ];
  for (const [job, run] of Object.entries(a.jobs))
    lines.push(
      `• ${job}: ${run.ok === null ? "running" : run.ok ? "ok" : `failed (${run.error})`} at ${when(run.lastRunAt)}`,
    );
  return { title: "txray status", lines };
}

function ecosystemSummary(a: EcosystemBody): Summary {
  const lines = [
    `Ecosystem: ${num(a.rates.attempts)} resolved attempts, ${pct(a.rates.landingRate)} landed, ${pct(a.rates.dropRate)} dropped.`,
  ];
  for (const p of a.programs.slice(0, 10))
    lines.push(`• ${short(p.program)}: ${num(p.attempts)} attempts, ${pct(p.rates.landingRate)} landed`);
  return { title: `ecosystem (${a.window.name})`, lines };
}

// biome-ignore lint/suspicious/noExplicitAny: each summary takes its own question's answer type
const SUMMARIES: Record<string, (answer: any) => Summary> = {
  ecosystem: ecosystemSummary,
  why,
  transaction,
  diagnose_drop: diagnoseDrop,
  baseline,
  release_diff: releaseDiff,
  top_issues: topIssues,
  issue,
  cu_headroom: cuHeadroom,
  wallet_history: walletHistory,
  provider_report: providerReport,
  status,
};

export function summarize(question: string, answer: unknown): Summary {
  const render = SUMMARIES[question];
  return render ? render(answer) : { title: question, lines: [JSON.stringify(answer)] };
}

export const summaryText = (summary: Summary) => [summary.title, ...summary.lines].join("\n");
