// @toolgate/client: a client for toolgate, the server that runs AI coding
// agents' tool calls. Start with Client; see README.md.

export { Client, Sessions, type ApprovalHandler, type ClientOptions, type QuestionHandler, type RunOptions, type SessionRef, type ToolsOptions } from './client.js';
export { Session } from './session.js';
export { EVENT_TYPES, type EventsOptions } from './events.js';
export { ApprovalRequest, QuestionRequest, type Decision, type HandlerOptions, type Pending, type Subscription } from './inbox.js';
export { Transport, type RequestOptions, type TransportOptions } from './http.js';
export {
  AuthenticationError,
  BadRequestError,
  ConflictError,
  APIConnectionError,
  LimitError,
  NotFoundError,
  PermissionDeniedError,
  RequestTimeoutError,
  ValidationError,
  ServerError,
  ToolgateError,
  type ErrorCode,
  type ErrorFields,
  type ToolErrorCode,
} from './errors.js';
export { SSEParser, type SSEMessage } from './sse.js';
export { VERSION } from './version.js';
export type * from './types.js';
export type { components, operations, paths } from './openapi.js';
