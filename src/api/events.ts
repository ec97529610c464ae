/** The event vocabulary: the schemas a log line and a request are judged by, the version this build writes, and how older lines are read. */
export {
  EVENT_VERSION,
  EventRequest,
  GapflowEvent,
  OLDEST_VERSION,
  upcast,
  versionProblem,
  type BodyOf,
  type DecisionKind,
  type EventBody,
  type EventBodyInput,
  type EventOf,
  type GapState,
  type Severity,
  type SessionSettings,
  type SettledEvent,
} from '../../events/index.js';
export { gapflowJsonSchemaText } from '../schema.js';
