// Text for Slack's mrkdwn. Slack reads `<…>` as a link, a mention (`<@U…>`) or a broadcast
// (`<!channel>`, `<!here>`), so every text that comes from data (labels an SDK sent, error and IDL
// names, titles) is escaped before it reaches a mrkdwn field; only the three characters Slack's
// "Escaping text" documentation names need it.

export const escapeMrkdwn = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
