// The chat surface: Slack slash commands over the same questions as the HTTP routes and MCP tools.
export {
  handleSlackCommand,
  parseCommand,
  responsePoster,
  slackSignature,
  verifySlackRequest,
  type SlackOptions,
  type ResponsePoster,
} from "./slack";
export type { SlackMessage } from "./blocks";
