// `/tx/{sig}`: the why story as a card that shows what means something for its outcome (a landed
// transaction: where and for how much compute; a failure: the error, where it happened in plain
// words, the call stack and the logs; a drop: its drop story, not empty error rows), the grouped
// issue with a link to its page, and links to the public explorers when the chain has them. Below it,
// for a transaction that reached the chain, everything the chain recorded (tx-record.ts).

import { api, enc } from "../api";
import { h, link, section } from "../dom";
import { ago, dropLabel, failurePlace, num, pct, programName, short, when } from "../format";
import type { DiagnoseDrop, TxRecord, Why } from "../types";
import { badge, outcomeBadge } from "./common";
import { callStackView, logsView } from "./evidence";
import { sol, txRecordView } from "./tx-record";

export function txPage(main: HTMLElement, params: { sig: string }, _query: URLSearchParams, signal: AbortSignal): void {
  const body = h("div", { class: "tx-body" });
  main.append(
    h(
      "div",
      { class: "page-head" },
      h(
        "div",
        {},
        h("p", { class: "crumb" }, link("/", "Programs"), " / transaction"),
        h("h1", {}, "Why this transaction ", h("span", { class: "dim" }, short(params.sig, 6))),
        h("p", { class: "mono dim break" }, params.sig),
      ),
    ),
    body,
  );
  void section(
    body,
    "the story",
    () => api<Why>(`why/${enc(params.sig)}`, {}, { scoped: false, signal }),
    (why) => {
      const drop = h("div");
      if (why.outcome === "dropped")
        void section(
          drop,
          "drop diagnosis",
          () => api<DiagnoseDrop>(`diagnose-drop/${enc(params.sig)}`, {}, { scoped: false, signal }),
          renderDrop,
        );
      const record = h("div");
      if (why.outcome === "landed" || why.outcome === "failed_onchain")
        void section(
          record,
          "what the chain recorded",
          () => api<TxRecord>(`tx/${enc(params.sig)}`, {}, { scoped: false, signal }),
          txRecordView,
        );
      return [story(why), drop, record];
    },
  );
}

type Fact = [string, ...(Node | string | null)[]];

/** Only the rows with something to say. */
const facts = (rows: (Fact | null)[]) =>
  h(
    "dl",
    { class: "facts" },
    rows
      .filter((r): r is Fact => r !== null)
      .flatMap(([label, ...value]) => [h("dt", {}, label), h("dd", {}, ...value)]),
  );

const programLink = (program: string) => link(`/p/${enc(program)}`, programName(program) ?? short(program, 6));

function headline(why: Why): string {
  switch (why.outcome) {
    case "landed":
      return "It landed.";
    case "dropped":
      return `It never landed: ${dropLabel(why.dropClass)}.`;
    case "preflight":
      return `Simulation rejected it before it was sent: ${why.issue?.title ?? why.errName ?? "an error"}.`;
    default:
      return `It failed on chain: ${why.issue?.title ?? why.errName ?? "an error"}.`;
  }
}

/**
 * Compute used against the requested limit. Where the telemetry has no limit (a preflight without a
 * SetComputeUnitLimit the SDK saw), the logs still say what the first metered instruction could use:
 * that figure is named for what it is, never shown as "requested" nor left as a dash.
 */
export function computeText(why: Why): string {
  const used = `${num(why.cuUsed)} used`;
  if (why.cuRequested !== null) return `${used} of ${num(why.cuRequested)} requested`;
  const first = why.callStack?.find((frame) => frame.depth === 1 && frame.computeLimit !== null);
  return first
    ? `${used} of ${num(first.computeLimit)} available to its first metered instruction`
    : `${used} (requested limit unknown)`;
}

