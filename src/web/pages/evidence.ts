// The call stack and the program logs of one failed attempt (docs/api.md#the-call-stack), as the tx
// page and the issue page show them: frames indented by depth with their number (Solana Explorer's,
// as the chain record and the story's "Where" give it), instruction and compute units, the failing
// frame highlighted and its error spelled out; the logs numbered, the failing frame's lines
// highlighted, in a fold the reader opens (open at once on the issue page).

import { enc } from "../api";
import { h, link } from "../dom";
import { frameName, num } from "../format";
import type { CallFrame } from "../types";

export function callStackView(stack: CallFrame[]): HTMLElement {
  return h(
    "ol",
    { class: "stack", "aria-label": "Call stack, outermost first" },
    stack.map((frame) =>
      h(
        "li",
        {
          class: `frame ${frame.failing ? "failing" : frame.result === "failed" ? "passed-on" : ""}`,
          style: `--depth:${frame.depth - 1}`,
        },
        h("span", { class: "frame-number mono" }, frame.number ?? "?"),
        " ",
        link(`/p/${enc(frame.program)}`, frameName(frame)),
        frame.instruction ? h("strong", { class: "frame-ix" }, ` ${frame.instruction}`) : null,
        frame.computeUnits !== null
          ? h("span", { class: "dim" }, ` · ${num(frame.computeUnits)} of ${num(frame.computeLimit)} CU`)
          : null,
        frame.failing
          ? h(
              "span",
              { class: "frame-error" },
              h("span", { class: "sr" }, "failing frame: "),
              `✗ ${frame.error ?? "failed"}`,
            )
          : frame.result === "failed"
            ? h("span", { class: "dim" }, " · passed the error on")
            : frame.result === "unfinished"
              ? h("span", { class: "dim" }, " · logs end here")
              : null,
      ),
    ),
  );
}

/** The logs, numbered, the failing frame's own lines highlighted; folded unless `open`. */
export function logsView(logs: string[], stack: CallFrame[] | null, open: boolean, truncated = false): HTMLElement {
  const failing = stack?.find((frame) => frame.failing) ?? null;
  const inFailing = (i: number) => failing !== null && i >= failing.lines[0] && i <= failing.lines[1];
  const pre = h(
    "pre",
    { class: "logs", tabindex: "0", "aria-label": "Program logs" },
    logs.map((line, i) =>
      h(
        "span",
        { class: inFailing(i) ? "line hl" : "line" },
        h("span", { class: "ln", "aria-hidden": "true" }, String(i)),
        line,
        "\n",
      ),
    ),
  );
  const details = h(
    "details",
    { class: "logs-box" },
    h(
      "summary",
      {},
      `Program logs (${logs.length} lines${failing ? ", the failing frame's highlighted" : ""}${truncated ? "; cut at the runtime's 10 KB limit" : ""})`,
    ),
    pre,
  );
  details.open = open;
  return details;
}
