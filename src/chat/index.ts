// The chat surface: Slack slash commands over the same questions as the HTTP routes and MCP tools.

export type { SlackMessage } from "./blocks";
export {
  handleSlackCommand,
  parseCommand,
  type ResponsePoster,
  responsePoster,
  type SlackOptions,
  slackSignature,
  verifySlackRequest,
} from "./slack";
