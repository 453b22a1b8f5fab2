// The Block Kit message a Slack incoming webhook receives for an alert (docs/alerts.md#slack): a
// header with the state and title, the numbers, the rule's facts as fields, and links to the web
// app's pages. Built from the webhook payload at send time, within Slack's limits (header 150
// characters, section text 3000, 10 fields of 2000, 50 blocks); text is escaped for mrkdwn.

import { escapeMrkdwn } from "../shared/mrkdwn";
import type { AlertPayload } from "./payload";

export type SlackBlock = Record<string, unknown>;
export type SlackWebhookMessage = { text: string; blocks: SlackBlock[] };

const HEADER_LIMIT = 150;
const SECTION_LIMIT = 3000;
const FIELD_LIMIT = 2000;
const SUMMARY_LINES = 20;

const cut = (text: string, limit: number) => (text.length > limit ? `${text.slice(0, limit - 1)}…` : text);
const mrkdwn = (text: string, limit = SECTION_LIMIT) => ({ type: "mrkdwn", text: cut(text, limit) });

const ICON = { firing: ":rotating_light:", resolved: ":white_check_mark:" } as const;

export function slackAlertMessage(payload: AlertPayload): SlackWebhookMessage {
  const label = payload.kind === "test" ? "Test" : payload.state === "firing" ? "Firing" : "Resolved";
  const headline = `${label}: ${payload.title}`;
  const lines = payload.kind === "summary" ? summaryLines(payload) : payload.text;
  const links = [
    `<${payload.links.program}|Program page>`,
    ...(payload.links.issue ? [`<${payload.links.issue}|Issue>`] : []),
    ...(payload.links.example ? [`<${payload.links.example}|Example transaction>`] : []),
  ];
  const blocks: SlackBlock[] = [
    {
      type: "header",
      text: {
        type: "plain_text",
        text: cut(`${payload.state === "firing" ? "🚨" : "✅"} ${headline}`, HEADER_LIMIT),
        emoji: true,
      },
    },
    { type: "section", text: mrkdwn(lines.map(escapeMrkdwn).join("\n") || escapeMrkdwn(payload.title)) },
    {
      type: "section",
      fields: [
        mrkdwn(`*Rule*\n${payload.rule}`, FIELD_LIMIT),
        mrkdwn(`*Program*\n\`${payload.program}\``, FIELD_LIMIT),
        mrkdwn(`*State*\n${ICON[payload.state]} ${payload.state}`, FIELD_LIMIT),
        mrkdwn(
          `*Since*\n<!date^${Math.floor(payload.firingSince / 1000)}^{date_short_pretty} {time}|${new Date(payload.firingSince).toISOString()}>`,
          FIELD_LIMIT,
        ),
      ],
    },
    {
      type: "context",
      elements: [mrkdwn(links.join(" · ")), mrkdwn(`txray alert \`${payload.alertId}\` · delivery \`${payload.id}\``)],
    },
  ];
  return { text: cut(escapeMrkdwn(`${ICON[payload.state]} ${headline}`), SECTION_LIMIT), blocks };
}

/** A flood summary lists the folded alerts (the first SUMMARY_LINES, then how many more). */
function summaryLines(payload: AlertPayload): string[] {
  const alerts = (payload.data.alerts as { state: "firing" | "resolved"; title: string }[] | undefined) ?? [];
  const total = Number(payload.data.count ?? alerts.length);
  const shown = alerts.slice(0, SUMMARY_LINES).map((alert) => `${ICON[alert.state]} ${alert.title}`);
  return [
    ...payload.text,
    ...shown,
    ...(total > shown.length ? [`…and ${total - shown.length} more (txray alerts log)`] : []),
  ];
}