function story(why: Why): HTMLElement {
  const program = why.program;
  const failed = why.outcome === "failed_onchain" || why.outcome === "preflight";
  const cuShare = why.cuUsed !== null && why.cuRequested ? why.cuUsed / why.cuRequested : null;
  const meter =
    why.outcome !== "dropped" && why.cuUsed !== null && why.cuRequested
      ? h(
          "div",
          {
            class: "meter",
            role: "img",
            "aria-label": `Compute used ${why.cuUsed} of ${why.cuRequested} requested (${pct(cuShare)})`,
          },
          h("span", {
            class: why.computeExceeded || (cuShare ?? 0) > 0.95 ? "bad" : "",
            style: `width:${Math.min(100, (cuShare ?? 0) * 100).toFixed(1)}%`,
          }),
        )
      : null;
  const failingElsewhere = why.failingProgram && why.failingProgram !== program;
  const place = failed ? failurePlace(why.ixPath, why.ixNumber, why.callStack) : null;
  const stack = why.callStack && why.callStack.length > 0 ? why.callStack : null;
  return h(
    "article",
    { class: `card story ${why.outcome}`, "aria-labelledby": "story-title" },
    h("div", { class: "story-head" }, outcomeBadge(why.outcome), h("h2", { id: "story-title" }, headline(why))),
    failed && why.errMessage ? h("p", { class: "err-message" }, why.errMessage) : null,
    facts([
      program ? ["Program", programLink(program)] : null,
      why.outcome !== "dropped" && why.instruction ? ["Instruction", why.instruction] : null,
      failed && (why.errName || why.errCode !== null)
        ? [
            "Error",
            h("strong", { class: "err-name" }, why.errName ?? "unnamed"),
            why.errCode !== null ? h("span", { class: "dim" }, ` (code ${why.errCode})`) : null,
          ]
        : null,
      place ? ["Where", h("span", { class: "ix-path" }, place)] : null,
      failed && failingElsewhere
        ? ["Raised by", programLink(why.failingProgram!), why.failingInstruction ? ` ${why.failingInstruction}` : null]
        : null,
      why.outcome !== "dropped" && why.cuUsed !== null
        ? ["Compute", computeText(why), why.computeExceeded ? badge("budget exceeded", "bad") : null]
        : null,
      why.fee !== null && why.fee !== undefined
        ? [
            "Fee",
            `${sol(why.fee)} SOL`,
            h(
              "span",
              { class: "dim" },
              ` · priority ${num(why.priorityFee)} lamports at ${num(why.cuPriceMicroLamports)} µlamports/CU`,
            ),
          ]
        : null,
      why.rpcLabel ? ["Provider", why.rpcLabel] : null,
      why.payer
        ? [
            "Payer",
            program ? link(`/w/${enc(program)}/${enc(why.payer)}`, short(why.payer, 6)) : short(why.payer, 6),
            why.payerBotScore !== null && why.payerBotScore !== undefined
              ? h("span", { class: "dim" }, ` · bot score ${why.payerBotScore.toFixed(2)}`)
              : null,
          ]
        : null,
      why.sentAt ? ["Sent", when(why.sentAt)] : null,
      why.slot
        ? ["Slot", num(why.slot), why.blockTime ? h("span", { class: "dim" }, ` · ${when(why.blockTime)}`) : null]
        : null,
      why.links
        ? [
            "On explorers",
            h("a", { href: why.links.solanaExplorer, rel: "noopener" }, "Solana Explorer"),
            " · ",
            h("a", { href: why.links.solscan, rel: "noopener" }, "Solscan"),
          ]
        : null,
    ]),
    meter,
    stack ? [h("h3", {}, "Call stack"), callStackView(stack)] : null,
    why.logs?.length ? logsView(why.logs, stack, false, why.logTruncated ?? false) : null,
    why.issue
      ? h(
          "div",
          { class: "issue-box" },
          h("h3", {}, "Grouped issue"),
          h(
            "p",
            {},
            link(`/i/${enc(why.issue.fingerprint)}`, h("strong", {}, why.issue.title)),
            h(
              "span",
              { class: "dim" },
              ` · ${num(why.issue.count7d)} in 7 days · first seen ${ago(why.issue.firstSeen)}`,
            ),
          ),
          h("p", { class: "dim" }, h("code", {}, why.issue.fingerprint)),
        )
      : null,
    why.source === "chain"
      ? h("p", { class: "dim" }, "txray never received telemetry for this signature: decoded from the chain on demand.")
      : null,
    why.outsideSample
      ? h(
          "p",
          { class: "dim sample-note" },
          why.cuUsed !== null
            ? "Outside the success sample: txray decided this success from its status; its compute, fee and logs were fetched from the chain on demand."
            : "Outside the success sample: txray decided this success from its status; its compute, fee and logs are fetched on demand, and the chain could not be asked now. Reload in a minute.",
        )
      : null,
  );
}

function renderDrop(data: DiagnoseDrop) {
  return h(
    "section",
    { class: "card", "aria-labelledby": "drop-title" },
    h(
      "h2",
      { id: "drop-title" },
      "Why it dropped: ",
      dropLabel(data.dropClass),
      data.confidence !== null ? h("span", { class: "dim" }, ` (confidence ${pct(data.confidence, 0)})`) : null,
    ),
    data.advice ? h("p", { class: "advice" }, data.advice) : null,
    h(
      "ul",
      { class: "evidence" },
      data.evidence.map((e) => h("li", {}, h("strong", {}, e.kind.replaceAll("_", " ")), ": ", e.detail)),
    ),
    data.provider
      ? h(
          "p",
          { class: "dim" },
          `Provider ${data.provider.rpcLabel}: drop rate ${pct(data.provider.dropRate)} over its last 7 days of sends.`,
        )
      : null,
  );
}
