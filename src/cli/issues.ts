// `txray issue resolve|ignore|unresolve|assign <fingerprint>` (docs/api.md#issue-states): the
// operator's side of POST /v1/issue/{fingerprint}/state, straight on the data directory like
// `txray alerts`. The account is `--account <name>`, else the one `txray keys create` saved in the
// config file; the history records the change as made by `cli:<login>`.

import { parseArgs } from "node:util";
import { changeIssueState, type IssueStateAnswer } from "../analytics/queries";
import type { Config } from "../config";
import { createContext } from "../context";
import { accountIdByName } from "../control";
import { silentLogger } from "../shared/logger";
import { readUserConfig, userConfigPath } from "./user-config";

export type IssuesIo = {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
};

export const ISSUES_USAGE = `  issue resolve <fingerprint> [--next-release] [--account <name>] [--json]
                          mark an issue resolved (or resolved by the program's next deploy)
  issue ignore <fingerprint> [--events <n>] [--until <time>] [--account <name>] [--json]
                          ignore it (until n more events, until an ISO time or Unix ms)
  issue unresolve <fingerprint> [--account <name>] [--json]
                          reopen it
  issue assign <fingerprint> (<assignee> | --none) [--account <name>] [--json]
                          assign it (or unassign it)
`;

export class IssuesUsageError extends Error {}

const ACTIONS = ["resolve", "ignore", "unresolve", "assign"] as const;

export async function issuesCommand(
  action: string | undefined,
  args: string[],
  config: Config,
  io: IssuesIo,
): Promise<number> {
  if (!ACTIONS.includes(action as (typeof ACTIONS)[number]))
    throw new IssuesUsageError(`unknown issue command: ${action ?? "(none)"}`);
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new IssuesUsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const [fingerprint, assignee, ...extra] = positionals;
  if (fingerprint === undefined) throw new IssuesUsageError(`issue ${action} needs <fingerprint>`);
  if (extra.length > 0 || (assignee !== undefined && action !== "assign"))
    throw new IssuesUsageError(`issue ${action}: unexpected ${positionals.slice(1).join(" ")}`);
  const change = changeOf(action as (typeof ACTIONS)[number], values, assignee);
  const ctx = await createContext(config, { logger: silentLogger });
  try {
    const name = values.account ?? readUserConfig(userConfigPath(io.env)).account;
    if (name === undefined)
      throw new IssuesUsageError(
        "which account? --account <name> (or create a key with `txray keys create`, which saves it)",
      );
    const accountId = accountIdByName(ctx.control, name);
    if (accountId === null) throw new Error(`no account named ${name}`);
    const actor = `cli:${io.env.USER ?? io.env.LOGNAME ?? "operator"}`;
    const answer = await changeIssueState(ctx, accountId, actor, fingerprint, change);
    io.stdout(values.json ? `${JSON.stringify(answer)}\n` : describe(answer));
    return 0;
  } finally {
    ctx.close();
  }
}

const OPTIONS = {
  "next-release": { type: "boolean" },
  events: { type: "string" },
  until: { type: "string" },
  none: { type: "boolean" },
  account: { type: "string" },
  json: { type: "boolean" },
} as const;

/** The body of the change each action asks for (validated, with its 400s, by changeIssueState). */
function changeOf(
  action: (typeof ACTIONS)[number],
  values: { "next-release"?: boolean; events?: string; until?: string; none?: boolean },
  assignee: string | undefined,
): Record<string, unknown> {
  const misplaced = (flag: string, allowed: boolean) => {
    if (!allowed) throw new IssuesUsageError(`--${flag} does not go with issue ${action}`);
  };
  if (values["next-release"]) misplaced("next-release", action === "resolve");
  if (values.events !== undefined) misplaced("events", action === "ignore");
  if (values.until !== undefined) misplaced("until", action === "ignore");
  if (values.none) misplaced("none", action === "assign");
  switch (action) {
    case "resolve":
      return { state: values["next-release"] ? "resolved_next_release" : "resolved" };
    case "unresolve":
      return { state: "unresolved" };
    case "ignore":
      return {
        state: "ignored",
        ...(values.events !== undefined ? { ignoreUntilEvents: Number(values.events) } : {}),
        ...(values.until !== undefined ? { ignoreUntilAt: timeOf(values.until) } : {}),
      };
    case "assign":
      if ((assignee === undefined) === !values.none)
        throw new IssuesUsageError("issue assign needs <assignee> or --none");
      return { assignee: values.none ? null : assignee };
  }
}

/** `--until`: Unix ms, or an ISO 8601 time. */
function timeOf(text: string): number {
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  if (Number.isNaN(at)) throw new IssuesUsageError(`--until ${text}: expected an ISO 8601 time or Unix ms`);
  return at;
}

function describe(answer: IssueStateAnswer): string {
  const { state } = answer;
  const set = state.state === state.stored ? "" : ` (set: ${state.stored})`;
  const assigned = state.assignee ? `, assigned to ${state.assignee}` : "";
  return `${answer.fingerprint}: ${state.state}${set}${assigned}\n`;
}
