// The Slack slash command (`/txray why <sig>`, `top <program>`, …) over the same questions as the
// HTTP routes (src/contract/questions.ts). A request is trusted only with a valid `v0` signature
// (HMAC-SHA256 of `v0:{timestamp}:{body}` with the app's signing secret, compared in constant
// time) and a timestamp within 5 minutes (a replayed request is refused). Slack waits 3 seconds for
// the answer: a question answered within the inline budget comes back in the response; a slower
// one is acknowledged at once and its answer POSTed to the request's `response_url` later.
// `resolve`, `ignore` and `unresolve` change an issue's state (docs/api.md#issue-states) in the one
// account SLACK_TRIAGE_ACCOUNT names, recorded as changed by the Slack user; off when it is unset.

import { createHmac, timingSafeEqual } from "node:crypto";
import { changeIssueState } from "../analytics/queries";
import { type QuestionArgs, type QuestionDeps, questionByName } from "../contract";
import { accountIdByName } from "../control";
import { readBoundedBody } from "../shared/bounded-body";
import { TxrayError } from "../shared/errors";
import { describeError } from "../shared/logger";
import { escapeMrkdwn } from "../shared/mrkdwn";
import { answerMessage, errorMessage, helpMessage, type SlackMessage } from "./blocks";

/** Slack's replay window. */
export const MAX_SKEW_SECONDS = 5 * 60;
/** Slack gives up after 3 s; answer inline only well within that. */
export const INLINE_BUDGET_MS = 2_000;
const MAX_BODY_BYTES = 16 * 1024;

export type ResponsePoster = (responseUrl: string, message: SlackMessage) => Promise<void>;

export type SlackOptions = {
  signingSecret: string;
  questions: QuestionDeps;
  /** Unix ms. */
  clock: () => number;
  inlineBudgetMs?: number;
  postResponse?: ResponsePoster;
};

/** Posts a delayed answer to a response_url; by default only to Slack's own hooks host. */
export function responsePoster(
  allow: (url: URL) => boolean = (url) => url.protocol === "https:" && url.hostname === "hooks.slack.com",
): ResponsePoster {
  return async (responseUrl, message) => {
    const url = new URL(responseUrl);
    if (!allow(url)) throw new Error(`response_url host not allowed: ${url.hostname}`);
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(message),
    });
    if (!response.ok) throw new Error(`response_url answered ${response.status}`);
  };
}

