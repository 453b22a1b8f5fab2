// Block Kit messages of the Slack bot: an answer is a header (the question) and sections with the
// summary lines every surface shares (src/contract/summaries.ts); errors and help are ephemeral
// (only the asker sees them). Slack limits a section's text to 3000 characters and a message to 50
// blocks, so long answers are cut. Every text from data is escaped for mrkdwn (src/shared/mrkdwn.ts):
// a label an SDK sent must not become a link or an @channel.

import { summarize } from "../contract";
import { TxrayError } from "../shared/errors";
import { escapeMrkdwn } from "../shared/mrkdwn";

export type SlackBlock = Record<string, unknown>;
export type SlackMessage = {
  response_type: "in_channel" | "ephemeral";
  text: string;
  blocks?: SlackBlock[];
  replace_original?: boolean;
};

const SECTION_LIMIT = 2900;
const section = (text: string): SlackBlock => ({
  type: "section",
  text: { type: "mrkdwn", text: text.slice(0, SECTION_LIMIT) },
});

/** Groups lines into sections under Slack's text limit. */
function sections(lines: string[]): SlackBlock[] {
  const out: SlackBlock[] = [];
  let current = "";
  for (const line of lines) {
    if (current && current.length + line.length + 1 > SECTION_LIMIT) {
      out.push(section(current));
      current = "";
    }
    current = current ? `${current}\n${line}` : line;
  }
  if (current) out.push(section(current));
  return out.slice(0, 45);
}

export function answerMessage(question: string, answer: unknown): SlackMessage {
  const summary = summarize(question, answer);
  return {
    response_type: "in_channel",
    text: escapeMrkdwn(summary.title),
    blocks: [
      { type: "header", text: { type: "plain_text", text: summary.title.slice(0, 150) } },
      ...sections(summary.lines.map(escapeMrkdwn)),
      { type: "context", elements: [{ type: "mrkdwn", text: "txray · same answer as the HTTP API and MCP tools" }] },
    ],
  };
}

export function errorMessage(error: unknown, usage: string): SlackMessage {
  const known = error instanceof TxrayError ? error : null;
  const text = known
    ? `:warning: ${known.code}: ${escapeMrkdwn(known.message)}${known.retryAfterSeconds !== undefined ? ` (ask again in ${known.retryAfterSeconds}s)` : ""}`
    : ":warning: internal error";
  return {
    response_type: "ephemeral",
    text,
    blocks: [
      section(text),
      { type: "context", elements: [{ type: "mrkdwn", text: `Usage: \`${escapeMrkdwn(usage)}\`` }] },
    ],
  };
}

export function helpMessage(problem: string | null, command: string, usages: string[]): SlackMessage {
  const lines = usages.map((usage) => `• \`${escapeMrkdwn(`${command} ${usage}`)}\``);
  const text = `${problem ? `${escapeMrkdwn(problem)}\n` : ""}txray answers why transactions fail, drop or land:`;
  return {
    response_type: "ephemeral",
    text,
    blocks: [section(text), section([...lines, `• \`${escapeMrkdwn(command)} help\``].join("\n"))],
  };
}
