// The contract every surface shares: the read questions (route, tool name, parameters, response
// schema, query function), their short human summaries, and the OpenAPI document built from them.
export {
  argsFromRequest,
  PARAMS,
  QUESTIONS,
  questionByName,
  type ParamName,
  type Question,
  type QuestionArgs,
  type QuestionDeps,
} from "./questions";
export { summarize, summaryText, type Summary } from "./summaries";
export { openApiDocument, openApiPath } from "./openapi";
export { optionalPrincipal, requirePrincipal, scopeAccount, accountForScope, presentedKey } from "./auth";
export { chainAccess } from "./chain-access";
export { serviceStatus } from "./status";
