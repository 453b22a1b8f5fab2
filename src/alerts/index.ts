// Public surface of alerts (docs/alerts.md): rules over the query layer, evaluated by the alerts job
// after each refresh, delivered durably to a signed webhook or a Slack incoming webhook.

export { type DeliverySummary, deliverDue } from "./deliver";
export { allowedNetworks, type DestinationSettings, destinationProblem, type Lookup } from "./destination";
export { type EvaluationSummary, evaluateRules } from "./evaluate";
export { type FloodCandidate, type FloodPlan, planFlood } from "./flood";
export {
  type AlertRuleCreated,
  AlertRuleCreatedSchema,
  AlertRuleDeletedSchema,
  AlertRuleSchema,
  AlertRulesSchema,
  type AlertRuleView,
  type AlertTestResult,
  AlertTestResultSchema,
  createRule,
  listRules,
  MAX_RULES_PER_ACCOUNT,
  redactUrl,
  removeRule,
  ruleView,
  sendTest,
  sendTestWithDetail,
} from "./manage";
export { type AlertPayload, AlertPayloadSchema, PAYLOAD_VERSION, type StoredPayload } from "./payload";
export { httpOrigin, LISTENING_ADDRESS, type LinkSource, publicBaseUrl } from "./public-url";
export {
  type AlertRuleInput,
  AlertRuleInputSchema,
  DestinationSchema,
  RULE_KINDS,
  RULE_PARAMS,
  type RuleKind,
  type RuleParams,
  ruleParams,
} from "./rules";
export { ALERT_HISTORY_MS, runAlerts } from "./run";
export {
  ATTEMPT_TIMEOUT_MS,
  type AttemptOutcome,
  attemptRequest,
  backoffMs,
  defaultSendEffects,
  nextAttemptAt,
  RETRY_CAP_MS,
  type SendEffects,
  sendAttempt,
} from "./send";
export { SIGNATURE_HEADER, SIGNATURE_TOLERANCE_SECONDS, signatureHeader, verifySignature } from "./signature";
export { type SlackWebhookMessage, slackAlertMessage } from "./slack-message";
export { type Change, transitions } from "./transitions";
