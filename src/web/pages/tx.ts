// `/tx/{sig}`: the why story as a card (outcome, program and instruction, instruction path, error, compute
// used vs requested, the grouped issue) and, for drops, the diagnose-drop evidence and advice.

import { api, enc } from "../api";
import { h, link, section } from "../dom";
import { ago, dropLabel, ixPathLabel, num, pct, programName, short, when } from "../format";
import type { DiagnoseDrop, Why } from "../types";
import { badge, card, outcomeBadge } from "./common";

export function txPage(main: HTMLElement, params: { sig: string }, _query: URLSearchParams, signal: AbortSignal): void {
  const body = h("div");
  main.append(h("div", { class: "page-head" }, h("div", {}, h("p", { class: "crumb" }, link("/", "Programs"), " / transaction"), h("h1", {}, "Why this transaction ", h("span", { class: "dim" }, short(params.sig, 6))), h("p", { class: "mono dim break" }, params.sig))), body);
  void section(body, "the story", () => api<Why>(`why/${enc(params.sig)}`, {}, { scoped: false, signal }), (why) => {
    const drop = h("div");
    if (why.outcome === "dropped") void section(drop, "drop diagnosis", () => api<DiagnoseDrop>(`diagnose-drop/${enc(params.sig)}`, {}, { scoped: false, signal }), renderDrop);
    return [story(why), drop];
  });
}

function row(label: string, ...value: (Node | string | null)[]) {
  const present = value.filter((v) => v !== null);
  return [h("dt", {}, label), h("dd", {}, ...(present.length ? present : ["–"]))];
}

function story(why: Why): HTMLElement {
  const program = why.program;
  const headline =
    why.outcome === "landed"
      ? "It landed."
      : why.outcome === "dropped"
        ? `It never landed: ${dropLabel(why.dropClass)}.`
        : why.outcome === "preflight"
          ? `Simulation rejected it before it was sent${why.errName ? `: ${why.errName}` : ""}.`
          : `It failed on chain${why.errName ? ` with ${why.errName}` : ""}${why.instruction ? ` in ${why.instruction}` : ""}.`;
  const cuShare = why.cuUsed !== null && why.cuRequested ? why.cuUsed / why.cuRequested : null;
  const meter =
    why.cuUsed !== null && why.cuRequested
      ? h(
          "div",
          { class: "meter", role: "img", "aria-label": `Compute used ${why.cuUsed} of ${why.cuRequested} requested (${pct(cuShare)})` },
          h("span", { class: why.computeExceeded || (cuShare ?? 0) > 0.95 ? "bad" : "", style: `width:${Math.min(100, (cuShare ?? 0) * 100).toFixed(1)}%` }),
        )
      : null;
  const failingDiffers = why.failingProgram && why.failingProgram !== program;
  return h(
    "article",
    { class: `card story ${why.outcome}`, "aria-labelledby": "story-title" },
    h("div", { class: "story-head" }, outcomeBadge(why.outcome), h("h2", { id: "story-title" }, headline)),
    why.errMessage ? h("p", { class: "err-message" }, why.errMessage) : null,
    h(
      "dl",
      { class: "facts" },
      row("Program", program ? link(`/p/${enc(program)}`, programName(program) ?? short(program, 6)) : null),
      row("Instruction", why.instruction),
      row("Error", why.errName ? h("strong", { class: "err-name" }, why.errName) : null, why.errCode !== null ? h("span", { class: "dim" }, ` (code ${why.errCode})`) : null),
      row("Instruction path", why.ixPath ? h("span", { class: "ix-path" }, ixPathLabel(why.ixPath)) : null, why.cpiDepth !== null && why.cpiDepth > 0 ? h("span", { class: "dim" }, ` · depth ${why.cpiDepth}`) : null),
      why.failingProgram !== undefined ? row("Failing program", why.failingProgram ? (failingDiffers ? link(`/p/${enc(why.failingProgram)}`, programName(why.failingProgram) ?? short(why.failingProgram, 6)) : programName(why.failingProgram) ?? short(why.failingProgram, 6)) : null) : [],
      why.failingInstruction !== undefined ? row("Failing instruction", why.failingInstruction ?? null) : [],
      row("Compute", why.cuUsed !== null ? `${num(why.cuUsed)} used of ${num(why.cuRequested)} requested` : null, why.computeExceeded ? badge("budget exceeded", "bad") : null),
      row("Provider", why.rpcLabel ?? null),
      row("Payer", why.payer ? (program ? link(`/w/${enc(program)}/${enc(why.payer)}`, short(why.payer, 6)) : short(why.payer, 6)) : null, why.payerBotScore !== null ? h("span", { class: "dim" }, ` · bot score ${why.payerBotScore.toFixed(2)}`) : null),
      row("Sent", why.sentAt ? when(why.sentAt) : null),
      row("Slot", why.slot ? num(why.slot) : null, why.blockTime ? h("span", { class: "dim" }, ` · ${when(why.blockTime)}`) : null),
    ),
    meter,
    why.issue
      ? h(
          "div",
          { class: "issue-box" },
          h("h3", {}, "Grouped issue"),
          h("p", {}, h("code", {}, why.issue.fingerprint), ` · ${num(why.issue.count7d)} occurrences in 7 days · first seen ${ago(why.issue.firstSeen)}`),
          program ? link(`/p/${enc(program)}`, "See the program's top issues →") : null,
        )
      : null,
    why.source === "chain" ? h("p", { class: "dim" }, "txray never received telemetry for this signature: decoded from the chain on demand.") : null,
  );
}

function renderDrop(data: DiagnoseDrop) {
  return h(
    "section",
    { class: "card", "aria-labelledby": "drop-title" },
    h("h2", { id: "drop-title" }, "Why it dropped: ", dropLabel(data.dropClass), data.confidence !== null ? h("span", { class: "dim" }, ` (confidence ${pct(data.confidence, 0)})`) : null),
    data.advice ? h("p", { class: "advice" }, data.advice) : null,
    h("ul", { class: "evidence" }, data.evidence.map((e) => h("li", {}, h("strong", {}, e.kind.replaceAll("_", " ")), ": ", e.detail))),
    data.provider ? h("p", { class: "dim" }, `Provider ${data.provider.rpcLabel}: drop rate ${pct(data.provider.dropRate)} over its last 7 days of sends.`) : null,
  );
}
