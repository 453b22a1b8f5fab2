// The contract every surface shares: the read questions (route, tool name, parameters, response
// schema, query function), their short human summaries, and the OpenAPI document built from them.

export {
  accountForScope,
  optionalPrincipal,
  presentedKey,
  requirePrincipal,
  requireReader,
  scopeAccount,
} from "./auth";
export { chainAccess } from "./chain-access";
export { type Readiness, readiness } from "./health";
export {
  bearerTokenMatches,
  duckdbMemoryBytes,
  METRICS_CONTENT_TYPE,
  metricsText,
  renderFamilies,
  SERVER_METRICS,
  ServerMetrics,
} from "./metrics";
export { openApiDocument, openApiPath } from "./openapi";
export {
  argsFromRequest,
  PARAMS,
  type ParamName,
  QUESTIONS,
  type Question,
  type QuestionArgs,
  type QuestionDeps,
  questionByName,
} from "./questions";
export { serviceStatus } from "./status";
export { type Summary, summarize, summaryText } from "./summaries";