/** `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}`: what Slack sends in X-Slack-Signature. */
export function slackSignature(secret: string, timestamp: string, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

/** Throws 401 unless the request carries a valid, fresh signature. */
export function verifySlackRequest(secret: string, headers: Headers, body: string, nowMs: number): void {
  const timestamp = headers.get("x-slack-request-timestamp");
  const signature = headers.get("x-slack-signature");
  if (!timestamp || !signature) throw new TxrayError("unauthorized", "missing Slack signature headers");
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowMs / 1000 - Number(timestamp)) > MAX_SKEW_SECONDS)
    throw new TxrayError(
      "unauthorized",
      "Slack request timestamp is more than 5 minutes off: refused as a possible replay",
    );
  const expected = Buffer.from(slackSignature(secret, timestamp, body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    throw new TxrayError("unauthorized", "invalid Slack signature");
}

type Command = { question: string; args: QuestionArgs; usage: string };

/** Words after the command name → (question, route arguments). A `1d|7d|30d` word anywhere sets the window. */
const COMMANDS: Record<
  string,
  { question: string; params: ("sig" | "program" | "wallet" | "fingerprint")[]; usage: string }
> = {
  why: { question: "why", params: ["sig"], usage: "why <signature>" },
  drop: { question: "diagnose_drop", params: ["sig"], usage: "drop <signature>" },
  top: { question: "top_issues", params: ["program"], usage: "top <program> [1d|7d|30d]" },
  issue: { question: "issue", params: ["fingerprint"], usage: "issue <fingerprint> [1d|7d|30d]" },
  baseline: { question: "baseline", params: ["program"], usage: "baseline <program> [1d|7d|30d]" },
  cu: { question: "cu_headroom", params: ["program"], usage: "cu <program> [1d|7d|30d]" },
  providers: { question: "provider_report", params: ["program"], usage: "providers <program> [1d|7d|30d]" },
  wallet: { question: "wallet_history", params: ["program", "wallet"], usage: "wallet <program> <wallet> [1d|7d|30d]" },
  release: { question: "release_diff", params: ["program"], usage: "release <program> [1d|7d|30d]" },
};

/** Words that change an issue's state: the change each asks for, from the words after the fingerprint. */
const TRIAGE: Record<string, { usage: string; change: (rest: string[]) => Record<string, unknown> }> = {
  resolve: {
    usage: "resolve <fingerprint> [next-release]",
    change: (rest) => ({ state: rest[0]?.toLowerCase() === "next-release" ? "resolved_next_release" : "resolved" }),
  },
  ignore: {
    usage: "ignore <fingerprint> [<n> more events]",
    change: (rest) => (rest[0] ? { state: "ignored", ignoreUntilEvents: Number(rest[0]) } : { state: "ignored" }),
  },
  unresolve: { usage: "unresolve <fingerprint>", change: () => ({ state: "unresolved" }) },
};

export const COMMAND_USAGE = [...Object.values(COMMANDS), ...Object.values(TRIAGE)].map((c) => c.usage);

/** `resolve|ignore|unresolve <fingerprint> …`, or null for any other command. */
function parseTriage(text: string): { word: string; fingerprint: string | null; rest: string[] } | null {
  const [word, fingerprint, ...rest] = text.trim().split(/\s+/).filter(Boolean);
  if (!word || !(word.toLowerCase() in TRIAGE)) return null;
  return { word: word.toLowerCase(), fingerprint: fingerprint ?? null, rest };
}

/** Applies a triage command for the Slack user `actor` in SLACK_TRIAGE_ACCOUNT's account. */
async function triage(
  command: NonNullable<ReturnType<typeof parseTriage>>,
  deps: QuestionDeps,
  actor: string,
): Promise<SlackMessage> {
  const spec = TRIAGE[command.word];
  const accountName = deps.ctx.config.SLACK_TRIAGE_ACCOUNT;
  try {
    if (accountName === undefined)
      throw new TxrayError(
        "forbidden",
        "changing issue states from Slack is off: the server names the account with SLACK_TRIAGE_ACCOUNT",
      );
    if (command.fingerprint === null) throw new TxrayError("bad_request", `usage: ${spec.usage}`);
    const accountId = accountIdByName(deps.ctx.control, accountName);
    if (accountId === null) throw new TxrayError("not_found", `account ${accountName}: no such account`);
    const answer = await changeIssueState(deps.ctx, accountId, actor, command.fingerprint, spec.change(command.rest));
    const { state } = answer.state;
    return {
      response_type: "in_channel",
      // Every text from data is escaped for mrkdwn, as in every other answer (src/chat/blocks.ts).
      text: `\`${escapeMrkdwn(answer.fingerprint)}\` is now *${state}*${state === answer.state.stored ? "" : ` (set: ${answer.state.stored})`}, by ${escapeMrkdwn(actor)}`,
    };
  } catch (error) {
    if (!(error instanceof TxrayError))
      deps.ctx.logger.error("internal error changing an issue state from Slack", { error: describeError(error) });
    return errorMessage(error, spec.usage);
  }
}

/** The command a slash-command text asks for; null for help, an unknown command or missing arguments. */
export function parseCommand(text: string): Command | { help: true; problem: string | null } {
  const words = text.trim().split(/\s+/).filter(Boolean);
  const name = (words.shift() ?? "help").toLowerCase();
  const spec = COMMANDS[name];
  if (!spec) return { help: true, problem: name === "help" ? null : `Unknown command \`${name}\`.` };
  const windowWord = words.findIndex((w) => /^(1d|7d|30d)$/.test(w));
  const window = windowWord >= 0 ? words.splice(windowWord, 1)[0] : null;
  if (words.length < spec.params.length) return { help: true, problem: `Usage: \`${spec.usage}\`` };
  const args: QuestionArgs = {};
  for (const [i, param] of spec.params.entries()) args[param] = words[i];
  const question = questionByName(spec.question)!;
  if (window && question.queryParams.includes("window")) args.window = window;
  return { question: spec.question, args, usage: spec.usage };
}

/** `client`: the Slack user asking (`slack:<team>:<user>`), for per-client limits. */
async function answer(command: Command, deps: QuestionDeps, client: string): Promise<SlackMessage> {
  const question = questionByName(command.question)!;
  try {
    // Chat answers are public aggregates: a Slack workspace is not an API key.
    return answerMessage(question.name, await question.answer(deps, command.args, null, client));
  } catch (error) {
    if (!(error instanceof TxrayError))
      deps.ctx.logger.error("internal error answering a Slack command", { error: describeError(error) });
    return errorMessage(error, command.usage);
  }
}

/** POST /chat/slack. Returns the HTTP response Slack gets within its 3 seconds. */
export async function handleSlackCommand(request: Request, options: SlackOptions): Promise<Response> {
  const body = new TextDecoder().decode(await readBoundedBody(request, MAX_BODY_BYTES, "Slack command body"));
  verifySlackRequest(options.signingSecret, request.headers, body, options.clock());
  const form = new URLSearchParams(body);
  // Slack checks the endpoint's certificate now and then with a signed `ssl_check=1`: nothing to answer.
  if (form.get("ssl_check") === "1") return new Response(null, { status: 200 });
  const triageCommand = parseTriage(form.get("text") ?? "");
  if (triageCommand)
    return Response.json(
      await triage(triageCommand, options.questions, `slack:${form.get("team_id") ?? ""}:${form.get("user_id") ?? ""}`),
    );
  const command = parseCommand(form.get("text") ?? "");
  if ("help" in command)
    return Response.json(helpMessage(command.problem, form.get("command") ?? "/txray", COMMAND_USAGE));

  // Requests come from Slack's servers: the signed team and user ids say who asks, not the IP.
  const client = `slack:${form.get("team_id") ?? ""}:${form.get("user_id") ?? ""}`;
  const pending = answer(command, options.questions, client);
  const budget = options.inlineBudgetMs ?? INLINE_BUDGET_MS;
  // A budget of 0 always answers later (how tests exercise the response_url path deterministically).
  const inTime = budget > 0 ? await Promise.race([pending, Bun.sleep(budget).then(() => null)]) : null;
  if (inTime) return Response.json(inTime);

  const responseUrl = form.get("response_url");
  if (!responseUrl) throw new TxrayError("bad_request", "response_url: missing (needed for a slow answer)");
  const post = options.postResponse ?? responsePoster();
  void pending
    .then((message) => post(responseUrl, { ...message, replace_original: true }))
    .catch((error) =>
      options.questions.ctx.logger.warn("could not post a Slack answer to response_url", {
        error: describeError(error),
      }),
    );
  return Response.json({
    response_type: "ephemeral",
    text: `Working on \`${command.usage.split(" ")[0]}\`… the answer follows in a moment.`,
  });
}
